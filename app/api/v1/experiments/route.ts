import { env } from "@/lib/env";
import { apiRoute, readJson } from "@/lib/http/api";
import { CreateExperimentInput, createExperiment, runExperiment } from "@/lib/replays/experiments";
import { enqueue } from "@/lib/jobs/runtime";

export const dynamic = "force-dynamic";

/**
 * `{ name, policyVersionId, agentVersionId, sessionIds? }` → `201 { experiment: { id, status, total, warnings } }`.
 * One job per member replay goes on the queue (workers run them); poll `GET /api/v1/experiments/:id`.
 */
export const POST = apiRoute(async ({ request, prisma }) => {
  const input = await readJson(request, CreateExperimentInput);
  const created = await createExperiment(prisma, input, env().BRANCHPOINT_USER);
  await runExperiment(prisma, created.id, enqueue);
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
