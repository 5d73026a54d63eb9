/**
 * Durable jobs on the database we already have, through pg-boss: its tables live in the `pgboss` schema of the same
 * PostgreSQL (or of the embedded PGlite, through pg-boss's `db` option: the one PGlite connection, no socket), and
 * any number of worker processes on any number of machines pull from them with `SELECT … FOR UPDATE SKIP LOCKED`.
 *
 * Three kinds of job: "run this replay" (a new replay, a resume after a fixture or an approval, each member of an
 * experiment), "run this investigation", and online-check work (judge the sessions of one import, or a check's
 * backfill). What runs them is handed in when the queue starts (lib/server/job-handlers.ts; this module does not
 * import lib/server). The replay handler claims the replay's lease, so a job delivered twice, or retried while a
 * slow worker still runs, runs the replay once; a worker killed mid-run (kill -9) loses its lease after `leaseMs`,
 * and the sweeper of any live worker puts the replay back on the queue.
 */
import { hostname } from "node:os";
import { randomUUID } from "node:crypto";
import PgBoss from "pg-boss";
import type { PGlite } from "@electric-sql/pglite";
import type { Database } from "@/lib/db/client";
import { dropAllLeases, queuedReplayIdsAll, requeueAbandonedReplays } from "@/lib/db/jobs";
import { abandonIdleAgentReplays } from "@/lib/db/agent-replays";
import { requeueAbandonedPulls, requeueAllPulls, startDueScheduledPulls } from "@/lib/db/connectors";
import {
  investigationCreators,
  queuedInvestigationIds,
  requeueAbandonedInvestigations,
  requeueRunningInvestigations,
} from "@/lib/db/investigations";
import { unfinishedBackfills } from "@/lib/db/online-checks";
import { requeueAbandonedFixSearches, requeueAllFixSearches } from "@/lib/db/cluster-fix-searches";
import { pruneTraceLogs } from "@/lib/db/trace-logs";
import { jobSettings, type JobSettings } from "./settings";
import * as watchQueue from "./watch-queue";
import { isWatchEnvelope, watchEnqueuer, type WatchEnvelope, type WatchHandler, type WatchJob } from "./watch-queue";

export const REPLAY_QUEUE = "replay-run";
/** Investigations (blame searches, minimisations, stale checks): one job each; its probes run inside it. */
export const INVESTIGATION_QUEUE = "investigation-run";
/** Online checks: the sessions of one import to judge, or one check's backfill over an agent's older sessions. */
export const CHECK_QUEUE = "check-run";
/** Connector pulls (traces from Langfuse, LangSmith): one job each; it goes on from its stored cursor. */
export const PULL_QUEUE = "connector-pull";
export const BOSS_SCHEMA = "pgboss";

export { jobSettings, runsWorkersInProcess, type JobSettings } from "./settings";

/** pg-boss's database seam over PGlite: parameterless text may hold several statements (its migrations). */
function pgliteDb(pglite: PGlite): PgBoss.Db {
  return {
    async executeSql(text: string, values: unknown[] = []) {
      if (values.length === 0) {
        const results = await pglite.exec(text);
        return { rows: results.at(-1)?.rows ?? [] };
      }
      const result = await pglite.query(text, values);
      return { rows: result.rows };
    },
  };
}

/** An investigation job: its id, and who started it (the run is on their behalf); a cluster's smallest-fix search rides alike. */
export interface InvestigationJob {
  id: string;
  by: string;
  kind?: "fix-search";
}

/** Online-check work (lib/server/job-queue.ts `CheckJob`). */
export type CheckJob = { kind: "import"; sessionIds: string[] } | { kind: "backfill"; attachmentId: string };

/** A worker's hold on a job's work: its lease name, how long a lease lasts, runs before giving up. */
export interface JobRun {
  owner: string;
  leaseMs: number;
  maxAttempts: number;
}

