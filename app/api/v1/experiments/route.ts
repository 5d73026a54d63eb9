import { route } from "@/lib/http/route";
import { CreateExperimentInput, startExperiment } from "@/lib/server/experiments/experiments";

export const dynamic = "force-dynamic";

/**
 * `{ name, policyVersionId, agentVersionId, sessionIds?, filter?, checks? }` → `201 { experiment: { id, status, total, warnings } }`.
 * One job per member replay goes on the queue (workers run them); poll `GET /api/v1/experiments/:id`.
 */
export const POST = route({ accept: ["api_key"], body: CreateExperimentInput }, async ({ body, prisma, principal }) => {
  const created = await startExperiment(principal, body, prisma);
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
