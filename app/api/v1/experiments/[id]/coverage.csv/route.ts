import { route } from "@/lib/http/route";
import { coverageCsvResponse } from "@/lib/http/coverage";
import { getExperimentCoverage } from "@/lib/server/replays/coverage";

export const dynamic = "force-dynamic";

/** The experiment's policy coverage as CSV. */
export const GET = route<{ id: string }>({ accept: ["api_key"] }, async ({ prisma, params, principal }) => {
  const coverage = await getExperimentCoverage(principal, { experimentId: params.id }, prisma);
  return coverageCsvResponse(coverage, `experiment-${params.id}`);
});
