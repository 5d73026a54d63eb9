import { apiRoute, readJson, readQuery } from "@/lib/http/api";
import { replayAnswer } from "@/lib/http/replay-answer";
import { replayCounterfactual, trialSetView } from "@/lib/server/checks/counterfactual";
import { ListReplaysInput, StartReplayInput } from "@/lib/server/replays/replay-inputs";
import { listReplays } from "@/lib/server/replays/replay-reads";
import { startReplay } from "@/lib/server/replays/replays";

export const dynamic = "force-dynamic";

/**
 * `{ sessionId, policy | policyVersionId, edits?, modelEndpoint?, checks?, trials? }` → stores the replay
 * and queues it: `201 { replay }` with status `queued` (poll `GET /api/v1/replays/:id` for `fork` and
 * check `verdicts`). With `trials` > 1, each trial is its own queued replay and `trialSet` is added;
 * `replay` is the first trial.
 */
export const POST = apiRoute(async ({ request, prisma, principal }) => {
  const input = await readJson(request, StartReplayInput);
  // The answer shows the replay as stored (`queued`): it is read, and its first chunk made, before it is
  // queued (a worker may take it the moment it is). A run storing steps while later chunks are written
  // cuts the body (see replayAnswer).
  let answer: Response | undefined;
  await startReplay(principal, input, prisma, {
    beforeQueued: async (started) => {
      const counterfactual = await replayCounterfactual(principal, { replayId: started.id }, prisma);
      const after = started.trialSetId
        ? { trialSet: await trialSetView(principal, { trialSetId: started.trialSetId }, prisma) }
        : {};
      answer = await replayAnswer(principal, prisma, started.id, {
        where: "POST /api/v1/replays",
        extra: counterfactual,
        warnings: started.warnings,
        after,
        status: 201,
      });
    },
  });
  return answer!;
});

/** Replays, newest first: `{ replays, nextCursor }`. */
export const GET = apiRoute(async ({ request, prisma, principal }) => {
  const { replays, nextCursor } = await listReplays(principal, readQuery(request, ListReplaysInput), prisma);
  return Response.json({
    replays: replays.map((r) => ({
      id: r.id,
      status: r.status,
      comparability: r.comparability,
      policyHash: r.policyHash,
      stepCount: r.stepCount,
      sessionId: r.session.id,
      createdAt: r.createdAt.toISOString(),
      createdBy: r.createdBy,
    })),
    nextCursor,
  });
});
