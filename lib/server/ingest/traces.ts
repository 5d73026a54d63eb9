import { isOneConnection, type Db, type DbClient } from "@/lib/db/client";
import { scheduleCostBackfill } from "../prices/costs";
import type { SavedSession } from "@/lib/db/session-save";
import { prismaSql, sqlTransaction, type SqlTx } from "@/lib/db/sql";
import { setColumns } from "@/lib/db/agents-increment";
import { insertSpanRows, loadItems, type TraceLogRow } from "@/lib/db/trace-increment";
import { insertTraceLogs, storedSpanRows, traceLogRows } from "@/lib/db/trace-logs";
import {
  deleteSession,
  groupSessions,
  loadClosure,
  lockRequest,
  moveSpanRows,
  rebuildTransaction,
  rewriteSpanRow,
  saveRebuiltSession,
  sessionsWithReplays,
  setSupersededBy,
  storedSessionEvents,
  supersede,
} from "@/lib/db/traces";
import {
  agentsSource,
  mergeRequest,
  otlpSource,
  rebuildGroups,
  requestOf,
  sameEvents,
  spanWrites,
  staleKeysOf,
  type ClosureRow,
  type Merged,
  type Placement,
  type RebuiltGroup,
  type Source,
} from "@/lib/ingest/increment/rebuild";
import { OTLP_PREFIX } from "@/lib/ingest/increment/otlp";
import { idOf } from "@/lib/ingest/increment/state";
import type { AgentsItem } from "@/lib/ingest/openai-agents-parse";
import type { OtlpFormat, OtlpSpan, OtlpSpanEvent, SpanDigest } from "@/lib/ingest/otlp";
import { withLogEvents, type SpanLogEvent } from "@/lib/ingest/otlp/logs";
import type { ImportedSession, ImportFormat, ImportIssue } from "@/lib/ingest/types";
import { runPlanner, writeIncrement } from "./increment";

// ---------------------------------------------------------------------------
// One trace export (OTLP spans or Agents SDK items), all or nothing: first the
// incremental plan (lib/ingest/increment), which re-maps only what the export
// touches; when it cannot, the full rebuild of every group the export touches
// from ALL their stored spans, in the same transaction as the span writes.
//
// A session with replays is never deleted or rebuilt in place (replays point
// at its events by seq): it is kept as it is, marked superseded in its
// metadata (`supersededBy`, external id suffixed), and the regrouped or
// rebuilt session is written as a new one. A rebuild that changes none of its
// events leaves it as it is.
// ---------------------------------------------------------------------------

export type TraceIngestResult =
  | {
      ok: true;
      /** Sessions created or rebuilt by this request (a group with no model or tool step yet has none). */
      sessions: (SavedSession & { externalId: string })[];
      /** Spans of the request (after deduplication within it). */
      received: number;
      /** Spans stored for the first time. */
      inserted: number;
      /** Stored spans replaced by a more complete copy (an ended span after its partial copy). */
      updated: number;
      /** True when the request re-mapped only what it touched; false when its groups were rebuilt from all their spans. */
      incremental: boolean;
    }
  | { ok: false; issues: ImportIssue[] };

/**
 * The request stored incrementally, or null having written nothing. Call after its keys are locked. Unless
 * they are attached already, the log events stored for its OTLP spans come with the planner's first read, and
 * are attached to `fresh` before the planner reads the spans.
 */
async function increment<T>(
  sql: SqlTx,
  source: Source<T>,
  fresh: Map<string, T>,
  { logsAttached }: { logsAttached: boolean },
) {
  const plan = await runPlanner(
    sql,
    source.kind,
    source.increment({
      fresh,
      better: (a, b) => source.better(a, b),
      fingerprint: (s) => source.fingerprint(s),
    }),
    logsAttached || source.kind !== "otlp"
      ? undefined
      : (loaded) => attachLogRows(fresh, (loaded as { logs: TraceLogRow[] }).logs),
  );
  if (!plan) return null;
  // Not re-clustered here: reading a session's failed steps costs reads that grow with the session, which
  // an incremental export must not (trace-increment.db.test.ts). A full rebuild re-clusters (writeSession),
  // and so does a group's first session, written as new.
  const sessions = await writeIncrement(sql, plan);
  const { inserted, updated } = plan;
  return { ok: true as const, sessions, inserted, updated, received: fresh.size, incremental: true };
}

