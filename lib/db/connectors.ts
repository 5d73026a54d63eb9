import { Prisma } from "./generated/client";
import type { ImportedSession } from "@/lib/ingest/types";
import type { Db, DbClient } from "./client";
import { saveSessionsIn } from "./session-save";

/** Connectors (platforms traces are pulled from) and their pulls: rows, leases, progress and outcome. */

const json = (value: unknown) => value as Prisma.InputJsonValue;

export type ConnectorRow = {
  id: string;
  name: string;
  kind: string;
  baseUrl: string;
  publicKey: string | null;
  project: string | null;
  secretKeyEnv: string;
  createdBy: string | null;
  createdAt: Date;
};

/** The page a pull is on (and the platform's cursor for it, where it pages by cursor), and the last trace done. */
export type PullCursor = { page: number; token?: string | null; lastTraceId: string | null };

export type PullProgress = {
  /** Pages of the trace list finished. */
  pages: number;
  totalPages: number | null;
  totalItems: number | null;
  /** Traces read (imported, already there, or refused). */
  traces: number;
  imported: number;
  duplicates: number;
  refused: number;
  /** Traces read and left out: the filter wanted failed runs only (or passing ones), checked on the trace itself. */
  skipped: number;
  /** Waits before a request was sent again (429, 5xx, a dropped connection). */
  retries: number;
};

export const emptyProgress = (): PullProgress => ({
  pages: 0,
  totalPages: null,
  totalItems: null,
  traces: 0,
  imported: 0,
  duplicates: 0,
  refused: 0,
  skipped: 0,
  retries: 0,
});

export type PullRefusal = { traceId: string | null; issues: { path: string; message: string }[] };

export type PullRow = {
  id: string;
  connectorId: string;
  filter: unknown;
  status: string;
  cursor: unknown;
  progress: unknown;
  refusals: unknown;
  error: unknown;
  cancelRequested: boolean;
  createdBy: string | null;
  createdAt: Date;
  finishedAt: Date | null;
  attempts: number;
  /** A scheduled pull's period (minutes); null for a pull run once. */
  everyMinutes: number | null;
  /** When the schedule's next pull is due, while this pull holds the schedule. */
  nextRunAt: Date | null;
};

const PULL_FIELDS = {
  id: true,
  connectorId: true,
  filter: true,
  status: true,
  cursor: true,
  progress: true,
  refusals: true,
  error: true,
  cancelRequested: true,
  createdBy: true,
  createdAt: true,
  finishedAt: true,
  attempts: true,
  everyMinutes: true,
  nextRunAt: true,
} as const;

export function insertConnector(client: DbClient, data: Omit<ConnectorRow, "id" | "createdAt">) {
  return client.connector.create({ data });
}

export function listConnectorRows(client: DbClient): Promise<ConnectorRow[]> {
  return client.connector.findMany({ orderBy: { name: "asc" } });
}

export function findConnector(
  client: DbClient,
  where: { id: string } | { name: string },
): Promise<ConnectorRow | null> {
  return client.connector.findUnique({ where });
}

/** Changes a connector's own fields (its kind stays); the row as it is now. */
export function updateConnectorRow(
  client: DbClient,
  id: string,
  data: Partial<Pick<ConnectorRow, "name" | "baseUrl" | "publicKey" | "project" | "secretKeyEnv">>,
): Promise<ConnectorRow> {
  return client.connector.update({ where: { id }, data });
}

/** A connector's pulls that are queued or running (a connector is not removed under them). */
export function activePullCount(client: DbClient, connectorId: string): Promise<number> {
  return client.connectorPull.count({ where: { connectorId, status: { in: ["queued", "running"] } } });
}

/** Removes a connector and its pulls (their schedules end with them); the sessions they imported stay. */
export async function deleteConnectorRow(client: DbClient, id: string): Promise<boolean> {
  const { count } = await client.connector.deleteMany({ where: { id } });
  return count === 1;
}

