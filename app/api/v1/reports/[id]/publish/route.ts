import { route } from "@/lib/http/route";
import { publishReport } from "@/lib/server/reports/reports";

export const dynamic = "force-dynamic";

/** POST /api/v1/reports/:id/publish → `{ report }`, now immutable and shareable. 400 without a Finding, 409 when already published. */
export const POST = route<{ id: string }>({ accept: ["api_key"] }, async ({ prisma, params, principal }) => {
  return Response.json({ report: await publishReport(principal, { reportId: params.id }, prisma) });
});
