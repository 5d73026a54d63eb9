import { apiRoute, readJson } from "@/lib/http/api";
import { CreateExperimentInput, createExperiment, runExperiment } from "@/lib/server/experiments";
import { enqueue } from "@/lib/jobs/runtime";

export const dynamic = "force-dynamic";

/**
 * `{ name, policyVersionId, agentVersionId, sessionIds?, filter?, checks? }` → `201 { experiment: { id, status, total, warnings } }`.
 * One job per member replay goes on the queue (workers run them); poll `GET /api/v1/experiments/:id`.
 */
export const POST = apiRoute(async ({ request, prisma, principal }) => {
  const created = await createExperiment(principal, await readJson(request, CreateExperimentInput), prisma);
  await runExperiment(principal, { experimentId: created.id }, prisma, enqueue);
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
