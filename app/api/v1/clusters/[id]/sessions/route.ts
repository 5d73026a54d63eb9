import { z } from "zod";
import { route } from "@/lib/http/route";
import { listClusterSessions } from "@/lib/server/clusters/clusters";

export const dynamic = "force-dynamic";

const Query = z.object({
  cursor: z.string().min(1).max(120).optional(),
  limit: z.coerce.number().int().min(1).max(200).default(50),
});

/** A page of the cluster's sessions, most recently seen first: `{ sessions: [{ id, externalId, … }], nextCursor }`. */
export const GET = route<{ id: string }, typeof Query>(
  { accept: ["api_key"], query: Query },
  async ({ prisma, params, principal, query }) => {
    return Response.json(await listClusterSessions(principal, { clusterId: params.id, ...query }, prisma));
  },
);
