import { route } from "@/lib/http/route";
import { CreateExperimentInput, startExperiment } from "@/lib/server/experiments/experiments";

export const dynamic = "force-dynamic";

/**
 * `{ name, policyVersionId | preset, agentVersionId, sessionIds?, filter?, checks?, edit? }` →
 * `201 { experiment: { id, status, total, warnings, edit? } }`. `preset` is recommended, recorded or fork-live;
 * `edit` `{ tool, args?, value }` makes every call of `tool` (with those argument values) return `value` on each
 * member that has one, and the answer's `edit` says how many it applies to and why not the others.
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
        ...(created.edit ? { edit: created.edit } : {}),
      },
    },
    { status: 201 },
  );
});
