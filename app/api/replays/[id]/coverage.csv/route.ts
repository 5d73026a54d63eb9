import { db } from "@/lib/db";
import { errorResponse } from "@/lib/http/api";
import { coverageCsvResponse } from "@/lib/http/coverage";
import { currentPrincipal } from "@/lib/http/principal";
import { getReplayCoverage } from "@/lib/server/coverage";

export const dynamic = "force-dynamic";

/** GET /api/replays/:id/coverage.csv: the dashboard's download (same origin). */
export async function GET(_request: Request, context: { params: Promise<{ id: string }> }): Promise<Response> {
  try {
    const { id } = await context.params;
    const coverage = await getReplayCoverage(await currentPrincipal(), { replayId: id }, await db());
    return coverageCsvResponse(coverage, `replay-${id}`);
  } catch (error) {
    return errorResponse(error);
  }
}