/** What runs each kind of job (lib/server/job-handlers.ts). A handler that throws fails the job, and pg-boss retries it. */
export interface JobHandlers {
  replay(prisma: Database["prisma"], replayId: string, run: JobRun): Promise<void>;
  investigation(prisma: Database["prisma"], item: InvestigationJob, run: JobRun): Promise<void>;
  /** Online checks; without it this process runs no check jobs (they wait for a worker that has it). */
  checks?(prisma: Database["prisma"], job: CheckJob): Promise<void>;
  /** A connector pull; without it, this process runs no pulls. */
  pull?(prisma: Database["prisma"], pullId: string, run: JobRun): Promise<void>;
  /** Watch work (evaluations, webhook attempts, investigation reports), run by the check worker. */
  watches?: WatchHandler;
}

export interface Jobs {
  /** Puts replays on the queue. */
  enqueueReplays(replayIds: readonly string[]): Promise<void>;
  /** Puts investigations on the queue, run on behalf of whoever started each. */
  enqueueInvestigations(items: readonly InvestigationJob[]): Promise<void>;
  /** Puts online-check work on the queue. */
  enqueueChecks(items: readonly CheckJob[]): Promise<void>;
  /** Puts connector pulls on the queue. */
  enqueuePulls(pullIds: readonly string[]): Promise<void>;
  enqueueWatches(items: readonly WatchJob[], delayMs?: number): Promise<void>;
  /** Puts back replays whose worker is gone, and queued ones that have no job; returns how many. */
  sweep(): Promise<number>;
  boss: PgBoss;
  /** This process's worker names (empty when it only enqueues). */
  workers: string[];
  stop(): Promise<void>;
}

export interface StartJobsOptions extends Partial<JobSettings> {
  /** Run workers in this process (else it only enqueues). */
  work: boolean;
  /** What the workers run; needed with `work`. */
  handlers?: JobHandlers;
  /** Log lines go here (tests pass a no-op). */
  log?: (line: string) => void;
}

/** The queue's pg-boss, started, on the embedded database's one connection or a pool of its own. */
async function openBoss(database: Database, opts: StartJobsOptions, settings: JobSettings): Promise<PgBoss> {
  const common = {
    schema: BOSS_SCHEMA,
    schedule: false,
    supervise: opts.work,
    maintenanceIntervalSeconds: 60,
    application_name: "branchpoint-jobs",
  };
  const boss = database.pglite
    ? new PgBoss({ ...common, db: pgliteDb(database.pglite) })
    : new PgBoss({ ...common, ...database.pgConfig!, max: settings.concurrency + 2 });
  boss.on("error", (error) => console.error("Branchpoint jobs:", error));
  await boss.start();
  return boss;
}

/** Creates the replay and investigation queues unless they exist. */
async function createQueues(boss: PgBoss, settings: JobSettings): Promise<void> {
  if (!(await boss.getQueue(REPLAY_QUEUE))) {
    try {
      await boss.createQueue(REPLAY_QUEUE, {
        name: REPLAY_QUEUE,
        retryLimit: settings.maxAttempts,
        retryDelay: 2,
        // The replay's own lease decides when a run is abandoned; this only bounds a job pg-boss never hears back from.
        expireInSeconds: 3600,
      });
    } catch (error) {
      // Another process created it at the same moment.
      if (!(await boss.getQueue(REPLAY_QUEUE))) throw error;
    }
  }

  if (!(await boss.getQueue(PULL_QUEUE))) {
    try {
      // The pull's own lease and cursor decide what a retry does; pg-boss retries a job whose run threw.
      await boss.createQueue(PULL_QUEUE, {
        name: PULL_QUEUE,
        retryLimit: settings.maxAttempts,
        retryDelay: 2,
        expireInSeconds: 6 * 3600,
      });
    } catch (error) {
      if (!(await boss.getQueue(PULL_QUEUE))) throw error;
    }
  }

  if (!(await boss.getQueue(INVESTIGATION_QUEUE))) {
    try {
      await boss.createQueue(INVESTIGATION_QUEUE, {
        name: INVESTIGATION_QUEUE,
        retryLimit: 0,
        expireInSeconds: 6 * 3600,
      });
    } catch (error) {
      if (!(await boss.getQueue(INVESTIGATION_QUEUE))) throw error;
    }
  }

  if (!(await boss.getQueue(CHECK_QUEUE))) {
    try {
      // Judging again is idempotent (a verdict per session and check, skipped when final), so a retry is safe.
      await boss.createQueue(CHECK_QUEUE, { name: CHECK_QUEUE, retryLimit: 3, retryDelay: 5, expireInSeconds: 3600 });
    } catch (error) {
      if (!(await boss.getQueue(CHECK_QUEUE))) throw error;
    }
  }
}

