import { route } from "@/lib/http/route";
import { mergeFailureClusters, MergeClustersInput } from "@/lib/server/clusters/clusters";

export const dynamic = "force-dynamic";

/**
 * `{ targetId, sourceIds }`: the source clusters' sessions move into the target, and new sessions of their
 * signatures land there → `{ cluster }` (the target).
 */
export const POST = route(
  { accept: ["api_key"], authorize: "clusters.write", body: MergeClustersInput.strict() },
  async ({ prisma, principal, body }) => {
    return Response.json({ cluster: await mergeFailureClusters(principal, body, prisma) });
  },
);
