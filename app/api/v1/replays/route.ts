import { readJson, readQuery } from "@/lib/http/api";
import { publicOrigin } from "@/lib/http/origins";
import { route } from "@/lib/http/route";
import { replayAnswer } from "@/lib/http/replay-answer";
import { agentAccess } from "@/lib/server/agent/agent-access";
import { replayCounterfactual, trialSetView } from "@/lib/server/checks/counterfactual";
import { ListReplaysInput, StartReplayInput } from "@/lib/server/replays/replay-inputs";
import { listReplays } from "@/lib/server/replays/replay-reads";
import { startReplay } from "@/lib/server/replays/replays";

export const dynamic = "force-dynamic";

/**
 * `{ sessionId, policy | policyVersionId, edits?, modelEndpoint?, checks?, trials?, driver?, agent? }` → stores
 * the replay and queues it: `201 { replay }` with status `queued` (poll `GET /api/v1/replays/:id` for `fork` and
 * check `verdicts`). With `trials` > 1, each trial is its own queued replay and `trialSet` is added;
 * `replay` is the first trial. With `"driver": "agent"` nothing is queued: the replay waits for your agent
 * (`waiting_for_agent`) and `agent` gives its token (shown once) and the endpoints to point it at.
 */
export const POST = route({ accept: ["api_key"] }, async ({ request, prisma, principal }) => {
  const input = await readJson(request, StartReplayInput);
  // The answer shows the replay as stored (`queued`): it is read and made whole before it is queued (a
  // worker may take it the moment it is), so the answer never waits on the work, nor reads after it.
  let answer: Response | undefined;
  await startReplay(principal, input, prisma, {
    beforeQueued: async (started) => {
      const counterfactual = await replayCounterfactual(principal, { replayId: started.id }, prisma);
      const after = started.trialSetId
        ? { trialSet: await trialSetView(principal, { trialSetId: started.trialSetId }, prisma) }
        : started.agentToken
          ? { agent: agentAccess(publicOrigin(request), started.id, started.agentToken) }
          : {};
      answer = await replayAnswer(principal, prisma, started.id, {
        where: "POST /api/v1/replays",
        extra: { ...counterfactual, driver: started.agentToken ? "agent" : "server" },
        warnings: started.warnings,
        after,
        status: 201,
        whole: true,
      });
    },
  });
  return answer!;
});

/** Replays, newest first: `{ replays, nextCursor }`. */
export const GET = route({ accept: ["api_key"] }, async ({ request, prisma, principal }) => {
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