/** Puts replays, and investigations, on the queue. */
function enqueuers(boss: PgBoss, settings: JobSettings) {
  const enqueueInvestigations = async (items: readonly InvestigationJob[]) => {
    if (items.length === 0) return;
    await boss.insert(items.map((item) => ({ name: INVESTIGATION_QUEUE, data: item, retryLimit: 0 })));
  };

  const enqueue = async (replayIds: readonly string[]) => {
    for (let k = 0; k < replayIds.length; k += 1000) {
      await boss.insert(
        replayIds.slice(k, k + 1000).map((replayId) => ({
          name: REPLAY_QUEUE,
          data: { replayId },
          retryLimit: settings.maxAttempts,
          retryDelay: 2,
        })),
      );
    }
  };
  const enqueueChecks = async (items: readonly CheckJob[]) => {
    if (items.length === 0) return;
    await boss.insert(items.map((data) => ({ name: CHECK_QUEUE, data, retryLimit: 3, retryDelay: 5 })));
  };
  const enqueuePulls = async (pullIds: readonly string[]) => {
    if (pullIds.length === 0) return;
    await boss.insert(
      pullIds.map((pullId) => ({
        name: PULL_QUEUE,
        data: { pullId },
        retryLimit: settings.maxAttempts,
        retryDelay: 2,
      })),
    );
  };
  return { enqueue, enqueueInvestigations, enqueueChecks, enqueuePulls };
}

/** Queued replays and investigations with no job waiting or running for them. */
function orphanFinders(boss: PgBoss, settings: JobSettings) {
  const orphanedQueued = async (): Promise<string[]> => {
    // Queued replays with no job waiting or running for them (a process stopped between storing the replay and enqueueing it).
    const { rows } = await boss.getDb().executeSql(
      `SELECT r.id FROM "Replay" r
        WHERE r.status = 'queued' AND r."updatedAt" < now() - make_interval(secs => $1)
          AND NOT EXISTS (SELECT 1 FROM ${BOSS_SCHEMA}.job j
                           WHERE j.name = $2 AND j.state IN ('created', 'retry', 'active') AND j.data->>'replayId' = r.id)
        LIMIT 1000`,
      [settings.leaseMs / 1000, REPLAY_QUEUE],
    );
    return (rows as { id: string }[]).map((r) => r.id);
  };

  const orphanedInvestigations = async (): Promise<{ id: string; by: string }[]> => {
    const { rows } = await boss.getDb().executeSql(
      `SELECT i.id, i."createdBy" FROM "Investigation" i
        WHERE i.status = 'queued' AND i."createdAt" < now() - make_interval(secs => $1)
          AND NOT EXISTS (SELECT 1 FROM ${BOSS_SCHEMA}.job j
                           WHERE j.name = $2 AND j.state IN ('created', 'retry', 'active') AND j.data->>'id' = i.id)
        LIMIT 100`,
      [settings.leaseMs / 1000, INVESTIGATION_QUEUE],
    );
    return (rows as { id: string; createdBy: string | null }[]).map((r) => ({ id: r.id, by: r.createdBy ?? "system" }));
  };
  const orphanedBackfills = async (): Promise<string[]> => {
    const { rows } = await boss.getDb().executeSql(
      `SELECT a.id FROM "CheckAttachment" a
        WHERE a."backfillStatus" IN ('queued', 'running') AND a."backfillStarted" < now() - make_interval(secs => $1)
          AND NOT EXISTS (SELECT 1 FROM ${BOSS_SCHEMA}.job j
                           WHERE j.name = $2 AND j.state IN ('created', 'retry', 'active') AND j.data->>'attachmentId' = a.id)
        LIMIT 100`,
      [settings.leaseMs / 1000, CHECK_QUEUE],
    );
    return (rows as { id: string }[]).map((r) => r.id);
  };
  return { orphanedQueued, orphanedInvestigations, orphanedBackfills };
}

