import { Prisma } from "./generated/client";
import type { DbClient } from "./client";
import { endedRunData } from "./investigations";

/**
 * Searches for the smallest fixing change over a cluster: their rows, leases, probes and outcome. The lease
 * works as an investigation's (lib/db/investigations.ts): a claim in one statement, a heartbeat, fencing by the
 * owner on every write, and a sweeper that puts back a search whose worker is gone.
 */

const json = (value: unknown) => value as Prisma.InputJsonValue;

export type FixSearchRow = Prisma.ClusterFixSearchGetPayload<object>;

export interface FixSearchPending {
  /** The probe's kept changes, joined with commas. */
  key: string;
  experimentId: string;
}

export type FixSearchClaim =
  | { kind: "claimed"; attempts: number; probes: unknown; pendingProbe: FixSearchPending | null }
  /** Another worker holds it (its lease is current), or it is not waiting to run. */
  | { kind: "busy" | "idle" };

export function insertFixSearch(
  client: DbClient,
  row: { clusterId: string; params: unknown; changes: string[]; createdBy: string },
): Promise<FixSearchRow> {
  return client.clusterFixSearch.create({
    data: { clusterId: row.clusterId, params: json(row.params), changes: row.changes, createdBy: row.createdBy },
  });
}

export async function findFixSearch(client: DbClient, id: string): Promise<FixSearchRow | null> {
  if (!id) return null;
  return client.clusterFixSearch.findUnique({ where: { id } });
}

/** A cluster's searches, newest first. */
export function listFixSearchRows(client: DbClient, clusterId: string, limit = 50): Promise<FixSearchRow[]> {
  return client.clusterFixSearch.findMany({
    where: { clusterId },
    orderBy: [{ createdAt: "desc" }, { id: "desc" }],
    take: limit,
  });
}

/** Claims a queued search, or a running one whose lease ran out (its worker is gone), in one statement. */
export async function claimFixSearch(
  client: DbClient,
  id: string,
  owner: string,
  leaseMs: number,
): Promise<FixSearchClaim> {
  // A search cancelled while no worker held it (queued, or its worker gone) ends cancelled here, not run again.
  await client.$executeRaw`
    UPDATE "ClusterFixSearch" SET status = 'cancelled', "finishedAt" = now(), "leaseOwner" = NULL, "leaseUntil" = NULL
     WHERE id = ${id} AND "cancelRequested"
       AND (status = 'queued' OR (status = 'running' AND ("leaseUntil" IS NULL OR "leaseUntil" < now())))`;
  const rows = await client.$queryRaw<{ attempts: number; probes: unknown; pendingProbe: unknown }[]>`
    UPDATE "ClusterFixSearch"
       SET status = 'running', "leaseOwner" = ${owner}, "startedAt" = COALESCE("startedAt", now()),
           "leaseUntil" = now() + make_interval(secs => ${leaseMs / 1000}::float8), attempts = attempts + 1
     WHERE id = ${id}
       AND (status = 'queued' OR (status = 'running' AND ("leaseUntil" IS NULL OR "leaseUntil" < now())))
 RETURNING attempts, probes, "pendingProbe"`;
  const row = rows[0];
  if (row) return { kind: "claimed", ...row, pendingProbe: (row.pendingProbe ?? null) as FixSearchPending | null };
  const current = await client.clusterFixSearch.findUnique({ where: { id }, select: { status: true } });
  return { kind: current?.status === "running" ? "busy" : "idle" };
}

/** The heartbeat: extends the lease while this owner holds it; false when it was lost. */
export async function renewFixSearchLease(client: DbClient, id: string, owner: string, leaseMs: number) {
  const count = await client.$executeRaw`
    UPDATE "ClusterFixSearch" SET "leaseUntil" = now() + make_interval(secs => ${leaseMs / 1000}::float8)
     WHERE id = ${id} AND "leaseOwner" = ${owner} AND status = 'running'`;
  return count === 1;
}

/** Fencing: true when this owner still holds the search (locks the row until the transaction ends). */
export async function holdsFixSearchLease(client: DbClient, id: string, owner: string): Promise<boolean> {
  const rows = await client.$queryRaw<{ id: string }[]>`
    SELECT id FROM "ClusterFixSearch" WHERE id = ${id} AND "leaseOwner" = ${owner} AND status = 'running' FOR UPDATE`;
  return rows.length === 1;
}

