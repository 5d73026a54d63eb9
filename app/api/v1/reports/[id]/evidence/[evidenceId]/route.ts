import { apiRoute } from "@/lib/http/api";
import { removeReportEvidence } from "@/lib/server/reports/reports";

export const dynamic = "force-dynamic";

/** DELETE /api/v1/reports/:id/evidence/:evidenceId → `{ removed: { id } }` (drafts only). */
export const DELETE = apiRoute<{ id: string; evidenceId: string }>(async ({ prisma, params, principal }) => {
  return Response.json({
    removed: await removeReportEvidence(principal, { reportId: params.id, evidenceId: params.evidenceId }, prisma),
  });
});
