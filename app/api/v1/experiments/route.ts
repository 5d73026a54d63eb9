import { after } from "next/server";
import { db } from "@/lib/db";
import { apiRoute, readJson } from "@/lib/http/api";
import { CreateExperimentInput, createExperiment, runExperiment } from "@/lib/server/experiments";
import { systemPrincipal } from "@/lib/server/principal";

export const dynamic = "force-dynamic";

/**
 * `{ name, policyVersionId, agentVersionId, sessionIds?, checks? }` → `201 { experiment: { id, status, total, warnings } }`.
 * The replays run after the response; poll `GET /api/v1/experiments/:id`.
 */
export const POST = apiRoute(async ({ request, prisma, principal }) => {
  const created = await createExperiment(principal, await readJson(request, CreateExperimentInput), prisma);
  after(async () => {
    try {
      await runExperiment(systemPrincipal(principal.name), { experimentId: created.id }, await db());
    } catch (error) {
      console.error(`Experiment ${created.id} failed to run:`, error);
    }
  });
  return Response.json(
    {
      experiment: {
        id: created.id,
        status: created.status,
        total: created.total,
        warnings: created.warnings.map((w) => ({ code: w.code, message: w.message })),
      },
    },
    { status: 201 },
  );
});
