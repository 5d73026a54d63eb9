/**
 * A replay or its comparison to be sent whole as a streamed document
 * (lib/http/replay-stream.ts): what is read before the first byte (so that a
 * missing replay still fails with its 404), and the rows of both runs in their
 * stored form, read a window at a time as the document is written.
 */
import { z } from "zod";
import type { Db } from "@/lib/db";
import { loadReplayMeta } from "@/lib/db/replays";
import { replayStepRows } from "@/lib/db/replay-rows";
import { sessionEventRows } from "@/lib/db/sessions";
import { notFound } from "@/lib/errors";
import { authorize } from "./authz";
import type { Principal } from "./principal";
import { getReplayComparison, type ReplayRef } from "./replays";

/** `?inputs=`: "full" (default) gives every model input whole; "delta" as stored, with `inputPrefix`. */
export const ReplayDocumentQuery = z.object({ inputs: z.enum(["full", "delta"]).optional() });

/** The replay's meta (read now) and its step rows in idx order (read as they are consumed). */
export async function openReplay(principal: Principal, input: ReplayRef, prisma: Db) {
  authorize(principal, "replays.read");
  const meta = await loadReplayMeta(prisma, input.replayId);
  if (!meta) throw notFound("replay", input.replayId);
  return { meta, steps: replayStepRows(prisma, input.replayId) };
}

/**
 * The comparison's outline (aligned over step summaries, a model input as its
 * digest: read now) and both runs' rows in order (read as they are consumed).
 */
export async function openReplayComparison(principal: Principal, input: ReplayRef, prisma: Db) {
  const outline = await getReplayComparison(principal, input, prisma);
  return {
    outline,
    baseRows: sessionEventRows(prisma, outline.replay.sessionId),
    stepRows: replayStepRows(prisma, input.replayId),
  };
}
