/**
 * Job operations: cancelling replays and experiments, retrying a failed
 * replay, and the job overview of /settings/jobs. The queue itself is
 * lib/jobs; the rows it reads and writes are lib/db/jobs.
 */
import { z } from "zod";
import { defaultLabel } from "@/lib/clusters/signature";
import type { Db } from "@/lib/db";
import { cancelExperimentRows, cancelReplayRow, jobOverview, retryReplayRow } from "@/lib/db/jobs";
import { AppError, notFound } from "@/lib/errors";
import { authorize } from "../authz";
import type { Principal } from "../principal";
import type { QueueDeps } from "../job-queue";
import { searchProbeBound } from "../clusters/cluster-fix-search";
import { enqueueReplaysFor } from "../replays/run-queued-replay";

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
  if (outcome === "finished")
    throw new AppError("wrong_state", "The experiment has already finished; there is nothing to cancel.");
  return outcome;
}

/** Runs a failed replay again from its branch log (nothing live is repeated). */
export async function retryReplay(principal: Principal, input: CancelReplayInput, prisma: Db, deps: QueueDeps = {}) {
  authorize(principal, "jobs.manage");
  const retried = await retryReplayRow(prisma, input.replayId);
  if (retried === null) throw notFound("job", input.replayId);
  if (!retried)
    throw new AppError("wrong_state", "Only a failed replay can be retried; this one is not failed (any more).");
  await enqueueReplaysFor(prisma, [input.replayId], deps);
  return { replayId: input.replayId };
}

/** Queued, running and failed replays, investigations and smallest-fix searches, for /settings/jobs. */
export async function listJobs(principal: Principal, _input: unknown, prisma: Db) {
  authorize(principal, "jobs.manage");
  return jobOverview(prisma);
}

type Overview = Awaited<ReturnType<typeof jobOverview>>;

type JobRow = {
  status: string;
  attempts: number;
  leaseOwner: string | null;
  leaseUntil: Date | null;
  cancelRequested: boolean;
  error: unknown;
};

/** Where a job's run stands: its status, attempts, and the worker holding its lease and until when. */
const leaseOf = <J extends JobRow>(j: J) => ({
  status: j.status,
  attempts: j.attempts,
  worker: j.leaseOwner,
  leaseUntil: j.leaseUntil?.toISOString() ?? null,
});

/** Whether a job was asked to stop, and why it failed (null while it has not). */
const endOf = (j: JobRow) => ({
  cancelRequested: j.cancelRequested,
  error: (j.error ?? null) as { code: string; message: string } | null,
});

/**
 * The API's shape of the job overview: replays, investigations and smallest-fix searches, each row with its kind,
 * worker and progress (a search's probes of the most ddmin may run), a search with its cluster.
 */
export function presentJobs(overview: Overview) {
  const replay = (r: Overview["running"][number]) => ({
    id: r.id,
    kind: "replay" as const,
    ...leaseOf(r),
    progress: { done: r.progressDone, total: r.progressTotal },
    ...endOf(r),
    experimentId: r.experimentId,
    session: r.session,
    createdAt: r.createdAt.toISOString(),
    updatedAt: r.updatedAt.toISOString(),
  });
  const investigation = (i: Overview["investigations"]["rows"][number]) => ({
    id: i.id,
    kind: "investigation" as const,
    investigationKind: i.kind,
    ...leaseOf(i),
    progress: {
      done: Array.isArray(i.probes) ? i.probes.length : 0,
      total: (i.estimate as { probes?: number } | null)?.probes ?? null,
    },
    ...endOf(i),
    session: i.session,
    createdAt: i.createdAt.toISOString(),
  });
  const fixSearch = (f: Overview["fixSearches"]["rows"][number]) => {
    const { agent, ...signature } = f.cluster;
    return {
      id: f.id,
      kind: "fix_search" as const,
      ...leaseOf(f),
      progress: {
        done: Array.isArray(f.probes) ? f.probes.length : 0,
        total: searchProbeBound(Array.isArray(f.changes) ? f.changes.length : 0),
      },
      ...endOf(f),
      cluster: { id: f.cluster.id, label: f.cluster.label ?? defaultLabel(signature), agent: agent.name },
      createdAt: f.createdAt.toISOString(),
    };
  };
  const { investigations, fixSearches } = overview;
  const of = (status: string) => [
    ...investigations.rows.filter((i) => i.status === status).map(investigation),
    ...fixSearches.rows.filter((f) => f.status === status).map(fixSearch),
  ];
  const total = (k: "queued" | "running" | "failed") =>
    overview.counts[k] + investigations.counts[k] + fixSearches.counts[k];
  return {
    counts: { queued: total("queued"), running: total("running"), failed: total("failed") },
    queued: [...overview.queued.map(replay), ...of("queued")],
    running: [...overview.running.map(replay), ...of("running")],
    failed: [...overview.failed.map(replay), ...of("failed")],
  };
}
