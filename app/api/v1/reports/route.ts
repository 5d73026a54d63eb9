import { route } from "@/lib/http/route";
import { CreateReportInput, createReport } from "@/lib/server/reports/reports";

export const dynamic = "force-dynamic";

/** POST /api/v1/reports: `{ replayId, title, sections }` → 201 `{ report }`. 409 when the replay has not finished. */
export const POST = route({ accept: ["api_key"], body: CreateReportInput }, async ({ body, prisma, principal }) => {
  const report = await createReport(principal, body, prisma);
  return Response.json({ report }, { status: 201 });
});
