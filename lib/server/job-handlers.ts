/**
 * What a worker does with each kind of job, handed to the queue (lib/jobs)
 * when it starts, so the queue needs nothing of lib/server: a queued replay
 * (new, resumed, an experiment's member, retried), an investigation, and online-check work.
 */
import type { Db } from "@/lib/db";
import { noteReplayJobError } from "@/lib/db/jobs";
import type { CheckJob, QueuedInvestigation, WatchJob } from "./job-queue";
import { runCheckJob } from "./checks/online";
import { runFixSearch } from "./clusters/cluster-fix-search";
import { runInvestigation } from "./investigations/run-investigation";
import { systemPrincipal } from "./principal";
import { runQueuedReplay } from "./replays/run-queued-replay";
import { runPull } from "./connectors/run-pull";
import { runWatchJob } from "./watches/watch-jobs";

/** A worker's hold on the work it took: its lease name, how long a lease lasts, runs before giving up. */
export interface JobRun {
  owner: string;
  leaseMs: number;
  maxAttempts: number;
}

export const jobHandlers = {
  /** Runs a queued replay under its lease. A run that throws is noted on the replay and thrown again, for the queue to retry. */
  async replay(prisma: Db, replayId: string, run: JobRun): Promise<void> {
    try {
      await runQueuedReplay(prisma, replayId, run);
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      await noteReplayJobError(prisma, replayId, message).catch(() => undefined);
      throw error;
    }
  },
  /** Runs an investigation (or a cluster's smallest-fix search) on behalf of whoever started it. */
  async investigation(prisma: Db, item: QueuedInvestigation, run: JobRun): Promise<void> {
    if (item.kind === "fix-search") {
      await runFixSearch(systemPrincipal(item.by), { searchId: item.id }, prisma, run);
      return;
    }
    await runInvestigation(systemPrincipal(item.by), { investigationId: item.id }, prisma, run);
  },
  /** Judges an import's sessions by the checks attached to their agents, or goes on with a check's backfill. */
  async checks(prisma: Db, job: CheckJob): Promise<void> {
    await runCheckJob(prisma, job);
  },
  /** Runs (or goes on with) a connector pull from its cursor. */
  async pull(prisma: Db, pullId: string, run: JobRun): Promise<void> {
    await runPull(prisma, pullId, run);
  },
  /** Evaluates watches, makes one webhook attempt, or looks whether a trigger's investigations finished. */
  async watches(prisma: Db, job: WatchJob): Promise<void> {
    await runWatchJob(prisma, job);
  },
};
