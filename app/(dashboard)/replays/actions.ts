"use server";

import { revalidatePath } from "next/cache";
import { z } from "zod";
import { getReplayState, toReplayStep } from "@/lib/db/replays";
import { cancelReplayRow } from "@/lib/db/jobs";
import { enqueue } from "@/lib/jobs/runtime";
import { toSessionEvent } from "@/lib/db/sessions";
import { env } from "@/lib/env";
import { ApiError } from "@/lib/http/errors";
import { validatedAction } from "@/lib/http/action";
import { Edits } from "@/lib/replay";
import { parseFixtureForm } from "@/lib/replays/fixture-form";
import { createReplay, decideApproval, supplyFixture } from "@/lib/replays/service";

/** Stores the replay and queues it for a worker: the page shows progress instead of waiting. */
export const startReplayAction = validatedAction(
  z.object({
    sessionId: z.string().min(1),
    policyVersionId: z.string().min(1).optional(),
    policy: z.unknown().optional(),
    edits: Edits.default([]),
  }),
  async (input, prisma) => {
    const started = await createReplay(prisma, input, env().BRANCHPOINT_USER);
    await enqueue([started.id]);
    revalidatePath("/replays");
    return { id: started.id, warnings: started.warnings.map((w) => w.message) };
  },
);

export const supplyFixtureAction = validatedAction(
  z.object({
    replayId: z.string().min(1),
    callId: z.string().min(1),
    kind: z.enum(["output", "error"]),
    text: z.string(),
    note: z.string(),
    prefilledFrom: z.number().int().nullable(),
  }),
  async (input, prisma) => {
    const form = parseFixtureForm(input.kind, input.text);
    if (!form.ok)
      throw new ApiError(400, "invalid_fixture", form.message, [{ path: form.path, message: form.message }]);
    const provenance = { source: "dashboard", prefilledFromSeq: input.prefilledFrom };
    const fixture = await supplyFixture(
      prisma,
      input.replayId,
      { ...form.body, note: input.note, callId: input.callId, provenance },
      env().BRANCHPOINT_USER,
      enqueue,
    );
    revalidatePath(`/replays/${input.replayId}`);
    return { fixtureId: fixture.id };
  },
);

export const decideApprovalAction = validatedAction(
  z.object({
    replayId: z.string().min(1),
    callId: z.string().min(1),
    decision: z.enum(["approved", "denied"]),
    note: z.string().max(2000).optional(),
  }),
  async (input, prisma) => {
    const approval = await decideApproval(
      prisma,
      input.replayId,
      { decision: input.decision, note: input.note || undefined, callId: input.callId },
      env().BRANCHPOINT_USER,
      enqueue,
    );
    revalidatePath(`/replays/${input.replayId}`);
    return { approvalId: approval.id };
  },
);

/** Status for the progress poll. */
export const replayStateAction = validatedAction(
  z.object({ replayId: z.string().min(1) }),
  async ({ replayId }, prisma) => {
    const state = await getReplayState(prisma, replayId);
    if (!state) throw new ApiError(404, "replay_not_found", `No replay with id "${replayId}".`);
    return {
      status: state.status,
      stepCount: state.stepCount,
      progress: state.progressTotal ? { done: state.progressDone ?? 0, total: state.progressTotal } : null,
      cancelRequested: state.cancelRequested,
    };
  },
);

/** Both sides of one aligned pair, for the comparison's detail panel. Pair ids name their seqs: p<base>-<branch>, i<branch>, r<base>. */
export const comparisonPairAction = validatedAction(
  z.object({ replayId: z.string().min(1), pairId: z.string().regex(/^(p\d+-\d+|i\d+|r\d+)$/, "not a pair id") }),
  async ({ replayId, pairId }, prisma) => {
    const replay = await prisma.replay.findUnique({ where: { id: replayId }, select: { sessionId: true } });
    if (!replay) throw new ApiError(404, "replay_not_found", `No replay with id "${replayId}".`);
    const numbers = pairId.slice(1).split("-").map(Number);
    const baseSeq = pairId.startsWith("p") || pairId.startsWith("r") ? numbers[0]! : null;
    const branchSeq = pairId.startsWith("p") ? numbers[1]! : pairId.startsWith("i") ? numbers[0]! : null;
    const [baseRow, branchRow] = await Promise.all([
      baseSeq === null
        ? null
        : prisma.event.findUnique({ where: { sessionId_seq: { sessionId: replay.sessionId, seq: baseSeq } } }),
      branchSeq === null
        ? null
        : prisma.replayStep.findUnique({ where: { replayId_idx: { replayId, idx: branchSeq } } }),
    ]);
    return { base: baseRow ? toSessionEvent(baseRow) : null, branch: branchRow ? toReplayStep(branchRow) : null };
  },
);

/** Cancels a replay: a queued or waiting one at once, a running one at its next step (steps so far kept). */
export const cancelReplayAction = validatedAction(
  z.object({ replayId: z.string().min(1) }),
  async ({ replayId }, prisma) => {
    const outcome = await cancelReplayRow(prisma, replayId);
    if (outcome === "missing") throw new ApiError(404, "replay_not_found", `No replay with id "${replayId}".`);
    if (outcome === "finished")
      throw new ApiError(409, "replay_finished", "The replay has already finished; there is nothing to cancel.");
    revalidatePath(`/replays/${replayId}`);
    return { outcome };
  },
);
