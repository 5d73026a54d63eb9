/**
 * Durable jobs on the database we already have, through pg-boss: its tables
 * live in the `pgboss` schema of the same PostgreSQL (or of the embedded PGlite,
 * through pg-boss's `db` option: the one PGlite connection, no socket), and
 * any number of worker processes on any number of machines pull from them with
 * `SELECT … FOR UPDATE SKIP LOCKED`.
 *
 * Two kinds of job: "run this replay" (a new replay, a resume after a fixture or
 * an approval, each member of an experiment) and "run this investigation".
 * What runs them is handed in when the queue starts (lib/server/job-handlers.ts;
 * this module does not import lib/server). The replay handler claims the
 * replay's lease, so a job delivered twice, or retried while a slow worker
 * still runs, runs the replay once; a worker killed mid-run (kill -9) loses
 * its lease after `leaseMs`, and the sweeper of any live worker puts the
 * replay back on the queue.
 */
import { hostname } from "node:os";
import { randomUUID } from "node:crypto";
import PgBoss from "pg-boss";
import type { PGlite } from "@electric-sql/pglite";
import type { Database } from "@/lib/db/client";
import { dropAllLeases, queuedReplayIdsAll, requeueAbandonedReplays } from "@/lib/db/jobs";
import {
  investigationCreators,
  queuedInvestigationIds,
  requeueAbandonedInvestigations,
  requeueRunningInvestigations,
} from "@/lib/db/investigations";

export const REPLAY_QUEUE = "replay-run";
/** Investigations (blame searches, minimisations, stale checks): one job each; its probes run inside it. */
export const INVESTIGATION_QUEUE = "investigation-run";
export const BOSS_SCHEMA = "pgboss";

export interface JobSettings {
  /** Replays one process runs at once. */
  concurrency: number;
  /** A replay's lease: a worker that stops renewing it (killed) is replaced after this long. */
  leaseMs: number;
  /** Runs of one replay before it is given up and marked failed. */
  maxAttempts: number;
  /** How often a worker looks for new jobs when idle. */
  pollSeconds: number;
}

function intFrom(value: string | undefined, fallback: number, min: number, max: number, name: string): number {
  if (value === undefined || value === "") return fallback;
  const n = Number(value);
  if (!Number.isInteger(n) || n < min || n > max)
    throw new Error(`${name} must be a whole number from ${min} to ${max}; it is "${value}".`);
  return n;
}

/** The job settings from the environment (see the README's configuration table). */
export function jobSettings(source: NodeJS.ProcessEnv = process.env): JobSettings {
  return {
    concurrency: intFrom(source.BRANCHPOINT_WORKER_CONCURRENCY, 2, 1, 64, "BRANCHPOINT_WORKER_CONCURRENCY"),
    leaseMs: intFrom(source.BRANCHPOINT_LEASE_SECONDS, 30, 2, 3600, "BRANCHPOINT_LEASE_SECONDS") * 1000,
    maxAttempts: intFrom(source.BRANCHPOINT_JOB_ATTEMPTS, 3, 1, 100, "BRANCHPOINT_JOB_ATTEMPTS"),
    pollSeconds: 1,
  };
}

/** Whether this web server runs workers itself: always on the embedded database; on PostgreSQL unless told `external`. */
export function runsWorkersInProcess(database: Pick<Database, "engine">, source = process.env): boolean {
  if (database.engine === "pglite") return true;
  const mode = source.BRANCHPOINT_WORKERS ?? "in-process";
  if (mode !== "in-process" && mode !== "external")
    throw new Error(`BRANCHPOINT_WORKERS must be "in-process" or "external"; it is "${mode}".`);
  return mode === "in-process";
}

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

/** An investigation job: its id, and who started it (the run is on their behalf). */
export interface InvestigationJob {
  id: string;
  by: string;
}

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
}

export interface Jobs {
  /** Puts replays on the queue. */
  enqueueReplays(replayIds: readonly string[]): Promise<void>;
  /** Puts investigations on the queue, run on behalf of whoever started each. */
  enqueueInvestigations(items: readonly InvestigationJob[]): Promise<void>;
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
  return { enqueue, enqueueInvestigations };
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
  return { orphanedQueued, orphanedInvestigations };
}

/** What the queue's workers and sweeper share. */
interface QueueParts {
  boss: PgBoss;
  prisma: Database["prisma"];
  settings: JobSettings;
  log: (line: string) => void;
  enqueue: (replayIds: readonly string[]) => Promise<void>;
  enqueueInvestigations: (items: readonly InvestigationJob[]) => Promise<void>;
  /** Replays and investigations this process's workers are running now. */
  running: Set<string>;
  runningInvestigations: Set<string>;
}

/** Puts back what was abandoned or never got a job; returns how many. */
function sweeperOf(parts: QueueParts) {
  const { boss, prisma, settings, log, enqueue, enqueueInvestigations, running, runningInvestigations } = parts;
  const { orphanedQueued, orphanedInvestigations } = orphanFinders(boss, settings);
  const sweep = async () => {
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
    return ids.length + investigations.length;
  };
  return sweep;
}

/** On the embedded database nothing else runs: drop the last process's leases and queue again what it left. */
async function resumeEmbedded(parts: QueueParts): Promise<void> {
  const { prisma, log, enqueue, enqueueInvestigations } = parts;
  const dropped = await dropAllLeases(prisma);
  await enqueue(await queuedReplayIdsAll(prisma));
  if (dropped > 0) log(`Branchpoint jobs: ${dropped} replay(s) interrupted by the last stop resume now.`);
  await requeueRunningInvestigations(prisma);
  const queued = await queuedInvestigationIds(prisma);
  const by = await investigationCreators(prisma, queued);
  await enqueueInvestigations(by.map((i) => ({ id: i.id, by: i.createdBy ?? "system" })));
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
  const { enqueue, enqueueInvestigations } = enqueuers(boss, settings);
  const parts: QueueParts = {
    boss,
    prisma,
    settings,
    log,
    enqueue,
    enqueueInvestigations,
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
    sweep,
    boss,
    workers,
    async stop() {
      if (sweeper) clearInterval(sweeper);
      await boss.stop({ graceful: true, wait: true, timeout: 10_000 });
    },
  };
}
