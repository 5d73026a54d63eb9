import { route } from "@/lib/http/route";
import { removeMcpExecutor } from "@/lib/server/executors/mcp-servers";

export const dynamic = "force-dynamic";

/** DELETE /api/v1/executors/mcp/:id: answers with the removed `{ "server" }`; 404 when unknown. */
export const DELETE = route<{ id: string }>({ accept: ["api_key"] }, async ({ prisma, params, principal }) =>
  Response.json({ server: await removeMcpExecutor(principal, params.id, prisma) }),
);
