/**
 * The job queue as the operations see it: the one door background work goes
 * through. Operations that create work (start a replay, an experiment, an
 * investigation; resume or retry a replay) store their rows and then put them
 * here, in the same call, so no adapter has to remember to.
 *
 * Start-up (instrumentation.ts, scripts/worker.ts) plugs the durable queue in
 * (lib/jobs, pg-boss); lib/server never imports it, and lib/jobs never imports
 * lib/server: it is handed the handlers of lib/server/job-handlers.ts.
 * With nothing plugged in (tests, scripts), the operations run the work in the
 * call that made it instead.
 */
import type { WatchJob } from "@/lib/watches/jobs";

/** An investigation to run, on behalf of whoever started it; `fix-search`: a cluster's smallest-fix search, run alike. */
export interface QueuedInvestigation {
  id: string;
  by: string;
  kind?: "fix-search";
}

/**
 * Online-check work: judge the sessions one import stored (one job per import, whatever its number of
 * sessions), or run a check's backfill over an agent's older sessions.
 */
export type CheckJob = { kind: "import"; sessionIds: string[] } | { kind: "backfill"; attachmentId: string };

/** Watch work (lib/watches/jobs.ts: the durable queue carries the same type). */
export type { WatchJob };

export interface JobQueue {
  /** Puts replays on the queue; a worker runs each under a lease. Called once their rows are committed. */
  enqueueReplays(replayIds: readonly string[]): Promise<void>;
  /** Puts investigations on the queue. Called once their rows are committed. */
  enqueueInvestigations(items: readonly QueuedInvestigation[]): Promise<void>;
  /** Puts online-check work on the queue; a queue without it (an older worker's) has the work run in the call. */
  enqueueChecks?(items: readonly CheckJob[]): Promise<void>;
  /** Puts connector pulls on the queue (a queue without it: the pull runs in the call that started it). */
  enqueuePulls?(pullIds: readonly string[]): Promise<void>;
  /** Puts watch work on the queue, to start after `delayMs` (a retry's backoff); without it the work runs in the call. */
  enqueueWatches?(items: readonly WatchJob[], delayMs?: number): Promise<void>;
}

/** What an operation that queues work may be given: a queue of its own (tests), else the plugged-in one. */
export interface QueueDeps {
  queue?: JobQueue;
}

// On globalThis, as the database is: Next bundles instrumentation.ts and the routes apart, in one process.
const registry = globalThis as unknown as { __branchpointJobQueue?: JobQueue };

/** Plugs the process's queue in (start-up), or takes it out again (`null`, on stop). */
export function plugJobQueue(queue: JobQueue | null): void {
  registry.__branchpointJobQueue = queue ?? undefined;
}

/** The queue to use: the one given, else the one plugged in at start-up, else none (run inline). */
export function jobQueueFor(deps: QueueDeps | undefined): JobQueue | null {
  return deps?.queue ?? registry.__branchpointJobQueue ?? null;
}
