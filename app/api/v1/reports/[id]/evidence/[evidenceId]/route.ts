import { route } from "@/lib/http/route";
import { removeReportEvidence } from "@/lib/server/reports/reports";

export const dynamic = "force-dynamic";

/** DELETE /api/v1/reports/:id/evidence/:evidenceId → `{ removed: { id } }` (drafts only). */
export const DELETE = route<{ id: string; evidenceId: string }>(
  { accept: ["api_key"] },
  async ({ prisma, params, principal }) => {
    return Response.json({
      removed: await removeReportEvidence(principal, { reportId: params.id, evidenceId: params.evidenceId }, prisma),
    });
  },
);