/** The request's locks taken, then the increment (on the driver's own transaction). */
async function tryIncrement<T>(
  sql: SqlTx,
  source: Source<T>,
  incoming: readonly T[],
  lock: boolean,
): Promise<TraceIngestResult | null> {
  const { fresh, keys, traceIds } = requestOf(source, incoming);
  if (lock) await lockRequest(sql, source.prefix, keys, traceIds);
  return increment(sql, source, fresh, { logsAttached: false });
}

/**
 * The request's OTLP spans with the GenAI log events stored for them (/v1/logs) among their events, read once
 * the request's trace locks are held (a log export of the same traces takes them too, so none is missed).
 */
async function attachLogs<T>(sql: SqlTx, source: Source<T>, fresh: Map<string, T>, traceIds: ReadonlySet<string>) {
  if (source.kind !== "otlp") return;
  attachLogRows(fresh, await traceLogRows(sql, traceIds));
}

/** Each span of `fresh` (OTLP spans) with the stored log events that name it among its events. */
function attachLogRows<T>(fresh: Map<string, T>, rows: readonly TraceLogRow[]): void {
  const logs = new Map<string, OtlpSpanEvent[]>();
  for (const row of rows) {
    const id = idOf(row.traceId, row.spanId);
    logs.set(id, [...(logs.get(id) ?? []), JSON.parse(row.event) as OtlpSpanEvent]);
  }
  if (logs.size === 0) return;
  const spans = fresh as unknown as Map<string, OtlpSpan>;
  for (const [id, span] of spans) {
    const events = logs.get(id);
    if (events) spans.set(id, withLogEvents(span, events));
  }
}

async function storeAndRebuild<T>(
  tx: DbClient,
  source: Source<T>,
  incoming: readonly T[],
  format: ImportFormat,
  { lock, increment: incremental }: { lock: boolean; increment: boolean },
): Promise<TraceIngestResult> {
  // The request's spans, one copy each; its locks.
  const { fresh, keys, traceIds } = requestOf(source, incoming);
  if (lock) await lockRequest(prismaSql(tx), source.prefix, keys, traceIds);
  await attachLogs(prismaSql(tx), source, fresh, traceIds);
  // An export that only adds to sessions re-maps the part it touches.
  if (incremental) {
    const done = await increment(prismaSql(tx), source, fresh, { logsAttached: true });
    if (done) return done;
  }

  // What is stored of every group they touch (digests only), and every stored item of those groups, read once.
  const rows = await loadClosure(tx, keys, traceIds);
  const items = await loadItems<T>(
    prismaSql(tx),
    rows.map((r) => r.id),
  );
  const merged = mergeRequest(source, fresh, rows, items);
  // Every touched group rebuilt; the request refused on any attribute problem, before anything is written.
  const rebuilt = rebuildGroups(source, merged.all);
  if (!rebuilt.ok) return { ok: false, issues: rebuilt.issues };
  const { placement, sessions } = await writeSessions(tx, source, format, rows, rebuilt.groups);
  await writeSpans(tx, source, merged, placement, rebuilt.digests);
  return {
    ok: true,
    sessions,
    received: fresh.size,
    inserted: merged.inserted.length,
    updated: merged.replaced.size,
    incremental: false,
  };
}

type StoredSession = { id: string; externalId: string | null; format: string };

