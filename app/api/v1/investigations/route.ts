import { route } from "@/lib/http/route";
import { StartInvestigationInput } from "@/lib/server/investigations/investigations";
import { startInvestigation } from "@/lib/server/investigations/run-investigation";

export const dynamic = "force-dynamic";

/**
 * `{ kind: "blame", sessionId, checks, trials?, share?, policyVersionId?, modelEndpoint? }` or
 * `{ kind: "minimize", replayId, checks?, trials?, share?, modelEndpoint? }` →
 * `201 { investigation: { id, status, progress, estimate, probes, result } }`. A worker runs it (a job);
 * poll `GET /api/v1/investigations/:id`.
 */
export const POST = route(
  { accept: ["api_key"], body: StartInvestigationInput },
  async ({ body, prisma, principal }) => {
    const investigation = await startInvestigation(principal, body, prisma);
    return Response.json({ investigation }, { status: 201 });
  },
);