/** What the queue's workers and sweeper share. */
interface QueueParts {
  boss: PgBoss;
  prisma: Database["prisma"];
  settings: JobSettings;
  log: (line: string) => void;
  enqueue: (replayIds: readonly string[]) => Promise<void>;
  enqueueInvestigations: (items: readonly InvestigationJob[]) => Promise<void>;
  enqueueChecks: (items: readonly CheckJob[]) => Promise<void>;
  enqueuePulls: (pullIds: readonly string[]) => Promise<void>;
  /** Pulls this process's workers are running now. */
  runningPulls: Set<string>;
  /** Replays and investigations this process's workers are running now. */
  running: Set<string>;
  runningInvestigations: Set<string>;
}

/** Puts back what was abandoned or never got a job; returns how many. */
function sweeperOf(parts: QueueParts) {
  const { boss, prisma, settings, log, enqueue, enqueueInvestigations, enqueueChecks, running, runningInvestigations } =
    parts;
  const { orphanedQueued, orphanedInvestigations, orphanedBackfills } = orphanFinders(boss, settings);
  const { enqueuePulls, runningPulls } = parts;
  const sweep = async () => {
    // Agent-driven replays whose agent went silent past their idle timeout: abandoned, visibly.
    const silent = await abandonIdleAgentReplays(prisma);
    if (silent.length > 0) log(`Branchpoint jobs: ${silent.length} agent-driven replay(s) abandoned (agent silent).`);
    const abandoned = await requeueAbandonedReplays(prisma, [...running]);
    const orphans = await orphanedQueued();
    const ids = [...new Set([...abandoned, ...orphans])];
    if (ids.length > 0) {
      await enqueue(ids);
      if (abandoned.length > 0)
        log(`Branchpoint jobs: ${abandoned.length} replay(s) whose worker stopped are queued again.`);
    }
    // An investigation whose worker stopped is queued again; the run that picks it up goes on from its finished probes.
    const left = await requeueAbandonedInvestigations(prisma, [...runningInvestigations]);
    const orphanInvestigations = left.length > 0 ? [] : await orphanedInvestigations();
    const investigations = [...left.map((i) => ({ id: i.id, by: i.createdBy ?? "system" })), ...orphanInvestigations];
    if (investigations.length > 0) {
      await enqueueInvestigations(investigations);
      if (left.length > 0)
        log(`Branchpoint jobs: ${left.length} investigation(s) whose worker stopped are queued again.`);
    }
    // A smallest-fix search whose worker stopped likewise: the run that picks it up goes on from its stored probes.
    const searches = await requeueAbandonedFixSearches(prisma, [...runningInvestigations]);
    if (searches.length > 0) {
      await enqueueInvestigations(searches.map((s) => ({ id: s.id, by: s.createdBy ?? "system", kind: "fix-search" })));
      log(`Branchpoint jobs: ${searches.length} smallest-fix search(es) whose worker stopped are queued again.`);
    }
    // A backfill with no job waiting or running (a process stopped between storing it and enqueueing it) goes on
    // from its cursor.
    const backfills = await orphanedBackfills();
    await enqueueChecks(backfills.map((attachmentId) => ({ kind: "backfill" as const, attachmentId })));
    // A pull whose worker stopped goes back on the queue; the run that takes it goes on from its cursor.
    const pulls = await requeueAbandonedPulls(prisma, [...runningPulls]);
    if (pulls.length > 0) {
      await enqueuePulls(pulls);
      log(`Branchpoint jobs: ${pulls.length} connector pull(s) whose worker stopped are queued again.`);
    }
    // A scheduled pull whose next run is due (and that has ended) hands its schedule to a new pull, queued here.
    const scheduled = await startDueScheduledPulls(prisma, { lookbackMinutes: settings.pullLookbackMinutes });
    await enqueuePulls(scheduled);
    const late = scheduled.length + (await watchQueue.sweepWatches(prisma, watchEnqueuer(boss, CHECK_QUEUE)));
    // OTLP log records past their keeping: their spans took them as events by then, or never came.
    const pruned = await pruneTraceLogs(prisma, new Date(Date.now() - settings.traceLogDays * 86_400_000));
    if (pruned > 0)
      log(`Branchpoint jobs: ${pruned} OTLP log record(s) older than ${settings.traceLogDays} days deleted.`);
    return ids.length + investigations.length + searches.length + backfills.length + pulls.length + late;
  };
  return sweep;
}