/** Records the probe being run and its experiment (inside the transaction that creates it). */
export async function saveFixSearchPending(client: DbClient, id: string, owner: string, pending: FixSearchPending) {
  const { count } = await client.clusterFixSearch.updateMany({
    where: { id, leaseOwner: owner, status: "running" },
    data: { pendingProbe: json(pending) },
  });
  return count === 1;
}

/** Stores the probes so far (clearing the pending one, now among them); answers whether to stop. */
export async function saveFixSearchProgress(
  client: DbClient,
  id: string,
  owner: string,
  probes: unknown,
): Promise<{ held: boolean; cancelRequested: boolean }> {
  const { count } = await client.clusterFixSearch.updateMany({
    where: { id, leaseOwner: owner, status: "running" },
    data: { probes: json(probes), pendingProbe: Prisma.DbNull },
  });
  const row = await client.clusterFixSearch.findUnique({ where: { id }, select: { cancelRequested: true } });
  return { held: count === 1, cancelRequested: row?.cancelRequested ?? true };
}

/** Ends the search while this owner holds it; false when another worker took it over (nothing written). */
export async function finishFixSearch(
  client: DbClient,
  id: string,
  owner: string,
  end: { status: "done" | "failed" | "cancelled"; probes: unknown; result: unknown; error?: unknown },
): Promise<boolean> {
  const { count } = await client.clusterFixSearch.updateMany({
    where: { id, leaseOwner: owner, status: "running" },
    data: endedRunData(end),
  });
  return count === 1;
}

/** Drops this owner's lease when its run ended without finishing (a stop): it stays `running` for a sweeper. */
export async function releaseFixSearchLease(client: DbClient, id: string, owner: string): Promise<void> {
  await client.clusterFixSearch.updateMany({
    where: { id, leaseOwner: owner, status: "running" },
    data: { leaseUntil: new Date(0) },
  });
}

/** Asks a running search to stop after its current probe; a queued one is cancelled at once. The status after. */
export async function requestFixSearchCancel(client: DbClient, id: string): Promise<string | null> {
  // The request first, on either state, so a search the sweeper moves between them still carries it (a claim ends
  // a search that carries it); then a queued one ends at once.
  await client.clusterFixSearch.updateMany({
    where: { id, status: { in: ["queued", "running"] } },
    data: { cancelRequested: true },
  });
  await client.clusterFixSearch.updateMany({
    where: { id, status: "queued" },
    data: { status: "cancelled", finishedAt: new Date() },
  });
  const row = await client.clusterFixSearch.findUnique({ where: { id }, select: { status: true } });
  return row?.status ?? null;
}

/**
 * Searches left `running` by a worker that is gone (lease run out), put back to `queued` with their probes
 * kept; returns them for the caller to enqueue. One statement, so of two sweepers each row goes to one.
 */
export function requeueAbandonedFixSearches(
  client: DbClient,
  mine: readonly string[] = [],
  limit = 100,
): Promise<{ id: string; createdBy: string | null }[]> {
  return client.$queryRaw<{ id: string; createdBy: string | null }[]>`
    UPDATE "ClusterFixSearch" SET status = 'queued', "leaseOwner" = NULL, "leaseUntil" = NULL
     WHERE id IN (
       SELECT id FROM "ClusterFixSearch"
        WHERE status = 'running' AND ("leaseUntil" IS NULL OR "leaseUntil" < now())
          AND NOT (id = ANY(${[...mine]}::text[]))
        ORDER BY "createdAt" LIMIT ${limit}
        FOR UPDATE SKIP LOCKED)
 RETURNING id, "createdBy"`;
}

/**
 * On the embedded database (the folder lock proves no other process runs them): every search the last process
 * left queued or running, put back to `queued` with its probes kept, to enqueue again at start.
 */
export async function requeueAllFixSearches(client: DbClient): Promise<{ id: string; createdBy: string | null }[]> {
  await client.clusterFixSearch.updateMany({
    where: { status: "running" },
    data: { status: "queued", leaseOwner: null, leaseUntil: null },
  });
  return client.clusterFixSearch.findMany({
    where: { status: "queued" },
    select: { id: true, createdBy: true },
    take: 1000,
  });
}
