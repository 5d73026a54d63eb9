import { z } from "zod";
import { route } from "@/lib/http/route";
import { exportResponse } from "@/lib/reports/download";
import { EXPORT_FORMATS } from "@/lib/reports/export";
import { getReport } from "@/lib/server/reports/reports";

export const dynamic = "force-dynamic";

const Query = z.object({ format: z.enum(EXPORT_FORMATS).default("md") });

/** GET /api/reports/:id/export?format=md|json: the dashboard's download (same origin). */
export const GET = route<{ id: string }, typeof Query>(
  { accept: ["session"], query: Query },
  async ({ params: { id }, query: { format }, principal, prisma }) => {
    const { shares: _shares, ...report } = await getReport(principal, { reportId: id }, prisma);
    return exportResponse(report, format);
  },
);