/** On the embedded database nothing else runs: drop the last process's leases and queue again what it left. */
async function resumeEmbedded(parts: QueueParts): Promise<void> {
  const { prisma, log, enqueue, enqueueInvestigations, enqueueChecks } = parts;
  const dropped = await dropAllLeases(prisma);
  await enqueue(await queuedReplayIdsAll(prisma));
  if (dropped > 0) log(`Branchpoint jobs: ${dropped} replay(s) interrupted by the last stop resume now.`);
  await requeueRunningInvestigations(prisma);
  const queued = await queuedInvestigationIds(prisma);
  const by = await investigationCreators(prisma, queued);
  await enqueueInvestigations(by.map((i) => ({ id: i.id, by: i.createdBy ?? "system" })));
  const searches = await requeueAllFixSearches(prisma);
  await enqueueInvestigations(searches.map((s) => ({ id: s.id, by: s.createdBy ?? "system", kind: "fix-search" })));
  // Check backfills the last process left go on from their cursors.
  const backfills = await unfinishedBackfills(prisma);
  await enqueueChecks(backfills.map((b) => ({ kind: "backfill" as const, attachmentId: b.id })));
  await parts.enqueuePulls(await requeueAllPulls(prisma));
}

/** Starts the investigation worker and `concurrency` replay workers; returns the replay workers' names. */
async function startWorkers(parts: QueueParts, handlers: JobHandlers): Promise<string[]> {
  const { boss, prisma, settings, running, runningInvestigations } = parts;
  const workers: string[] = [];
  const processId = `${hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`;
  // Investigations run one at a time per process: each runs many replays itself.
  await boss.work<InvestigationJob>(
    INVESTIGATION_QUEUE,
    { batchSize: 1, pollingIntervalSeconds: settings.pollSeconds },
    async ([job]) => {
      if (!job) return;
      runningInvestigations.add(job.data.id);
      try {
        await handlers.investigation(prisma, job.data, {
          owner: `${processId}:investigation:${job.id}`,
          leaseMs: settings.leaseMs,
          maxAttempts: settings.maxAttempts,
        });
      } finally {
        runningInvestigations.delete(job.data.id);
      }
    },
  );
  for (let i = 0; i < settings.concurrency; i++) {
    const name = `${processId}:${i}`;
    workers.push(name);
    // pg-boss waits a polling interval after every job; told that this worker is free, it fetches the next at once.
    let workerId = "";
    workerId = await boss.work<{ replayId: string }>(
      REPLAY_QUEUE,
      { batchSize: 1, pollingIntervalSeconds: settings.pollSeconds },
      async ([job]) => {
        if (!job) return;
        const replayId = job.data.replayId;
        running.add(replayId);
        try {
          // A run that throws is noted on the replay by the handler; pg-boss retries the job, and the attempt limit stops a poison one.
          await handlers.replay(prisma, replayId, {
            owner: `${name}:${job.id}`,
            leaseMs: settings.leaseMs,
            maxAttempts: settings.maxAttempts,
          });
        } finally {
          running.delete(replayId);
          if (workerId) boss.notifyWorker(workerId);
        }
      },
    );
  }
  // The workers of the newer queues start after the replay workers: registered before them, they shifted which
  // worker took which replay, and a database test that kills a worker mid-investigation decided another step.
  // Online checks: one job at a time per process (a job judges a whole import, or goes through a backfill).
  if (handlers.checks)
    await boss.work<CheckJob | WatchEnvelope>(
      CHECK_QUEUE,
      { batchSize: 1, pollingIntervalSeconds: settings.pollSeconds },
      async ([job]) => {
        // Watch jobs ride on this queue (lib/jobs/watch-queue.ts).
        if (!job) return;
        const data = job.data;
        if (isWatchEnvelope(data)) await handlers.watches?.(prisma, data.watch);
        else await handlers.checks?.(prisma, data);
      },
    );
  const pullHandler = handlers.pull?.bind(handlers);
  if (pullHandler) {
    // Pulls run one at a time per process: each is paced by the platform's rate limits.
    await boss.work<{ pullId: string }>(
      PULL_QUEUE,
      { batchSize: 1, pollingIntervalSeconds: settings.pollSeconds },
      async ([job]) => {
        if (!job) return;
        parts.runningPulls.add(job.data.pullId);
        try {
          await pullHandler(prisma, job.data.pullId, {
            owner: `${processId}:pull:${job.id}`,
            leaseMs: settings.leaseMs,
            maxAttempts: settings.maxAttempts,
          });
        } finally {
          parts.runningPulls.delete(job.data.pullId);
        }
      },
    );
  }
  return workers;
}

