import { z } from "zod";
import { createReport } from "@/lib/db/reports";
import { apiRoute, readJson } from "@/lib/http/api";
import { ReportSectionsInput } from "@/lib/reports/sections";

export const dynamic = "force-dynamic";

const Body = z.strictObject({
  replayId: z.string().min(1),
  title: z.string(),
  sections: ReportSectionsInput.prefault({}),
});

/** POST /api/v1/reports: `{ replayId, title, sections }` → 201 `{ report }`. 409 when the replay has not finished. */
export const POST = apiRoute("reports.write", async ({ request, prisma, principal }) => {
  const body = await readJson(request, Body);
  const report = await createReport(prisma, { ...body, createdBy: principal.name });
  return Response.json({ report }, { status: 201 });
});
