import { apiRoute } from "@/lib/http/api";
import { getReport } from "@/lib/server/reports";

export const dynamic = "force-dynamic";

/** GET /api/v1/reports/:id → `{ report: { ..., shares } }` (share links without their tokens). */
export const GET = apiRoute<{ id: string }>(async ({ prisma, params, principal }) => {
  return Response.json({ report: await getReport(principal, { reportId: params.id }, prisma) });
});
