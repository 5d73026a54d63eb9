import { z } from "zod";
import { db } from "@/lib/db";
import { errorResponse, readQuery } from "@/lib/http/api";
import { currentPrincipal } from "@/lib/http/principal";
import { exportResponse } from "@/lib/reports/download";
import { EXPORT_FORMATS } from "@/lib/reports/export";
import { getReport } from "@/lib/server/reports";

export const dynamic = "force-dynamic";

const Query = z.object({ format: z.enum(EXPORT_FORMATS).default("md") });

/** GET /api/reports/:id/export?format=md|json: the dashboard's download (same origin). */
export async function GET(request: Request, context: { params: Promise<{ id: string }> }): Promise<Response> {
  try {
    const { format } = readQuery(request, Query);
    const { id } = await context.params;
    const { shares: _shares, ...report } = await getReport(await currentPrincipal(), { reportId: id }, await db());
    return exportResponse(report, format);
  } catch (error) {
    return errorResponse(error);
  }
}
