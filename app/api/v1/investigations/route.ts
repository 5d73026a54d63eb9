import { after } from "next/server";
import { db } from "@/lib/db";
import { apiRoute, readJson } from "@/lib/http/api";
import { createInvestigation, runInvestigation, StartInvestigationInput } from "@/lib/server/investigations";
import { systemPrincipal } from "@/lib/server/principal";

export const dynamic = "force-dynamic";

/**
 * `{ kind: "blame", sessionId, checks, trials?, share?, policyVersionId?, modelEndpoint? }` or
 * `{ kind: "minimize", replayId, checks?, trials?, share?, modelEndpoint? }` →
 * `201 { investigation: { id, status, progress, estimate, probes, result } }`. It runs after the response;
 * poll `GET /api/v1/investigations/:id`.
 */
export const POST = apiRoute(async ({ request, prisma, principal }) => {
  const investigation = await createInvestigation(principal, await readJson(request, StartInvestigationInput), prisma);
  after(async () => {
    try {
      await runInvestigation(systemPrincipal(principal.name), { investigationId: investigation.id }, await db());
    } catch (error) {
      console.error(`Investigation ${investigation.id} failed to run:`, error);
    }
  });
  return Response.json({ investigation }, { status: 201 });
});
