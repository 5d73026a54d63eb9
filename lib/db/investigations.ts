import { Prisma } from "./generated/client";
import type { DbClient } from "./client";
import type { StoredVerdicts } from "./checks";

/** Investigations (blame searches, edit minimisation): their rows, progress and outcome. */

const json = (value: unknown) => value as Prisma.InputJsonValue;

export interface InvestigationRow {
  id: string;
  kind: string;
  status: string;
  sessionId: string;
  replayId: string | null;
  params: unknown;
  estimate: unknown;
  probes: unknown;
  result: unknown;
  error: unknown;
  cancelRequested: boolean;
  createdBy: string | null;
  createdAt: Date;
  finishedAt: Date | null;
}

export async function insertInvestigation(
  client: DbClient,
  row: {
    kind: string;
    sessionId: string;
    replayId: string | null;
    params: unknown;
    estimate: unknown;
    createdBy: string;
  },
): Promise<InvestigationRow> {
  return client.investigation.create({
    data: {
      kind: row.kind,
      sessionId: row.sessionId,
      replayId: row.replayId,
      params: json(row.params),
      estimate: json(row.estimate),
      createdBy: row.createdBy,
    },
  });
}

export async function findInvestigation(client: DbClient, id: string): Promise<InvestigationRow | null> {
  if (!id) return null;
  return client.investigation.findUnique({ where: { id } });
}

export async function listInvestigationsOfSession(client: DbClient, sessionId: string, limit = 50) {
  return client.investigation.findMany({
    where: { sessionId },
    orderBy: [{ createdAt: "desc" }, { id: "desc" }],
    take: limit,
    select: { id: true, kind: true, status: true, result: true, createdBy: true, createdAt: true },
  });
}

/** Every session's investigations, newest first, with the session they searched. */
export async function listRecentInvestigations(client: DbClient, limit = 100) {
  return client.investigation.findMany({
    orderBy: [{ createdAt: "desc" }, { id: "desc" }],
    take: limit,
    select: {
      id: true,
      kind: true,
      status: true,
      result: true,
      createdBy: true,
      createdAt: true,
      session: { select: { id: true, title: true } },
    },
  });
}

export interface PendingProbe {
  /** Which probe (blame: the model step; minimise: the kept edits). */
  key: string;
  replayIds: string[];
}

export type InvestigationClaim =
  | { kind: "claimed"; attempts: number; probes: unknown; pendingProbe: PendingProbe | null }
  /** Another worker holds it (its lease is current), or it is not waiting to run. */
  | { kind: "busy" | "idle" };

/**
 * Claims an investigation for this owner: a queued one, or a running one whose lease ran out (its worker is
 * gone). One statement, so of two workers one gets it. The database's clock decides, as for replays.
 */
export async function claimInvestigation(
  client: DbClient,
  id: string,
  owner: string,
  leaseMs: number,
): Promise<InvestigationClaim> {
  const rows = await client.$queryRaw<{ attempts: number; probes: unknown; pendingProbe: unknown }[]>`
    UPDATE "Investigation"
       SET status = 'running', "leaseOwner" = ${owner},
           "leaseUntil" = now() + make_interval(secs => ${leaseMs / 1000}::float8), attempts = attempts + 1
     WHERE id = ${id}
       AND (status = 'queued' OR (status = 'running' AND ("leaseUntil" IS NULL OR "leaseUntil" < now())))
 RETURNING attempts, probes, "pendingProbe"`;
  const row = rows[0];
  if (row) return { kind: "claimed", ...row, pendingProbe: (row.pendingProbe ?? null) as PendingProbe | null };
  const current = await client.investigation.findUnique({ where: { id }, select: { status: true } });
  return { kind: current?.status === "running" ? "busy" : "idle" };
}

/** The heartbeat: extends the lease while this owner holds it; false when it was lost. */
export async function renewInvestigationLease(
  client: DbClient,
  id: string,
  owner: string,
  leaseMs: number,
): Promise<boolean> {
  const count = await client.$executeRaw`
    UPDATE "Investigation" SET "leaseUntil" = now() + make_interval(secs => ${leaseMs / 1000}::float8)
     WHERE id = ${id} AND "leaseOwner" = ${owner} AND status = 'running'`;
  return count === 1;
}

/** Fencing: true when this owner still holds the investigation (locks the row until the transaction ends). */
export async function holdsInvestigationLease(client: DbClient, id: string, owner: string): Promise<boolean> {
  const rows = await client.$queryRaw<{ id: string }[]>`
    SELECT id FROM "Investigation" WHERE id = ${id} AND "leaseOwner" = ${owner} AND status = 'running' FOR UPDATE`;
  return rows.length === 1;
}

/** Records the probe being run and its replays (inside the transaction that creates them). */
export async function savePendingProbe(client: DbClient, id: string, owner: string, pending: PendingProbe | null) {
  const { count } = await client.investigation.updateMany({
    where: { id, leaseOwner: owner, status: "running" },
    data: { pendingProbe: pending === null ? Prisma.DbNull : json(pending) },
  });
  return count === 1;
}

/**
 * Stores the probes so far (and clears the pending probe, now among them), while this owner holds the lease.
 * Answers whether to stop: the analyst asked to, or the lease was lost (`held` false).
 */
