import { coverageCsvResponse } from "@/lib/http/coverage";
import { route } from "@/lib/http/route";
import { getExperimentCoverage } from "@/lib/server/replays/coverage";

export const dynamic = "force-dynamic";

/** GET /api/experiments/:id/coverage.csv: the dashboard's download (same origin). */
export const GET = route<{ id: string }>({ accept: ["session"] }, async ({ params: { id }, principal, prisma }) => {
  const coverage = await getExperimentCoverage(principal, { experimentId: id }, prisma);
  return coverageCsvResponse(coverage, `experiment-${id}`);
});
