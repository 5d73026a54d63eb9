import { z } from "zod";
import { apiRoute, readJson } from "@/lib/http/api";
import { parseInput } from "@/lib/errors";
import { ReportSectionsInput, ReportTitle } from "@/lib/reports/sections";
import { deleteReport, getReport, updateReport, UpdateReportInput } from "@/lib/server/reports/reports";

export const dynamic = "force-dynamic";

/** GET /api/v1/reports/:id → `{ report: { ..., status, shares } }` (share links without their tokens). */
export const GET = apiRoute<{ id: string }>(async ({ prisma, params, principal }) => {
  return Response.json({ report: await getReport(principal, { reportId: params.id }, prisma) });
});

const Patch = z.strictObject({ title: ReportTitle.optional(), sections: ReportSectionsInput.optional() });

/**
 * PATCH /api/v1/reports/:id with `{ title?, sections? }` → `{ report }`. Only a draft
 * can be edited (409 once published); `sections` replaces every section.
 */
export const PATCH = apiRoute<{ id: string }>(async ({ request, prisma, params, principal }) => {
  const body = await readJson(request, Patch);
  const input = parseInput(UpdateReportInput, { ...body, reportId: params.id });
  return Response.json({ report: await updateReport(principal, input, prisma) });
});

/** DELETE /api/v1/reports/:id → `{ deleted: { id, status } }`; its share links stop opening it. */
export const DELETE = apiRoute<{ id: string }>(async ({ prisma, params, principal }) => {
  return Response.json({ deleted: await deleteReport(principal, { reportId: params.id }, prisma) });
});