export function insertPull(
  client: DbClient,
  data: { connectorId: string; filter: unknown; createdBy: string | null; everyMinutes?: number },
) {
  const every = data.everyMinutes ?? null;
  return client.connectorPull.create({
    data: {
      connectorId: data.connectorId,
      filter: json(data.filter),
      createdBy: data.createdBy,
      progress: json(emptyProgress()),
      ...(every !== null ? { everyMinutes: every, nextRunAt: new Date(Date.now() + every * 60_000) } : {}),
    },
    select: PULL_FIELDS,
  });
}

/** How far back a scheduled pull's window reaches before the last one's end, unless told (minutes). */
export const DEFAULT_PULL_LOOKBACK_MINUTES = 10;

/**
 * The window of a schedule's next pull: a completed pull's successor reads from `lookbackMinutes` before its end
 * (never before its start), so a trace the platform indexed late, timestamped just before that end, is read by
 * the next pull; a failed one's window is read again. Either way it reads up to `now`.
 */
export function nextPullWindow(
  filter: Record<string, unknown>,
  ended: "completed" | "failed",
  lookbackMinutes: number,
  now: Date,
): { fromTimestamp?: string; toTimestamp: string } {
  const from = typeof filter.fromTimestamp === "string" ? filter.fromTimestamp : undefined;
  const to = typeof filter.toTimestamp === "string" ? filter.toTimestamp : undefined;
  if (ended === "failed" || to === undefined)
    return { ...(from !== undefined ? { fromTimestamp: from } : {}), toTimestamp: now.toISOString() };
  const back = Date.parse(to) - lookbackMinutes * 60_000;
  const start = from !== undefined ? Math.max(Date.parse(from), back) : back;
  return { fromTimestamp: new Date(start).toISOString(), toTimestamp: now.toISOString() };
}

/**
 * Starts the next pull of each schedule that is due: a pull whose `nextRunAt` has come and that has ended
 * (completed or failed; a cancelled pull ends its schedule) hands its schedule to a new pull, queued, whose window
 * is nextPullWindow's. Taking the schedule is one conditional update, so of two sweepers each schedule goes to
 * one. Returns the new pulls' ids to enqueue.
 */
export async function startDueScheduledPulls(
  prisma: Db,
  opts: { limit?: number; lookbackMinutes?: number } = {},
): Promise<string[]> {
  const due = await prisma.connectorPull.findMany({
    // A cancel that came while the pull ran (it may still have ended completed or failed) ends the schedule too.
    where: { nextRunAt: { lte: new Date() }, status: { in: ["completed", "failed"] }, cancelRequested: false },
    orderBy: { nextRunAt: "asc" },
    take: opts.limit ?? 20,
    select: PULL_FIELDS,
  });
  const started: string[] = [];
  for (const row of due) {
    const id = await prisma.$transaction(async (tx) => {
      const taken = await tx.connectorPull.updateMany({
        where: { id: row.id, nextRunAt: { not: null }, cancelRequested: false },
        data: { nextRunAt: null },
      });
      if (taken.count !== 1 || row.everyMinutes === null) return null;
      const filter = (row.filter ?? {}) as Record<string, unknown>;
      const ended = row.status === "completed" ? "completed" : "failed";
      const window = nextPullWindow(filter, ended, opts.lookbackMinutes ?? DEFAULT_PULL_LOOKBACK_MINUTES, new Date());
      const next = await insertPull(tx, {
        connectorId: row.connectorId,
        filter: { ...filter, ...window },
        createdBy: row.createdBy,
        everyMinutes: row.everyMinutes,
      });
      return next.id;
    });
    if (id) started.push(id);
  }
  return started;
}

/** Ends a pull's schedule (no next pull); whether it held one. */
export async function stopPullSchedule(client: DbClient, id: string): Promise<boolean> {
  const { count } = await client.connectorPull.updateMany({
    where: { id, nextRunAt: { not: null } },
    data: { nextRunAt: null },
  });
  return count === 1;
}

export function findPull(client: DbClient, id: string): Promise<PullRow | null> {
  return client.connectorPull.findUnique({ where: { id }, select: PULL_FIELDS });
}

export function listPulls(client: DbClient, connectorId: string, limit = 20): Promise<PullRow[]> {
  return client.connectorPull.findMany({
    where: { connectorId },
    orderBy: [{ createdAt: "desc" }, { id: "desc" }],
    take: limit,
    select: PULL_FIELDS,
  });
}

