import { getReport, listShareLinks } from "@/lib/db/reports";
import { ApiError, apiRoute } from "@/lib/http/api";

export const dynamic = "force-dynamic";

/** GET /api/v1/reports/:id → `{ report: { ..., shares } }` (share links without their tokens). */
export const GET = apiRoute<{ id: string }>("reports.read", async ({ prisma, params }) => {
  const report = await getReport(prisma, params.id);
  if (!report) throw new ApiError(404, "report_not_found", `No report with id '${params.id}'.`);
  const shares = await listShareLinks(prisma, report.id);
  return Response.json({ report: { ...report, shares } });
});