/** Sessions: rebuilt or created; groups that no longer exist (a trace moved into a session) lose theirs. */
async function writeSessions<T>(
  tx: DbClient,
  source: Source<T>,
  format: ImportFormat,
  rows: readonly ClosureRow[],
  groups: readonly RebuiltGroup[],
): Promise<{ placement: Placement; sessions: (SavedSession & { externalId: string })[] }> {
  const staleKeys = staleKeysOf(source.prefix, rows, groups);
  const existing = await groupSessions(tx, [...new Set(groups.map((g) => g.key)), ...staleKeys], source.formats);
  const existingByKey = new Map(existing.map((s) => [s.externalId ?? "", s]));
  // A session with replays is never deleted or rebuilt in place (its replays' baseSeq point at its
  // events): it is kept as it is, marked superseded, and the regrouped session is written as a new one.
  const withReplays = await sessionsWithReplays(
    tx,
    existing.map((s) => s.id),
  );
  const staleKept: { session: StoredSession; key: string }[] = [];
  for (const stale of staleKeys) {
    const session = existingByKey.get(stale);
    if (!session) continue;
    if (withReplays.has(session.id)) staleKept.push({ session, key: stale });
    else await deleteSession(tx, session.id);
  }
  const placement: Placement = new Map();
  const sessions: (SavedSession & { externalId: string })[] = [];
  for (const group of groups) {
    const saved = await writeGroupSession(tx, group, existingByKey.get(group.key), withReplays, format);
    if (saved) sessions.push({ ...saved, externalId: group.key });
    for (const id of group.memberIds)
      placement.set(id, { key: source.prefix + group.key, sessionId: saved?.id ?? null });
  }
  for (const { session, key } of staleKept) {
    // The session its spans moved into, when they all went to one.
    const into = new Set(
      rows
        .filter((r) => r.groupKey === source.prefix + key)
        .map((r) => placement.get(idOf(r.traceId, r.spanId))?.sessionId ?? null),
    );
    await supersede(tx, session, "regrouped");
    const by = into.size === 1 ? [...into][0]! : null;
    if (by) await setSupersededBy(tx, session.id, by);
  }
  return { placement, sessions };
}

/** One group's session written (or removed, when the group has none any more); the session written. */
async function writeGroupSession(
  tx: DbClient,
  group: RebuiltGroup,
  before: StoredSession | undefined,
  withReplays: ReadonlySet<string>,
  format: ImportFormat,
): Promise<SavedSession | null> {
  if (!group.session) {
    if (before && withReplays.has(before.id)) await supersede(tx, before, "no_longer_a_session");
    else if (before) await deleteSession(tx, before.id);
    return null;
  }
  // A group keeps the format it was first stored as (an OTLP session may get JSON and protobuf exports).
  const session: ImportedSession = { ...group.session, format: (before?.format as ImportFormat | undefined) ?? format };
  const keep =
    before !== undefined &&
    withReplays.has(before.id) &&
    !sameEvents(await storedSessionEvents(tx, before.id), session.events);
  if (keep) await supersede(tx, before, "rebuilt");
  // With what the session's next export adds to (see lib/ingest/increment).
  const saved = await saveRebuiltSession(tx, session, group.state(session));
  if (keep) await setSupersededBy(tx, before.id, saved.id);
  return saved;
}

/** Spans: new rows, better copies, and rows whose group or session changed. */
async function writeSpans<T>(
  tx: DbClient,
  source: Source<T>,
  merged: Merged<T>,
  placement: Placement,
  digests: ReadonlyMap<string, SpanDigest> | undefined,
): Promise<void> {
  const writes = spanWrites(source, merged, placement, digests);
  await insertSpanRows(prismaSql(tx), writes.insert);
  for (const update of writes.updates) await rewriteSpanRow(tx, update);
  await moveSpanRows(tx, writes.moves);
  if (writes.recolumned.length > 0) await setColumns(prismaSql(tx), writes.recolumned);
}

/**
 * Stores OTLP spans (one request's) and rebuilds their sessions. Call inside a transaction.
 * `lock: false` skips the advisory locks: only for a client whose transactions already run one at a time.
 * `increment: false` takes the full rebuild whatever the request (what the increment is held to, in tests).
 */
export function storeOtlpSpans(
  tx: DbClient,
  spans: readonly OtlpSpan[],
  format: OtlpFormat,
  { lock = true, increment = true }: { lock?: boolean; increment?: boolean } = {},
): Promise<TraceIngestResult> {
  return storeAndRebuild(tx, otlpSource(format), spans, format, { lock, increment });
}

