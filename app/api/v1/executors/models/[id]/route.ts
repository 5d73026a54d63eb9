import { route } from "@/lib/http/route";
import { removeExecutor } from "@/lib/server/executors/executors-admin";

export const dynamic = "force-dynamic";

/** DELETE /api/v1/executors/models/:id: answers with the removed `{ "model" }`; 404 when unknown. */
export const DELETE = route<{ id: string }>({ accept: ["api_key"] }, async ({ prisma, params, principal }) =>
  Response.json(await removeExecutor(principal, "model", params.id, prisma)),
);
