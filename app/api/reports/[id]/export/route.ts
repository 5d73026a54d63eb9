import { z } from "zod";
import { db } from "@/lib/db";
import { getReport } from "@/lib/db/reports";
import { errorResponse, jsonError, readQuery } from "@/lib/http/api";
import { sessionPrincipalWith } from "@/lib/http/principal";
import { exportResponse } from "@/lib/reports/download";
import { EXPORT_FORMATS } from "@/lib/reports/export";

export const dynamic = "force-dynamic";

const Query = z.object({ format: z.enum(EXPORT_FORMATS).default("md") });

/** GET /api/reports/:id/export?format=md|json: the dashboard's download (same origin). */
export async function GET(request: Request, context: { params: Promise<{ id: string }> }): Promise<Response> {
  try {
    await sessionPrincipalWith("reports.read");
    const { format } = readQuery(request, Query);
    const { id } = await context.params;
    const report = await getReport(await db(), id);
    if (!report) return jsonError(404, "report_not_found", "No such report.");
    return exportResponse(report, format);
  } catch (error) {
    return errorResponse(error);
  }
}
