import { route } from "@/lib/http/route";
import { coverageCsvResponse } from "@/lib/http/coverage";
import { getReplayCoverage } from "@/lib/server/replays/coverage";

export const dynamic = "force-dynamic";

/** The branch's policy coverage as CSV. */
export const GET = route<{ id: string }>({ accept: ["api_key"] }, async ({ prisma, params, principal }) => {
  const coverage = await getReplayCoverage(principal, { replayId: params.id }, prisma);
  return coverageCsvResponse(coverage, `replay-${params.id}`);
});
