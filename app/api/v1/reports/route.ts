import { apiRoute, readJson } from "@/lib/http/api";
import { CreateReportInput, createReport } from "@/lib/server/reports/reports";

export const dynamic = "force-dynamic";

/** POST /api/v1/reports: `{ replayId, title, sections }` → 201 `{ report }`. 409 when the replay has not finished. */
export const POST = apiRoute(async ({ request, prisma, principal }) => {
  const report = await createReport(principal, await readJson(request, CreateReportInput), prisma);
  return Response.json({ report }, { status: 201 });
});
