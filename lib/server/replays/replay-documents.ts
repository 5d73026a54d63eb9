/**
 * A replay or its comparison to be sent whole as a streamed document
 * (lib/http/replay-stream.ts): what is read before the first byte (so that a
 * missing replay still fails with its 404), and the rows of both runs in their
 * stored form, read a window at a time as the document is written.
 */
import { z } from "zod";
import type { Db } from "@/lib/db";
import { abandonIdleAgentReplays } from "@/lib/db/agent-replays";
import { loadReplayMeta } from "@/lib/db/replays";
import { storedPairs } from "@/lib/db/stored-comparison";
import { replayStepRows, RunChanged } from "@/lib/db/replay-rows";
import { replayStamp } from "@/lib/db/replay-window";
import { sessionEventRows } from "@/lib/db/session-reads";
import { notFound } from "@/lib/errors";
import { pairOutline, pairWindow } from "@/lib/session-view/compare-pairs";
import { authorize } from "../authz";
import type { Principal } from "../principal";
import { type ReplayRef } from "./replay-inputs";
import { getReplayComparison } from "./replay-reads";
import { currentComparison } from "./comparison-store";

/**
 * `?inputs=`: "full" (default) gives every model input whole; "delta" as stored, with `inputPrefix`.
 * `?steps=none`: the replay's summary (status, progress, `stepCount`, evidence, pending) without its steps.
 */
export const ReplayDocumentQuery = z.object({
  inputs: z.enum(["full", "delta"]).optional(),
  steps: z.enum(["all", "none"]).optional(),
});

/** Pairs a window of the comparison holds when `limit` is not given, and at most. */
export const PAIRS_DEFAULT = 100;
export const PAIRS_MAX = 1000;

/**
 * `GET /api/v1/replays/:id/comparison`'s query: the replay document's, and `?from=&limit=` for a window of the
 * pairs (positions [from, from + limit); either one asks for a window, the other then defaults to 0 and 100).
 */
export const ComparisonDocumentQuery = ReplayDocumentQuery.extend({
  from: z.coerce.number().int().min(0).max(2_147_483_647).optional(),
  limit: z.coerce.number().int().min(1).max(PAIRS_MAX).optional(),
});

/**
 * The replay's meta (read now), its step rows in idx order (read as they are
 * consumed) and `unchanged`, which throws RunChanged when a run's result has
 * replaced the steps since (other writes to the replay's row, such as a running
 * replay's progress, leave them as they were): presentReplayJson awaits it
 * after the last step, so a streamed document is one read of the steps.
 */
export async function openReplay(principal: Principal, input: ReplayRef, prisma: Db) {
  authorize(principal, "replays.read");
  // An agent-driven replay whose agent went silent past its idle timeout is abandoned as it is read.
  await abandonIdleAgentReplays(prisma, new Date(), input.replayId);
  // The stamp before the meta: a result stored between the two reads changes it, and the document is cut.
  const stamp = await replayStamp(prisma, input.replayId);
  const meta = stamp ? await loadReplayMeta(prisma, input.replayId) : null;
  if (!stamp || !meta) throw notFound("replay", input.replayId);
  return {
    meta,
    steps: replayStepRows(prisma, input.replayId),
    unchanged: unchangedSince(prisma, input.replayId, stamp),
  };
}

/** Throws RunChanged when a run's result has replaced the replay's steps (or its base was imported again) since `stamp`. */
function unchangedSince(prisma: Db, replayId: string, stamp: { stepsKey: string }) {
  return async () => {
    const now = await replayStamp(prisma, replayId);
    if (now?.stepsKey !== stamp.stepsKey) throw new RunChanged("a run stored its steps while they were read");
  };
}

/**
 * The comparison's outline (aligned over step summaries, a model input as its
 * digest: read now), both runs' rows in order (read as they are consumed) and
 * `unchanged`, as openReplay's: presentComparisonJson awaits it after the last
 * pair, so a streamed comparison is one read of both runs.
 */
export async function openReplayComparison(principal: Principal, input: ReplayRef, prisma: Db) {
  authorize(principal, "replays.read");
  // The stamp before the outline, as openReplay's before its meta.
  const stamp = await replayStamp(prisma, input.replayId);
  if (!stamp) throw notFound("replay", input.replayId);
  const outline = await getReplayComparison(principal, input, prisma);
  return {
    outline,
    baseRows: sessionEventRows(prisma, outline.replay.sessionId),
    stepRows: replayStepRows(prisma, input.replayId),
    unchanged: unchangedSince(prisma, input.replayId, stamp),
  };
}

/**
 * A window of the comparison (`?from=&limit=`): its outline from the stored comparison (the header and the pairs at
 * positions [from, from + limit)), both runs' rows from where the window needs them (with whole model inputs, from
 * each run's start: a model input is rebuilt from the inputs before it, whose text is not made) and `unchanged`, as
 * openReplayComparison's.
 */
export async function openReplayComparisonWindow(
  principal: Principal,
  input: ReplayRef & { from: number; limit: number; inputs: "full" | "delta" },
  prisma: Db,
) {
  authorize(principal, "replays.read");
  const stamp = await replayStamp(prisma, input.replayId);
  if (!stamp) throw notFound("replay", input.replayId);
  const [meta, current] = await Promise.all([
    loadReplayMeta(prisma, input.replayId),
    currentComparison(prisma, input.replayId),
  ]);
  if (!meta) throw notFound("replay", input.replayId);
  const { from, limit } = input;
  const pairs = await storedPairs(prisma, input.replayId, { by: "position", from, to: from + limit });
  // Both indexes grow with the pairs' position: the window's first step of each run is its first pair's.
  const firstBase = input.inputs === "delta" ? pairs.find((p) => p.baseIndex !== null) : undefined;
  const firstBranch = input.inputs === "delta" ? pairs.find((p) => p.branchIndex !== null) : undefined;
  const total = current.pairCount;
  return {
    outline: {
      ...meta,
      comparison: {
        firstDivergence: current.firstDivergence,
        finalOutputDiff: current.finalOutputDiff,
        metrics: current.metrics,
        pairs: pairs.map(pairOutline),
      },
      window: pairWindow(from, limit, total),
    },
    baseRows: sessionEventRows(prisma, meta.replay.sessionId, undefined, firstBase?.baseSeq ?? undefined),
    stepRows: replayStepRows(prisma, input.replayId, undefined, firstBranch?.branchSeq ?? undefined),
    start: { base: firstBase?.baseIndex ?? 0, branch: firstBranch?.branchIndex ?? 0 },
    unchanged: unchangedSince(prisma, input.replayId, stamp),
  };
}
