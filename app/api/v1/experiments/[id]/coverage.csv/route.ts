import { apiRoute } from "@/lib/http/api";
import { coverageCsvResponse } from "@/lib/http/coverage";
import { getExperimentCoverage } from "@/lib/server/replays/coverage";

export const dynamic = "force-dynamic";

/** The experiment's policy coverage as CSV. */
export const GET = apiRoute<{ id: string }>(async ({ prisma, params, principal }) => {
  const coverage = await getExperimentCoverage(principal, { experimentId: params.id }, prisma);
  return coverageCsvResponse(coverage, `experiment-${params.id}`);
});
