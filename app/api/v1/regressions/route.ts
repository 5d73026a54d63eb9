import { route } from "@/lib/http/route";
import { AgentRef } from "@/lib/server/clusters/cluster-shared";
import { getRegressions } from "@/lib/server/clusters/regressions";

export const dynamic = "force-dynamic";

/**
 * An agent's pass rate by version and by day, each with its Wilson 95% interval, and the versions flagged
 * as regressions with the clusters that grew most: `{ agent, versions, days, regressions }`.
 */
export const GET = route({ accept: ["api_key"], query: AgentRef }, async ({ prisma, principal, query }) => {
  return Response.json(await getRegressions(principal, query, prisma));
});
