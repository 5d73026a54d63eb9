import { z } from "zod";
import { route } from "@/lib/http/route";
import { parseInput } from "@/lib/errors";
import { AddEvidenceInput, addReportEvidence } from "@/lib/server/reports/reports";

export const dynamic = "force-dynamic";

const Body = z.strictObject({ investigationId: z.unknown().optional(), coverage: z.unknown().optional() });

/**
 * POST /api/v1/reports/:id/evidence with `{ investigationId }` (a finished blame search, minimisation or stale
 * check) or `{ coverage: { replayId } | { experimentId } }` → 201 `{ evidence: { id, kind, addedBy, addedAt,
 * policyHash, snapshot } }`. Only the author of a draft (or an admin) may add to it; it then shows in
 * `GET /api/v1/reports/:id` as `report.addedEvidence`.
 */
export const POST = route<{ id: string }, undefined, typeof Body>(
  { accept: ["api_key"], body: Body },
  async ({ body, prisma, params, principal }) => {
    const input = parseInput(AddEvidenceInput, { ...body, reportId: params.id });
    return Response.json({ evidence: await addReportEvidence(principal, input, prisma) }, { status: 201 });
  },
);