export async function saveInvestigationProgress(
  client: DbClient,
  id: string,
  owner: string,
  probes: unknown,
): Promise<{ held: boolean; cancelRequested: boolean }> {
  const { count } = await client.investigation.updateMany({
    where: { id, leaseOwner: owner, status: "running" },
    data: { probes: json(probes), pendingProbe: Prisma.DbNull },
  });
  const row = await client.investigation.findUnique({ where: { id }, select: { cancelRequested: true } });
  return { held: count === 1, cancelRequested: row?.cancelRequested ?? true };
}

export async function isInvestigationCancelRequested(client: DbClient, id: string): Promise<boolean> {
  const row = await client.investigation.findUnique({ where: { id }, select: { cancelRequested: true } });
  return row?.cancelRequested ?? true;
}

/** Ends the investigation while this owner holds it; false when another worker took it over (nothing written). */
export async function finishInvestigation(
  client: DbClient,
  id: string,
  owner: string,
  end: { status: "completed" | "failed" | "cancelled"; probes: unknown; result: unknown; error?: unknown },
): Promise<boolean> {
  const { count } = await client.investigation.updateMany({
    where: { id, leaseOwner: owner, status: "running" },
    data: endedRunData(end),
  });
  return count === 1;
}

/**
 * The columns a leased probe run (an investigation, a smallest-fix search) writes as it ends: its status, probes,
 * result and error, the time, and its lease and pending probe cleared.
 */
export function endedRunData(end: { status: string; probes: unknown; result: unknown; error?: unknown }) {
  return {
    status: end.status,
    probes: json(end.probes),
    result: end.result === null ? Prisma.DbNull : json(end.result),
    error: end.error === undefined || end.error === null ? Prisma.DbNull : json(end.error),
    finishedAt: new Date(),
    leaseOwner: null,
    leaseUntil: null,
    pendingProbe: Prisma.DbNull,
  };
}

/** Drops this owner's lease when its run ended without finishing (a stop): it stays `running` for a sweeper. */
export async function releaseInvestigationLease(client: DbClient, id: string, owner: string): Promise<void> {
  await client.investigation.updateMany({
    where: { id, leaseOwner: owner, status: "running" },
    data: { leaseUntil: new Date(0) },
  });
}

/** Who asked for each of these investigations (null when the system did). */
export async function investigationCreators(
  client: DbClient,
  ids: readonly string[],
): Promise<{ id: string; createdBy: string | null }[]> {
  return client.investigation.findMany({ where: { id: { in: [...ids] } }, select: { id: true, createdBy: true } });
}

/**
 * Investigations left `running` by a worker that is gone (lease run out, or a row from before leases), put
 * back to `queued` with their probes kept; returns them so the caller enqueues them. One statement, so of two
 * sweepers each row goes to one.
 */
export async function requeueAbandonedInvestigations(
  client: DbClient,
  mine: readonly string[] = [],
  limit = 100,
): Promise<{ id: string; createdBy: string | null }[]> {
  return client.$queryRaw<{ id: string; createdBy: string | null }[]>`
    UPDATE "Investigation" SET status = 'queued', "leaseOwner" = NULL, "leaseUntil" = NULL
     WHERE id IN (
       SELECT id FROM "Investigation"
        WHERE status = 'running' AND ("leaseUntil" IS NULL OR "leaseUntil" < now())
          AND NOT (id = ANY(${[...mine]}::text[]))
        ORDER BY "createdAt" LIMIT ${limit}
        FOR UPDATE SKIP LOCKED)
 RETURNING id, "createdBy"`;
}

/** Asks a running investigation to stop after its current probe; a queued one is cancelled at once. */
export async function requestInvestigationCancel(client: DbClient, id: string): Promise<string | null> {
  await client.investigation.updateMany({
    where: { id, status: "queued" },
    data: { status: "cancelled", cancelRequested: true, finishedAt: new Date() },
  });
  await client.investigation.updateMany({ where: { id, status: "running" }, data: { cancelRequested: true } });
  const row = await client.investigation.findUnique({ where: { id }, select: { status: true } });
  return row?.status ?? null;
}

/** Status and verdicts of replays (a probe's trials). */
export async function replayOutcomes(client: DbClient, ids: readonly string[]) {
  if (ids.length === 0) return [];
  const rows = await client.replay.findMany({
    where: { id: { in: [...ids] } },
    select: { id: true, status: true, verdicts: true },
  });
  return rows.map((r) => ({ id: r.id, status: r.status, verdicts: (r.verdicts ?? null) as StoredVerdicts | null }));
}

/** The newest finished stale check of a session, if any. */
export async function latestStaleCheck(client: DbClient, sessionId: string) {
  return client.investigation.findFirst({
    where: { sessionId, kind: "stale", status: "completed" },
    orderBy: [{ finishedAt: "desc" }, { id: "desc" }],
    select: { id: true, probes: true, finishedAt: true },
  });
}

/** Queued investigations (to put on the job queue at start). */
export async function queuedInvestigationIds(client: DbClient): Promise<string[]> {
  const rows = await client.investigation.findMany({ where: { status: "queued" }, select: { id: true }, take: 1000 });
  return rows.map((r) => r.id);
}

/**
 * Investigations left `running` by a stopped process go back to `queued` (on the embedded database the folder
 * lock proves no other process runs them). Their finished probes are kept: the run that picks one up goes on
 * from there.
 */
export async function requeueRunningInvestigations(client: DbClient): Promise<number> {
  const { count } = await client.investigation.updateMany({
    where: { status: "running" },
    data: { status: "queued", leaseOwner: null, leaseUntil: null },
  });
  return count;
}