export type PullClaim =
  | { kind: "claimed"; attempts: number; cursor: PullCursor | null; progress: PullProgress; refusals: PullRefusal[] }
  | { kind: "busy" | "idle" };

/**
 * Claims a pull for this owner: a queued one, or a running one whose lease ran out (its worker is gone). One
 * statement, so of two workers one gets it; the database's clock decides.
 */
export async function claimPull(client: DbClient, id: string, owner: string, leaseMs: number): Promise<PullClaim> {
  const rows = await client.$queryRaw<{ attempts: number; cursor: unknown; progress: unknown; refusals: unknown }[]>`
    UPDATE "ConnectorPull"
       SET status = 'running', "leaseOwner" = ${owner},
           "leaseUntil" = now() + make_interval(secs => ${leaseMs / 1000}::float8), attempts = attempts + 1
     WHERE id = ${id}
       AND (status = 'queued' OR (status = 'running' AND ("leaseUntil" IS NULL OR "leaseUntil" < now())))
 RETURNING attempts, cursor, progress, refusals`;
  const row = rows[0];
  if (row)
    return {
      kind: "claimed",
      attempts: row.attempts,
      cursor: (row.cursor ?? null) as PullCursor | null,
      progress: { ...emptyProgress(), ...(row.progress as Partial<PullProgress>) },
      refusals: Array.isArray(row.refusals) ? (row.refusals as PullRefusal[]) : [],
    };
  const current = await client.connectorPull.findUnique({ where: { id }, select: { status: true } });
  return { kind: current?.status === "running" ? "busy" : "idle" };
}

/** The heartbeat: extends the lease while this owner holds it; false when it was lost. */
export async function renewPullLease(client: DbClient, id: string, owner: string, leaseMs: number): Promise<boolean> {
  const count = await client.$executeRaw`
    UPDATE "ConnectorPull" SET "leaseUntil" = now() + make_interval(secs => ${leaseMs / 1000}::float8)
     WHERE id = ${id} AND "leaseOwner" = ${owner} AND status = 'running'`;
  return count === 1;
}

/**
 * Stores where the pull is, while this owner holds the lease (call it in the transaction that wrote the trace's
 * session, so the two are one). Answers whether to go on: false when the lease was lost or a cancel was asked.
 */
export async function savePullState(
  client: DbClient,
  id: string,
  owner: string,
  state: { cursor: PullCursor; progress: PullProgress; refusals: PullRefusal[] },
): Promise<{ held: boolean; cancelRequested: boolean }> {
  const { count } = await client.connectorPull.updateMany({
    where: { id, leaseOwner: owner, status: "running" },
    data: { cursor: json(state.cursor), progress: json(state.progress), refusals: json(state.refusals) },
  });
  const row = await client.connectorPull.findUnique({ where: { id }, select: { cancelRequested: true } });
  return { held: count === 1, cancelRequested: row?.cancelRequested ?? true };
}

export async function isPullCancelRequested(client: DbClient, id: string): Promise<boolean> {
  const row = await client.connectorPull.findUnique({ where: { id }, select: { cancelRequested: true } });
  return row?.cancelRequested ?? true;
}

/** Ends the pull while this owner holds it; false when another worker took it over (nothing written). */
export async function finishPull(
  client: DbClient,
  id: string,
  owner: string,
  end: {
    status: "completed" | "failed" | "cancelled";
    progress: PullProgress;
    error?: { code: string; message: string };
  },
): Promise<boolean> {
  const { count } = await client.connectorPull.updateMany({
    where: { id, leaseOwner: owner, status: "running" },
    data: {
      status: end.status,
      progress: json(end.progress),
      error: end.error ? json(end.error) : Prisma.DbNull,
      finishedAt: new Date(),
      leaseOwner: null,
      leaseUntil: null,
    },
  });
  return count === 1;
}

/** Drops this owner's lease when its run stopped without finishing: it stays `running` for the next run. */
export async function releasePullLease(client: DbClient, id: string, owner: string): Promise<void> {
  await client.connectorPull.updateMany({
    where: { id, leaseOwner: owner, status: "running" },
    data: { leaseUntil: new Date(0) },
  });
}

