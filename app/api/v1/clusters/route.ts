import { route } from "@/lib/http/route";
import { listFailureClusters } from "@/lib/server/clusters/clusters";
import { AgentRef } from "@/lib/server/clusters/cluster-shared";

export const dynamic = "force-dynamic";

/** An agent's failure clusters, largest first: `{ clusters: [{ id, label, signature, size, firstSeen, lastSeen }] }`. */
export const GET = route({ accept: ["api_key"], query: AgentRef }, async ({ prisma, principal, query }) => {
  const { clusters } = await listFailureClusters(principal, query, prisma);
  return Response.json({ clusters });
});