/**
 * Opens the queue on a database and, with `work`, starts `concurrency`
 * workers and the sweeper. On the embedded database the folder lock proves no
 * other process runs anything, so leases left by the last process are dropped
 * and every queued replay is enqueued again at start.
 */
export async function startJobs(database: Database, opts: StartJobsOptions): Promise<Jobs> {
  if (opts.work && !opts.handlers)
    throw new Error("startJobs: workers need the job handlers (lib/server/job-handlers).");
  const settings = { ...jobSettings(), ...opts };
  const log = opts.log ?? ((line: string) => console.log(line));
  const prisma = database.prisma;
  const boss = await openBoss(database, opts, settings);
  await createQueues(boss, settings);
  const { enqueue, enqueueInvestigations, enqueueChecks, enqueuePulls } = enqueuers(boss, settings);
  const parts: QueueParts = {
    boss,
    prisma,
    settings,
    log,
    enqueue,
    enqueueInvestigations,
    enqueueChecks,
    enqueuePulls,
    runningPulls: new Set<string>(),
    running: new Set<string>(),
    runningInvestigations: new Set<string>(),
  };
  const sweep = sweeperOf(parts);

  let workers: string[] = [];
  let sweeper: NodeJS.Timeout | null = null;
  const handlers = opts.handlers;
  if (opts.work && handlers) {
    if (database.engine === "pglite") await resumeEmbedded(parts);
    workers = await startWorkers(parts, handlers);
    sweeper = setInterval(
      () => {
        sweep().catch((error: unknown) => console.error("Branchpoint jobs: sweep failed:", error));
      },
      Math.max(1000, Math.floor(settings.leaseMs / 2)),
    );
    sweeper.unref();
  }

  return {
    enqueueReplays: enqueue,
    enqueueInvestigations,
    enqueueChecks,
    enqueuePulls,
    enqueueWatches: watchEnqueuer(boss, CHECK_QUEUE),
    sweep,
    boss,
    workers,
    async stop() {
      if (sweeper) clearInterval(sweeper);
      await boss.stop({ graceful: true, wait: true, timeout: 10_000 });
    },
  };
}
