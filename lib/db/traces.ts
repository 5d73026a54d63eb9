import type { ClosureRow, RowUpdate } from "@/lib/ingest/increment/rebuild";
import type { ImportedSession } from "@/lib/ingest/types";
import type { SessionEvent } from "@/lib/replay";
import type { Db, DbClient } from "./client";
import { Prisma } from "./generated/client";
import { toSessionEvent, withFullInputs } from "./session-reads";
import { upsertRebuiltSession, type SavedSession } from "./session-save";
import { pack } from "./trace-increment";
import type { SqlTx } from "./sql";

// ---------------------------------------------------------------------------
// The trace ingest's full rebuild, its SQL (the plan is lib/ingest/increment/rebuild.ts,
// the operation lib/server/ingest/traces.ts): the advisory locks, the closure
// of the groups a request touches, the sessions' writes (deleted, superseded,
// rebuilt) and the span rows' writes.
//
// Concurrency: a transaction-level advisory lock per touched key, trace id and
// group the touched traces are stored under serializes requests that share a
// group (PGlite is one connection anyway).
// ---------------------------------------------------------------------------

const TX = { timeout: 120_000, maxWait: 30_000 } as const;

/** Runs the full rebuild of a request in a Prisma transaction of its own. */
export function rebuildTransaction<R>(prisma: Db, fn: (tx: DbClient) => Promise<R>): Promise<R> {
  return prisma.$transaction((tx) => fn(tx), TX);
}

/**
 * Takes a request's locks (see "Concurrency" above), in one call ("trace_request_lock"). First the export's trace
 * ids: a trace's rows change group only by an export of that trace, which holds its lock, so once they are held
 * the groups its rows are stored under stay as read next. Then those groups too (a child span that names no
 * session has its trace as its own key, while its trace's rows may already be in a session that another export
 * is writing), and its own. Each set in sorted order, so two requests never wait on each other crosswise.
 */
export async function lockRequest(
  sql: SqlTx,
  prefix: string,
  keys: ReadonlySet<string>,
  traceIds: ReadonlySet<string>,
): Promise<void> {
  const traceKeys = [...traceIds].map((t) => `${prefix}trace-id:${t}`);
  await sql.query`SELECT "trace_request_lock"(${traceKeys}::text[], ${[...keys]}::text[], ${[...traceIds]}::text[]) AS n`;
}

/**
 * The stored rows of every group the keys and traces reach, digests but no payloads: the rows under the keys,
 * plus every row of the traces those rows belong to, plus the rows of those rows' groups, until nothing new
 * turns up.
 */
export async function loadClosure(
  tx: DbClient,
  keys: ReadonlySet<string>,
  traceIds: ReadonlySet<string>,
): Promise<ClosureRow[]> {
  const seenKeys = new Set(keys);
  const seenTraces = new Set(traceIds);
  const rows = new Map<string, ClosureRow>();
  const queriedKeys: string[] = [];
  let pendingKeys = [...keys];
  let pendingTraces = [...traceIds];
  while (pendingKeys.length > 0 || pendingTraces.length > 0) {
    // One row of JSON text: far cheaper than a row per span through the client. Rows under keys already queried are loaded already.
    const [{ rows: text }] = await tx.$queryRaw<[{ rows: string }]>`
      SELECT coalesce(json_agg(json_build_object('id', id, 'groupKey', "groupKey", 'traceId', "traceId",
        'spanId', "spanId", 'sessionId', "sessionId", 'digest', digest, 'startNs', "startNs"::text,
        'lastNs', "lastNs"::text, 'role', role))::text, '[]') AS rows
      FROM "TraceSpan"
      WHERE "groupKey" = ANY(${pendingKeys}::text[])
        OR ("traceId" = ANY(${pendingTraces}::text[]) AND NOT ("groupKey" = ANY(${queriedKeys}::text[])))`;
    const found = JSON.parse(text) as ClosureRow[];
    queriedKeys.push(...pendingKeys);
    pendingKeys = [];
    pendingTraces = [];
    for (const row of found) {
      rows.set(row.id, row);
      if (!seenKeys.has(row.groupKey)) {
        seenKeys.add(row.groupKey);
        pendingKeys.push(row.groupKey);
      }
      if (!seenTraces.has(row.traceId)) {
        seenTraces.add(row.traceId);
        pendingTraces.push(row.traceId);
      }
    }
  }
  return [...rows.values()];
}

