import { route } from "@/lib/http/route";
import { getPull } from "@/lib/server/connectors/connectors";

export const dynamic = "force-dynamic";

/** GET /api/v1/connectors/:id/pulls/:pullId: `{ "pull": { id, status, filter, progress, cursor, refusals, error, … } }`. */
export const GET = route<{ id: string; pullId: string }>(
  { accept: ["api_key"] },
  async ({ params, prisma, principal }) =>
    Response.json({ pull: await getPull(principal, { connectorId: params.id, pullId: params.pullId }, prisma) }),
);