/**
 * Stores OpenAI Agents SDK export items (traces and spans) and rebuilds their sessions. Call inside a transaction.
 * `increment: false` takes the full rebuild whatever the request (what the increment is held to, in tests).
 */
export function storeAgentsItems(
  tx: DbClient,
  items: readonly AgentsItem[],
  { lock = true, increment = true }: { lock?: boolean; increment?: boolean } = {},
): Promise<TraceIngestResult> {
  return storeAndRebuild(tx, agentsSource, items, "openai-agents", { lock, increment });
}

/**
 * One export, all or nothing: first the increment, on the driver's own transaction (plain statements: most
 * exports end there); when it cannot, having written nothing, the full rebuild in a Prisma transaction of
 * its own, which takes the locks again and reads everything afresh.
 */
async function ingest<T>(
  prisma: Db,
  source: Source<T>,
  items: readonly T[],
  format: ImportFormat,
): Promise<TraceIngestResult> {
  const lock = !isOneConnection(prisma);
  const done = await sqlTransaction(prisma, (sql) => tryIncrement(sql, source, items, lock));
  if (done) {
    // The increment marked its sessions' costs: they are worked out from the whole session after it.
    scheduleCostBackfill(prisma);
    return done;
  }
  return rebuildTransaction(prisma, (tx) => storeAndRebuild(tx, source, items, format, { lock, increment: false }));
}

/** One OTLP export, all or nothing. */
export function ingestOtlpSpans(
  prisma: Db,
  spans: readonly OtlpSpan[],
  format: OtlpFormat,
): Promise<TraceIngestResult> {
  return ingest(prisma, otlpSource(format), spans, format);
}

/** One Agents SDK export, all or nothing. */
export function ingestAgentsItems(prisma: Db, items: readonly AgentsItem[]): Promise<TraceIngestResult> {
  return ingest(prisma, agentsSource, items, "openai-agents");
}

export type LogIngestResult =
  | {
      ok: true;
      /** Events stored for the first time. */
      stored: number;
      /** Sessions rebuilt because a span the events name was stored already. */
      sessions: (SavedSession & { externalId: string })[];
    }
  | { ok: false; issues: ImportIssue[] };

class Refused extends Error {
  constructor(readonly issues: ImportIssue[]) {
    super("refused");
  }
}

/**
 * One OTLP log export's GenAI events, all or nothing: stored by the span each names, and every such span already
 * stored is stored again with them among its events (its session rebuilt). A span that comes later takes them then.
 */
export async function ingestOtlpLogs(
  prisma: Db,
  events: readonly SpanLogEvent[],
  format: OtlpFormat,
): Promise<LogIngestResult> {
  if (events.length === 0) return { ok: true, stored: 0, sessions: [] };
  const lock = !isOneConnection(prisma);
  try {
    const result = await rebuildTransaction(prisma, async (tx) => {
      const sql = prismaSql(tx);
      const traceIds = new Set(events.map((e) => e.traceId));
      if (lock) await lockRequest(sql, OTLP_PREFIX, new Set(), traceIds);
      const stored = await insertTraceLogs(sql, events);
      const named = new Set(events.map((e) => idOf(e.traceId, e.spanId)));
      const rows = (await storedSpanRows(sql, traceIds)).filter((r) => named.has(idOf(r.traceId, r.spanId)));
      if (stored === 0 || rows.length === 0) return { ok: true as const, stored, sessions: [] };
      const spans = await loadItems<OtlpSpan>(
        sql,
        rows.map((r) => r.id),
      );
      const rebuilt = await storeAndRebuild(tx, otlpSource(format), [...spans.values()], format, {
        lock,
        increment: true,
      });
      // Nothing of the export is kept when its spans cannot take its events.
      if (!rebuilt.ok) throw new Refused(rebuilt.issues);
      return { ok: true as const, stored, sessions: rebuilt.sessions };
    });
    if (result.sessions.length > 0) scheduleCostBackfill(prisma);
    return result;
  } catch (error) {
    if (error instanceof Refused) return { ok: false, issues: error.issues };
    throw error;
  }
}