/** The stored sessions of some groups (by external id) of a source's formats. */
export function groupSessions(
  tx: DbClient,
  externalIds: readonly string[],
  formats: readonly string[],
): Promise<{ id: string; externalId: string | null; format: string }[]> {
  return tx.session.findMany({
    where: { externalId: { in: [...externalIds] }, format: { in: [...formats] } },
    select: { id: true, externalId: true, format: true },
  });
}

/** Which of some sessions have replays. */
export async function sessionsWithReplays(tx: DbClient, sessionIds: readonly string[]): Promise<Set<string>> {
  if (sessionIds.length === 0) return new Set();
  const rows = await tx.replay.findMany({
    where: { sessionId: { in: [...sessionIds] } },
    select: { sessionId: true },
    distinct: ["sessionId"],
  });
  return new Set(rows.map((r) => r.sessionId));
}

export async function deleteSession(tx: DbClient, sessionId: string): Promise<void> {
  await tx.session.delete({ where: { id: sessionId } });
}

/** A session's events as stored, read back (full inputs). */
export async function storedSessionEvents(tx: DbClient, sessionId: string): Promise<SessionEvent[]> {
  const stored = await tx.event.findMany({ where: { sessionId }, orderBy: { seq: "asc" } });
  return withFullInputs(stored).map(toSessionEvent);
}

/** Writes a rebuilt session (replacing the one of its key) with what it keeps for its next export. */
export async function saveRebuiltSession(
  tx: DbClient,
  session: ImportedSession,
  state: unknown,
): Promise<SavedSession> {
  const saved = await upsertRebuiltSession(tx, session);
  if (state !== undefined) {
    await tx.session.update({ where: { id: saved.id }, data: { traceState: state as Prisma.InputJsonValue } });
  }
  return saved;
}

/**
 * Keeps a session that has replays as it is, marked superseded in its metadata
 * (`supersededBy` is set once the new session exists). Its external id gets a
 * suffix, which frees the (format, external id) key for the regrouped session.
 */
export async function supersede(
  tx: DbClient,
  session: { id: string; externalId: string | null },
  reason: "rebuilt" | "regrouped" | "no_longer_a_session",
): Promise<void> {
  const current = await tx.session.findUniqueOrThrow({ where: { id: session.id }, select: { metadata: true } });
  const metadata =
    current.metadata !== null && typeof current.metadata === "object" && !Array.isArray(current.metadata)
      ? current.metadata
      : {};
  await tx.session.update({
    where: { id: session.id },
    data: {
      externalId: `${session.externalId ?? ""}#superseded:${session.id}`,
      metadata: {
        ...metadata,
        supersededBy: null,
        superseded: { reason, externalId: session.externalId, at: new Date().toISOString() },
      },
    },
  });
  // Its failure counts once, in the session that replaces it.
  await tx.clusterMember.deleteMany({ where: { sessionId: session.id } });
}

export async function setSupersededBy(tx: DbClient, sessionId: string, by: string): Promise<void> {
  const current = await tx.session.findUniqueOrThrow({ where: { id: sessionId }, select: { metadata: true } });
  const metadata =
    current.metadata !== null && typeof current.metadata === "object" && !Array.isArray(current.metadata)
      ? current.metadata
      : {};
  await tx.session.update({ where: { id: sessionId }, data: { metadata: { ...metadata, supersededBy: by } } });
}

/** A stored row rewritten: its group, session, packed copy, and its digest and read columns when given. */
export async function rewriteSpanRow(tx: DbClient, u: RowUpdate): Promise<void> {
  await tx.traceSpan.update({
    where: { id: u.id },
    data: {
      groupKey: u.groupKey,
      sessionId: u.sessionId,
      payload: Prisma.DbNull,
      packed: pack(u.item),
      ...(u.digest === null ? {} : { digest: u.digest as Prisma.InputJsonValue }),
      ...(u.columns ?? {}),
    },
  });
}

/** Rows moved to another group or session. */
export async function moveSpanRows(
  tx: DbClient,
  moves: readonly { groupKey: string; sessionId: string | null; ids: string[] }[],
): Promise<void> {
  for (const { groupKey, sessionId, ids } of moves)
    await tx.traceSpan.updateMany({ where: { id: { in: ids } }, data: { groupKey, sessionId } });
}
