/**
 * Job operations: cancelling replays and experiments, retrying a failed
 * replay, and the job overview of /settings/jobs. The queue itself is
 * lib/jobs; the rows it reads and writes are lib/db/jobs.
 */
import { z } from "zod";
import type { Db } from "@/lib/db";
import { cancelExperimentRows, cancelReplayRow, jobOverview, retryReplayRow } from "@/lib/db/jobs";
import { AppError, notFound } from "@/lib/errors";
import { authorize } from "./authz";
import type { Principal } from "./principal";
import { runNow, type Enqueue } from "./replays";

export const CancelReplayInput = z.object({ replayId: z.string().min(1) });
export type CancelReplayInput = z.infer<typeof CancelReplayInput>;

export const CancelExperimentInput = z.object({ experimentId: z.string().min(1) });
export type CancelExperimentInput = z.infer<typeof CancelExperimentInput>;

/** Cancels a replay: a queued or waiting one at once, a running one at its next step (steps so far kept). */
export async function cancelReplay(principal: Principal, input: CancelReplayInput, prisma: Db) {
  authorize(principal, "replays.run");
  const outcome = await cancelReplayRow(prisma, input.replayId);
  if (outcome === "missing") throw notFound("replay", input.replayId);
  if (outcome === "finished")
    throw new AppError("wrong_state", "The replay has already finished; there is nothing to cancel.");
  return { outcome };
}

/** Cancels an experiment: queued members at once, running ones at their next step. */
export async function cancelExperiment(principal: Principal, input: CancelExperimentInput, prisma: Db) {
  authorize(principal, "experiments.run");
  const outcome = await cancelExperimentRows(prisma, input.experimentId);
  if (!outcome) throw notFound("experiment", input.experimentId);
  return outcome;
}

/** Runs a failed replay again from its branch log (nothing live is repeated). */
export async function retryReplay(
  principal: Principal,
  input: CancelReplayInput,
  prisma: Db,
  enqueue: Enqueue = runNow(prisma),
) {
  authorize(principal, "jobs.manage");
  if (!(await retryReplayRow(prisma, input.replayId)))
    throw new AppError("wrong_state", "Only a failed replay can be retried; this one is not failed (any more).");
  await enqueue([input.replayId]);
  return { replayId: input.replayId };
}

/** Queued, running and failed replays, for /settings/jobs. */
export async function listJobs(principal: Principal, _input: unknown, prisma: Db) {
  authorize(principal, "jobs.manage");
  return jobOverview(prisma);
}
