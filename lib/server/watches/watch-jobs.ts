/**
 * The watches' jobs: evaluation as sessions arrive, each webhook attempt (a retry after its backoff), and the
 * look-backs that write an investigation's draft report. With no queue plugged in (tests, scripts) the work runs
 * in the call, a retry after sleeping its backoff.
 */
import type { Db } from "@/lib/db";
import { anyWatch, watchedAgentsOfSessions } from "@/lib/db/watches";
import type { Resolver } from "@/lib/executors/outbound";
import { jobQueueFor, type QueueDeps, type WatchJob } from "../job-queue";
import { deliverAttempt } from "./deliver";
import { evaluateOwed, evaluateSwept, evaluateWatches, type Fired, type Owed } from "./evaluate";
import { REPORT_POLL_MS, reportWhenFinished, startTriggerInvestigation } from "./investigate";
import { presentWatch } from "./watch-inputs";

export interface WatchDeps extends QueueDeps {
  /** DNS for the webhook's host (tests). */
  resolve?: Resolver;
  /** The first retry's wait (tests use a short one). */
  backoffMs?: number;
  /** The time an evaluation takes as now (tests step past a window). */
  now?: Date;
  /** How long the report job waits between looks. */
  reportPollMs?: number;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Puts watch work on the queue (to start after `delayMs`), or with no queue runs it here after waiting. */
export async function queueWatchJobs(prisma: Db, jobs: WatchJob[], deps: WatchDeps = {}, delayMs = 0) {
  if (jobs.length === 0) return;
  const queue = jobQueueFor(deps);
  if (queue?.enqueueWatches) return queue.enqueueWatches(jobs, delayMs);
  if (delayMs > 0) await sleep(delayMs);
  for (const job of jobs) await runWatchJob(prisma, job, deps);
}

/**
 * Sessions arrived (an import, or its online checks judged): the watches of their agents are evaluated in a job.
 * Costs one small read when no watch exists.
 */
export async function afterSessions(prisma: Db, sessionIds: readonly string[], deps: WatchDeps = {}) {
  if (sessionIds.length === 0 || !(await anyWatch(prisma))) return;
  const agentIds = await watchedAgentsOfSessions(prisma, sessionIds);
  await queueWatchJobs(prisma, agentIds.length > 0 ? [{ kind: "evaluate", agentIds }] : [], deps);
}

/** A trigger's actions: its first webhook attempt and its blame searches. */
async function act(prisma: Db, fired: Fired, deps: WatchDeps) {
  const { actions } = presentWatch(fired.watch);
  const jobs: WatchJob[] = [];
  if (actions.webhook) jobs.push({ kind: "deliver", triggerId: fired.trigger.id, attempt: 1 });
  await queueWatchJobs(prisma, jobs, deps);
  if (actions.investigate && (await startTriggerInvestigation(prisma, fired.watch, fired.trigger, fired.firing, deps)))
    await queueWatchJobs(prisma, [{ kind: "report", triggerId: fired.trigger.id, round: 0 }], deps);
}

/**
 * Queues an owed evaluation to start at its window's end. With no queue (tests, scripts) it is not waited for in
 * the call: the watch stays marked, and the next evaluation after the window settles it.
 */
async function queueOwed(owed: Owed, now: Date, deps: WatchDeps) {
  const queue = jobQueueFor(deps);
  if (!queue?.enqueueWatches) return;
  const job: WatchJob = { kind: "owed", watchId: owed.watchId, owedSince: owed.since.toISOString() };
  await queue.enqueueWatches([job], Math.max(0, owed.due.getTime() - now.getTime()));
}

/** Runs one watch job. */
export async function runWatchJob(prisma: Db, job: WatchJob, deps: WatchDeps = {}): Promise<void> {
  if (job.kind === "evaluate" || job.kind === "owed" || job.kind === "sweep") {
    const now = deps.now ?? new Date();
    const evaluation =
      job.kind === "evaluate"
        ? await evaluateWatches(prisma, job.agentIds, now)
        : job.kind === "owed"
          ? await evaluateOwed(prisma, job.watchId, new Date(job.owedSince), now)
          : await evaluateSwept(prisma, job.watchIds, now);
    for (const fired of evaluation.fired) await act(prisma, fired, deps);
    for (const owed of evaluation.owed) await queueOwed(owed, now, deps);
    return;
  }
  if (job.kind === "deliver") {
    const next = await deliverAttempt(prisma, job.triggerId, job.attempt, deps);
    if (next) await queueWatchJobs(prisma, [{ ...job, attempt: next.attempt }], deps, next.delayMs);
    return;
  }
  if (await reportWhenFinished(prisma, job.triggerId, job.round))
    await queueWatchJobs(prisma, [{ ...job, round: job.round + 1 }], deps, deps.reportPollMs ?? REPORT_POLL_MS);
}