/** Asks a running pull to stop after its current trace; a queued one is cancelled at once. Null: no such pull. */
export async function requestPullCancel(client: DbClient, id: string): Promise<string | null> {
  await client.connectorPull.updateMany({
    where: { id, status: "queued" },
    data: { status: "cancelled", cancelRequested: true, finishedAt: new Date() },
  });
  await client.connectorPull.updateMany({ where: { id, status: "running" }, data: { cancelRequested: true } });
  const row = await client.connectorPull.findUnique({ where: { id }, select: { status: true } });
  return row?.status ?? null;
}

/**
 * Pulls left `running` by a worker that is gone (lease run out), put back to `queued` with their cursor kept;
 * returns their ids so the caller enqueues them. One statement, so of two sweepers each row goes to one.
 */
export async function requeueAbandonedPulls(client: DbClient, mine: readonly string[] = [], limit = 100) {
  const rows = await client.$queryRaw<{ id: string }[]>`
    UPDATE "ConnectorPull" SET status = 'queued', "leaseOwner" = NULL, "leaseUntil" = NULL
     WHERE id IN (
       SELECT id FROM "ConnectorPull"
        WHERE status = 'running' AND ("leaseUntil" IS NULL OR "leaseUntil" < now())
          AND NOT (id = ANY(${[...mine]}::text[]))
        ORDER BY "createdAt" LIMIT ${limit}
        FOR UPDATE SKIP LOCKED)
 RETURNING id`;
  return rows.map((r) => r.id);
}

/** On the embedded database at start: every running pull is an orphan (one process); all go back on the queue. */
export async function requeueAllPulls(client: DbClient): Promise<string[]> {
  await client.connectorPull.updateMany({
    where: { status: "running" },
    data: { status: "queued", leaseOwner: null, leaseUntil: null },
  });
  const rows = await client.connectorPull.findMany({ where: { status: "queued" }, select: { id: true } });
  return rows.map((r) => r.id);
}

/** The largest number of refusals a pull keeps (it counts them all). */
export const MAX_PULL_REFUSALS = 100;

/**
 * One pulled trace's outcome (its session, or its refusal) with the pull's cursor past it, in one transaction
 * and only while this owner holds the lease: a run that takes over never imports a trace twice nor skips one.
 */
export async function storePulledTrace(
  prisma: Db,
  id: string,
  owner: string,
  before: { progress: PullProgress; refusals: PullRefusal[] },
  outcome: { cursor: PullCursor; session: ImportedSession | null; refusal: PullRefusal | null; skipped?: boolean },
): Promise<{
  held: boolean;
  cancelRequested: boolean;
  progress: PullProgress;
  refusals: PullRefusal[];
  /** The session stored when it is new (null when refused or found again). */
  stored: string | null;
}> {
  const rollback = new Error("lease lost");
  try {
    return await prisma.$transaction(
      async (tx) => {
        const saved = outcome.session ? (await saveSessionsIn(tx, [outcome.session]))[0]! : null;
        const p = before.progress;
        const progress: PullProgress = {
          ...p,
          traces: p.traces + 1,
          imported: p.imported + (saved && !saved.duplicate ? 1 : 0),
          duplicates: p.duplicates + (saved?.duplicate ? 1 : 0),
          refused: p.refused + (outcome.refusal ? 1 : 0),
          skipped: p.skipped + (outcome.skipped ? 1 : 0),
        };
        const refusals =
          outcome.refusal && before.refusals.length < MAX_PULL_REFUSALS
            ? [...before.refusals, outcome.refusal]
            : before.refusals;
        const state = await savePullState(tx, id, owner, { cursor: outcome.cursor, progress, refusals });
        if (!state.held) throw rollback;
        return { ...state, progress, refusals, stored: saved && !saved.duplicate ? saved.id : null };
      },
      { timeout: 120_000, maxWait: 30_000 },
    );
  } catch (error) {
    if (error === rollback) return { held: false, cancelRequested: true, ...before, stored: null };
    throw error;
  }
}
