import { apiRoute, readJson, readQuery } from "@/lib/http/api";
import { presentReplay } from "@/lib/http/present";
import { presentReplayJson } from "@/lib/http/replay-stream";
import { streamedJson } from "@/lib/http/stream";
import { enqueue } from "@/lib/jobs/runtime";
import { replayCounterfactual, trialSetView } from "@/lib/server/counterfactual";
import { openReplay } from "@/lib/server/replay-documents";
import { getReplayPage } from "@/lib/server/replay-pages";
import { createReplay, ListReplaysInput, listReplays, StartReplayInput } from "@/lib/server/replays";

export const dynamic = "force-dynamic";

/**
 * `{ sessionId, policy | policyVersionId, edits?, modelEndpoint?, checks?, trials? }` → stores the replay
 * and queues it: `201 { replay }` with status `queued` (poll `GET /api/v1/replays/:id` for `fork` and
 * check `verdicts`). With `trials` > 1, each trial is its own queued replay and `trialSet` is added;
 * `replay` is the first trial.
 */
export const POST = apiRoute(async ({ request, prisma, principal }) => {
  const input = await readJson(request, StartReplayInput);
  const started = await createReplay(principal, input, prisma);
  // The answer shows the replay as stored (`queued`, no steps yet); a worker may take it the moment it is enqueued.
  // Read without its base run: a long session's events are not needed to say so.
  const stored = await getReplayPage(principal, { replayId: started.id }, prisma);
  // Steps already (a replay stored with them): its meta read now, its steps written from their rows as they are read.
  const opened = stored.stepCount > 0 ? await openReplay(principal, { replayId: started.id }, prisma) : null;
  await enqueue(started.trialIds ?? [started.id]);
  const counterfactual = await replayCounterfactual(principal, { replayId: started.id }, prisma);
  const after = started.trialSetId
    ? { trialSet: await trialSetView(principal, { trialSetId: started.trialSetId }, prisma) }
    : {};
  if (opened)
    return streamedJson(
      presentReplayJson(opened.meta, opened.steps, counterfactual, { warnings: started.warnings, after }),
      { where: "POST /api/v1/replays", status: 201 },
    );
  // No steps: no model step whose input drifted either.
  const view = { ...stored, steps: [], evidence: { ...stored.evidence, inputDrift: [] } };
  return Response.json(
    { replay: { ...presentReplay(view, started.warnings), ...counterfactual }, ...after },
    { status: 201 },
  );
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
