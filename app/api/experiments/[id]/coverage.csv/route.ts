import { db } from "@/lib/db";
import { errorResponse } from "@/lib/http/api";
import { coverageCsvResponse } from "@/lib/http/coverage";
import { currentPrincipal } from "@/lib/http/principal";
import { getExperimentCoverage } from "@/lib/server/coverage";

export const dynamic = "force-dynamic";

/** GET /api/experiments/:id/coverage.csv: the dashboard's download (same origin). */
export async function GET(_request: Request, context: { params: Promise<{ id: string }> }): Promise<Response> {
  try {
    const { id } = await context.params;
    const coverage = await getExperimentCoverage(await currentPrincipal(), { experimentId: id }, await db());
    return coverageCsvResponse(coverage, `experiment-${id}`);
  } catch (error) {
    return errorResponse(error);
  }
}
