/** The job queue's settings from the environment, and whether the web server runs workers itself. */
import type { Database } from "@/lib/db/client";

export interface JobSettings {
  /** Replays one process runs at once. */
  concurrency: number;
  /** A replay's lease: a worker that stops renewing it (killed) is replaced after this long. */
  leaseMs: number;
  /** Runs of one replay before it is given up and marked failed. */
  maxAttempts: number;
  /** How often a worker looks for new jobs when idle. */
  pollSeconds: number;
  /**
   * How far back each scheduled pull's window reaches before the last one's end, for the traces a platform indexes
   * late (their timestamps before that end); the traces read twice are found again, not doubled.
   */
  pullLookbackMinutes: number;
  /** How long OTLP log records (/v1/logs) are kept, in days: the sweep deletes older ones. */
  traceLogDays: number;
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
    pullLookbackMinutes: intFrom(
      source.BRANCHPOINT_PULL_LOOKBACK_MINUTES,
      10,
      0,
      1440,
      "BRANCHPOINT_PULL_LOOKBACK_MINUTES",
    ),
    traceLogDays: intFrom(source.BRANCHPOINT_TRACE_LOG_DAYS, 30, 1, 3650, "BRANCHPOINT_TRACE_LOG_DAYS"),
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
