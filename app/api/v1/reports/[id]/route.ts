import { z } from "zod";
import { route } from "@/lib/http/route";
import { parseInput } from "@/lib/errors";
import { ReportSectionsInput, ReportTitle } from "@/lib/reports/sections";
import { deleteReport, getReport, updateReport, UpdateReportInput } from "@/lib/server/reports/reports";

export const dynamic = "force-dynamic";

/** GET /api/v1/reports/:id → `{ report: { ..., status, shares } }` (share links without their tokens). */
export const GET = route<{ id: string }>({ accept: ["api_key"] }, async ({ prisma, params, principal }) => {
  return Response.json({ report: await getReport(principal, { reportId: params.id }, prisma) });
});

const Patch = z.strictObject({ title: ReportTitle.optional(), sections: ReportSectionsInput.optional() });

/**
 * PATCH /api/v1/reports/:id with `{ title?, sections? }` → `{ report }`. Only a draft
 * can be edited (409 once published); `sections` replaces every section.
 */
export const PATCH = route<{ id: string }, undefined, typeof Patch>(
  { accept: ["api_key"], body: Patch },
  async ({ body, prisma, params, principal }) => {
    const input = parseInput(UpdateReportInput, { ...body, reportId: params.id });
    return Response.json({ report: await updateReport(principal, input, prisma) });
  },
);

/** DELETE /api/v1/reports/:id → `{ deleted: { id, status } }`; its share links stop opening it. */
export const DELETE = route<{ id: string }>({ accept: ["api_key"] }, async ({ prisma, params, principal }) => {
  return Response.json({ deleted: await deleteReport(principal, { reportId: params.id }, prisma) });
});
