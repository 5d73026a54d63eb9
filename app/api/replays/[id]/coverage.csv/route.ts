import { coverageCsvResponse } from "@/lib/http/coverage";
import { route } from "@/lib/http/route";
import { getReplayCoverage } from "@/lib/server/replays/coverage";

export const dynamic = "force-dynamic";

/** GET /api/replays/:id/coverage.csv: the dashboard's download (same origin). */
export const GET = route<{ id: string }>({ accept: ["session"] }, async ({ params: { id }, principal, prisma }) => {
  const coverage = await getReplayCoverage(principal, { replayId: id }, prisma);
  return coverageCsvResponse(coverage, `replay-${id}`);
});
