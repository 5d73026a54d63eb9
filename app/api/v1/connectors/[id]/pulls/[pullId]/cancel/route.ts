import { route } from "@/lib/http/route";
import { cancelPull } from "@/lib/server/connectors/connectors";

export const dynamic = "force-dynamic";

/** POST /api/v1/connectors/:id/pulls/:pullId/cancel: stops the pull after its current trace → `{ "pull" }`. */
export const POST = route<{ id: string; pullId: string }>(
  { accept: ["api_key"] },
  async ({ params, prisma, principal }) =>
    Response.json({ pull: await cancelPull(principal, { connectorId: params.id, pullId: params.pullId }, prisma) }),
);
