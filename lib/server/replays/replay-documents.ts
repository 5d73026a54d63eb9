/**
 * A replay or its comparison to be sent whole as a streamed document
 * (lib/http/replay-stream.ts): what is read before the first byte (so that a
 * missing replay still fails with its 404), and the rows of both runs in their
 * stored form, read a window at a time as the document is written.
 */
import { z } from "zod";
import type { Db } from "@/lib/db";
import { loadReplayMeta } from "@/lib/db/replays";
import { replayStepRows, RunChanged } from "@/lib/db/replay-rows";
import { replayStamp } from "@/lib/db/replay-window";
import { sessionEventRows } from "@/lib/db/session-reads";
import { notFound } from "@/lib/errors";
import { authorize } from "../authz";
import type { Principal } from "../principal";
import { type ReplayRef } from "./replay-inputs";
import { getReplayComparison } from "./replay-reads";

/** `?inputs=`: "full" (default) gives every model input whole; "delta" as stored, with `inputPrefix`. */
export const ReplayDocumentQuery = z.object({ inputs: z.enum(["full", "delta"]).optional() });

/**
 * The replay's meta (read now), its step rows in idx order (read as they are
 * consumed) and `unchanged`, which throws RunChanged when a run's result has
 * replaced the steps since (other writes to the replay's row, such as a running
 * replay's progress, leave them as they were): presentReplayJson awaits it
 * after the last step, so a streamed document is one read of the steps.
 */
export async function openReplay(principal: Principal, input: ReplayRef, prisma: Db) {
  authorize(principal, "replays.read");
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
