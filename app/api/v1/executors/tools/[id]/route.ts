import { route } from "@/lib/http/route";
import { removeExecutor } from "@/lib/server/executors/executors-admin";

export const dynamic = "force-dynamic";

/** DELETE /api/v1/executors/tools/:id: answers with the removed `{ "tool" }`; 404 when unknown. */
export const DELETE = route<{ id: string }>({ accept: ["api_key"] }, async ({ prisma, params, principal }) =>
  Response.json(await removeExecutor(principal, "tool", params.id, prisma)),
);
