/** The job side of a replay: a worker claims a queued replay, holds its lease and runs it; with no queue, it runs here. */
import { randomUUID } from "node:crypto";
import { type ReplayResult } from "@/lib/replay";
import type { Db } from "@/lib/db";
import {
  claimReplayRun,
  markReplayCancelled,
  releaseReplayLease,
  renewReplayLease,
  replayCancelRequested,
  replayLastError,
  saveReplayProgress,
  settleExperiment,
} from "@/lib/db/jobs";
import { withTransaction } from "@/lib/db/transactions";
import { getReplayState as readReplayState } from "@/lib/db/replays";
import { markReplayFailed } from "@/lib/db/replay-writes";
import { runEventsOfClaim, toRunContext, type RunContextRow } from "@/lib/db/replay-save";
import { AppError } from "@/lib/errors";
import { authorize } from "../authz";
import type { Principal } from "../principal";
import { jobQueueFor, type QueueDeps } from "../job-queue";
import { type ReplayRef } from "./replay-inputs";
import { describeError, executeReplay, LeaseLost } from "./execute-replay";

/**
 * The background work of a replay: runs a stored replay to its first stop and
 * stores what it produced. It never leaves the row `running`: an unexpected
 * failure marks it failed. The unit of work a job queue runs.
 */
export async function runReplay(principal: Principal, input: ReplayRef, prisma: Db): Promise<ReplayResult | null> {
  authorize(principal, "replays.run");
  try {
    return await executeReplay(prisma, input.replayId);
  } catch (error) {
    if (error instanceof AppError && error.code === "not_found") throw error;
    // executeReplay settles its own failures; this is the last guard against a row left `running` for ever.
    const state = await readReplayState(prisma, input.replayId);
    if (state?.status === "running")
      await withTransaction(prisma, async (tx) =>
        markReplayFailed(tx, input.replayId, "replay_failed", `The replay could not run: ${describeError(error)}`),
      );
    throw error;
  }
}

/** Runs queued replays one after another in this call, each under a lease like a worker's (no queue: tests, scripts). */
export const runNow = (prisma: Db) => async (replayIds: readonly string[]) => {
  for (const id of replayIds) await runQueuedReplay(prisma, id, { owner: `inline:${process.pid}:${randomUUID()}` });
};

/**
 * Puts stored replays on the job queue (their rows committed first: a worker may take one the moment it is queued;
 * one left unqueued by a stop in between is found by the sweeper). With no queue plugged in, runs them in this call.
 */
export async function enqueueReplaysFor(prisma: Db, replayIds: readonly string[], deps?: QueueDeps): Promise<void> {
  const queue = jobQueueFor(deps);
  if (queue) await queue.enqueueReplays(replayIds);
  else await runNow(prisma)(replayIds);
}

export interface QueuedRunOptions {
  owner: string;
  /** How long a lease lasts without a heartbeat; a worker killed mid-run is replaced after it. */
  leaseMs?: number;
  /** Runs started before this one is given up (a replay that kills its worker every time). */
  maxAttempts?: number;
}

export type QueuedRunOutcome = "ran" | "busy" | "idle" | "cancelled" | "gave_up" | "lease_lost";

/**
 * What a job worker does with a replay id: claims the replay (queued, or
 * running under a lease that ran out), holds it with a heartbeat, runs it with
 * its log first, stores the result, and lets go. A replay another worker
 * holds is left to it; a finished one is left alone; so a job delivered twice
 * runs its replay once.
 */
export async function runQueuedReplay(prisma: Db, replayId: string, opts: QueuedRunOptions): Promise<QueuedRunOutcome> {
  const leaseMs = opts.leaseMs ?? 30_000;
  const maxAttempts = opts.maxAttempts ?? 3;
  // The run's context is read in the claim's statement (one round trip fewer per replay).
  const claim = await claimReplayRun(prisma, replayId, opts.owner, leaseMs, true);
  if (claim.kind !== "claimed") return claim.kind;
  const experimentId = claim.experimentId;
  let finished = false;
  /** The run stored its result, which let the lease go. */
  let released = false;
  try {
    if (claim.cancelRequested) {
      await markReplayCancelled(prisma, replayId, "Cancelled before it ran.");
      finished = true;
      return "cancelled";
    }
    if (claim.attempts > maxAttempts) {
      const lastError = await replayLastError(prisma, replayId);
      await markReplayFailed(
        prisma,
        replayId,
        "gave_up",
        `Stopped after ${maxAttempts} attempts: each run ended without a result (its worker stopped or crashed).${lastError ? ` Last error: ${lastError}` : ""} What earlier runs obtained is kept in the branch log.`,
      );
      finished = true;
      return "gave_up";
    }
    let lost = false;
    const heartbeat = setInterval(
      () => {
        renewReplayLease(prisma, replayId, opts.owner, leaseMs).then(
          (held) => {
            if (!held) lost = true;
          },
          (error: unknown) => console.error(`Replay ${replayId}: heartbeat failed:`, error),
        );
      },
      Math.max(250, Math.floor(leaseMs / 3)),
    );
    // At most a progress write every half second, the first half a second in: a short run writes none (its last
    // progress is stored with its result). The engine reports progress at every step boundary.
    let lastProgress = Date.now();
    let latest: { done: number; total: number } | null = null;
    // A cancel is looked up at the first step boundary after each call outside, and otherwise at most every quarter
    // second (the claim said there was none); immediately before each call outside goes out too (`cancelledNow`).
    let lastCancelCheck = Date.now();
    let outsideCall = false;
    let cancelRequested = false;
    try {
      const result = await executeReplay(prisma, replayId, {
        owner: opts.owner,
        fresh: claim.stepCount === 0,
        ...(claim.also ? { context: toRunContext(claim.also as RunContextRow) } : {}),
        ...(claim.also && claim.events ? { base: runEventsOfClaim(claim.events) } : {}),
        lastProgress: () => latest,
        onExternalCall: () => {
          outsideCall = true;
        },
        // One indexed read per call outside, so a cancel that lands after the last step boundary still stops it.
        cancelledNow: async (client) => {
          if (!cancelRequested) cancelRequested = await replayCancelRequested(client, replayId);
          return cancelRequested;
        },
        onProgress: ({ done, total }) => {
          latest = { done, total };
          const at = Date.now();
          if (at - lastProgress < 500) return;
          lastProgress = at;
          saveReplayProgress(prisma, replayId, opts.owner, done, total).catch((error: unknown) =>
            console.error(`Replay ${replayId}: progress not saved:`, error),
          );
        },
        isCancelled: async () => {
          if (lost || cancelRequested) return true;
          const at = Date.now();
          if (!outsideCall && at - lastCancelCheck < 250) return false;
          lastCancelCheck = at;
          outsideCall = false;
          cancelRequested = await replayCancelRequested(prisma, replayId);
          return cancelRequested;
        },
      });
      released = result !== null;
    } catch (error) {
      if (error instanceof LeaseLost) return "lease_lost";
      throw error;
    } finally {
      clearInterval(heartbeat);
    }
    finished = true;
    return "ran";
  } finally {
    if (!released) await releaseReplayLease(prisma, replayId, opts.owner, finished);
    if (experimentId) await settleExperiment(prisma, experimentId);
  }
}
