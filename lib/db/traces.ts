import { storableSessions } from "@/lib/hostile/storable";
import {
  groupSpans,
  mapSessionGroup,
  sessionGroupKey,
  dedupeSpans,
  type OtlpFormat,
  type OtlpSpan,
} from "@/lib/ingest/otlp";
import { mapOpenAiAgentsGroups, openAiAgentsGroupKey, richer, type AgentsItem } from "@/lib/ingest/openai-agents";
import type { ImportedSession, ImportFormat, ImportIssue } from "@/lib/ingest/types";
import { isOneConnection, type Db, type DbClient } from "./client";
import { prismaSql, sqlTransaction, type SqlTx } from "./sql";
import { Prisma } from "./generated/client";
import { canonicalJson, type SessionEvent } from "@/lib/replay";
import { agentsColumns, agentsStateOf, ingestAgentsIncrement, setColumns } from "./agents-increment";
import {
  digestColumns,
  idOf,
  ingestOtlpIncrement,
  insertSpanRows,
  loadItems,
  pack,
  traceStateOf,
  type IncrementResult,
  type SpanColumns,
  type SpanRow,
} from "./trace-increment";
import type { SpanDigest } from "@/lib/ingest/otlp";
import { toSessionEvent, upsertRebuiltSession, withFullInputs, type SavedSession } from "./sessions";

// ---------------------------------------------------------------------------
// Trace ingest: spans (OTLP) and items (OpenAI Agents SDK export) are stored
// idempotently, one TraceSpan row per (trace id, span id), and every session
// they touch is rebuilt from ALL the stored spans of its group, in the same
// transaction as the span writes. The mappers are pure functions of the SET
// of spans, so the final session is the same whatever the batching, order or
// duplication of exports.
//
// A row's `groupKey` is the RESOLVED group of its span (`otlp:session:<id>`,
// `otlp:trace:<id>`, `openai-agents:group:<id>`, `openai-agents:trace:<id>`):
// AI SDK 7 names the session on the root span only, so a child span that
// arrives first is stored under its trace, and moves (with its trace) into
// the session when the root arrives; the session that trace had on its own is
// then deleted. A session with replays is never deleted or rebuilt in place
// (replays point at its events by seq): it is kept as it is, marked superseded
// in its metadata (`supersededBy`, external id suffixed), and the regrouped or
// rebuilt session is written as a new one. A rebuild that changes none of its
// events leaves it as it is. Loading a group is a closure: the rows under the keys touched,
// plus every row of the traces those rows belong to, plus the rows of those
// rows' groups, until nothing new turns up.
//
// Rejection: a request whose spans have missing or mistyped attributes (the
// mapper's warnings, each at an exact path) writes nothing. Rows already
// stored passed the same check, so every warning belongs to the request.
// Concurrency: a transaction-level advisory lock per touched key, trace id and
// group the touched traces are stored under serializes requests that share a
// group (PGlite is one connection anyway).
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

/** A stored row as the rebuild reads it: with the columns the incremental reads use (bigints as text). */
type Row = SpanRow & { startNs: string | null; lastNs: string | null; role: string | null };

/** What the generic store-and-rebuild needs to know about one source of spans. */
type Source<T> = {
  prefix: string;
  formats: readonly ImportFormat[];
  ids(item: T): { traceId: string; spanId: string };
  /** The group the item names by itself (unprefixed). */
  ownKey(item: T): string;
  /** True when copy `a` of a span is preferred over copy `b`. */
  better(a: T, b: T): boolean;
  /** Stable text of an item for change detection (without its position in a request). */
  fingerprint(item: T): string;
  /**
   * Every group of `items` with its members' ids and its session (null: no model or tool step yet), plus
   * warnings and each item's digest (OTLP). `state`: what the session keeps for its next export, given
   * the session as stored (Agents SDK; OTLP's comes from the digests).
   */
  rebuild(items: T[]): {
    groups: {
      key: string;
      memberIds: string[];
      session: ImportedSession | null;
      state?: (session: ImportedSession) => unknown;
    }[];
    warnings: ImportIssue[];
    digests?: Map<string, unknown>;
  };
  /** The columns an item's row carries for the incremental reads, when the source keeps no digests (Agents SDK). */
  columns?(item: T): SpanColumns | null;
  /** Re-maps only what an export that adds to existing sessions touches; null: the full rebuild must run. */
  increment(
    sql: SqlTx,
    request: { fresh: ReadonlyMap<string, T>; better(a: T, b: T): boolean; fingerprint(item: T): string },
  ): Promise<IncrementResult | null>;
};

// --- OTLP --------------------------------------------------------------------

function otlpSource(format: OtlpFormat): Source<OtlpSpan> {
  return {
    prefix: "otlp:",
    formats: ["otlp-json", "otlp-protobuf"],
    ids: (s) => ({ traceId: s.traceId, spanId: s.spanId }),
    ownKey: (s) => sessionGroupKey(s),
    // dedupeSpans keeps the first copy unless a later one ranks higher.
    better: (a, b) => dedupeSpans([b, a])[0] === a,
    fingerprint: (s) => JSON.stringify({ ...s, path: "" }),
    increment: ingestOtlpIncrement,
    rebuild: (spans) => {
      const groups: { key: string; memberIds: string[]; session: ImportedSession | null }[] = [];
      const warnings: ImportIssue[] = [];
      const digests = new Map<string, unknown>();
      for (const [key, members] of groupSpans(spans)) {
        const mapped = mapSessionGroup(key, members, { format });
        warnings.push(...mapped.warnings);
        for (const d of mapped.digests) digests.set(idOf(d.traceId, d.spanId), d);
        groups.push({ key, memberIds: members.map((s) => idOf(s.traceId, s.spanId)), session: mapped.session });
      }
      return { groups, warnings, digests };
    },
  };
}

// --- OpenAI Agents SDK ---------------------------------------------------------

const agentsIds = (item: AgentsItem) =>
  item.object === "trace" ? { traceId: item.id, spanId: item.id } : { traceId: item.traceId, spanId: item.id };

const agentsSource: Source<AgentsItem> = {
  prefix: "openai-agents:",
  formats: ["openai-agents"],
  ids: agentsIds,
  ownKey: openAiAgentsGroupKey,
  better: richer,
  fingerprint: (item) => JSON.stringify({ ...item, path: "" }),
  increment: ingestAgentsIncrement,
  rebuild: (items) => {
    const mapped = mapOpenAiAgentsGroups(items);
    return {
      groups: mapped.groups.map((group) => ({
        key: group.key,
        memberIds: group.items.map((item) => idOf(agentsIds(item).traceId, agentsIds(item).spanId)),
        session: group.session,
        state: (session: ImportedSession) => agentsStateOf(group, session),
      })),
      warnings: mapped.warnings,
    };
  },
  columns: agentsColumns,
};

// --- The store-and-rebuild -----------------------------------------------------

/** Serializes transactions that touch the same keys (sorted, so two requests never wait on each other crosswise). */
async function lockKeys(sql: SqlTx, keys: readonly string[]): Promise<void> {
  const sorted = [...new Set(keys)].sort();
  if (sorted.length === 0) return;
  await sql.query`SELECT count(*)::int AS n FROM (SELECT pg_advisory_xact_lock(hashtextextended(k, 0)) FROM unnest(${sorted}::text[]) AS k ORDER BY k) AS locked`;
}

/** The stored rows of every group the keys and traces reach (see the closure above), digests but no payloads. */
async function loadClosure(tx: DbClient, keys: Set<string>, traceIds: Set<string>): Promise<Row[]> {
  const rows = new Map<string, Row>();
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
    const found = JSON.parse(text) as Row[];
    queriedKeys.push(...pendingKeys);
    pendingKeys = [];
    pendingTraces = [];
    for (const row of found) {
      rows.set(row.id, row);
      if (!keys.has(row.groupKey)) {
        keys.add(row.groupKey);
        pendingKeys.push(row.groupKey);
      }
      if (!traceIds.has(row.traceId)) {
        traceIds.add(row.traceId);
        pendingTraces.push(row.traceId);
      }
    }
  }
  return [...rows.values()];
}

/** A request's items, one copy each (by `idOf`), with the group keys they name and their trace ids. */
function requestOf<T>(source: Source<T>, incoming: readonly T[]) {
  const fresh = new Map<string, T>();
  for (const item of incoming) {
    const { traceId, spanId } = source.ids(item);
    const id = idOf(traceId, spanId);
    const current = fresh.get(id);
    if (!current || source.better(item, current)) fresh.set(id, item);
  }
  const keys = new Set<string>();
  const traceIds = new Set<string>();
  for (const item of fresh.values()) {
    keys.add(source.prefix + source.ownKey(item));
    traceIds.add(source.ids(item).traceId);
  }
  return { fresh, keys, traceIds };
}

/** Takes the request's locks (see "Concurrency" above). */
async function lockRequest<T>(sql: SqlTx, source: Source<T>, keys: Set<string>, traceIds: Set<string>): Promise<void> {
  // First the export's trace ids: a trace's rows change group only by an export of that trace, which holds its
  // lock, so once they are held the groups its rows are stored under stay as read next.
  await lockKeys(
    sql,
    [...traceIds].map((t) => `${source.prefix}trace-id:${t}`),
  );
  // Then the groups they are stored under too (a child span that names no session has its trace as its own
  // key, while its trace's rows may already be in a session that another export is writing), and its own.
  const storedKeys = await sql.query<{ groupKey: string }[]>`
    SELECT DISTINCT "groupKey" FROM "TraceSpan" WHERE "traceId" = ANY(${[...traceIds]}::text[])`;
  await lockKeys(sql, [...keys, ...storedKeys.map((r) => r.groupKey)]);
}

/** The request stored incrementally (see ./trace-increment.ts, ./agents-increment.ts), or null having written nothing. */
async function tryIncrement<T>(
  sql: SqlTx,
  source: Source<T>,
  incoming: readonly T[],
  lock: boolean,
): Promise<TraceIngestResult | null> {
  const { fresh, keys, traceIds } = requestOf(source, incoming);
  if (lock) await lockRequest(sql, source, keys, traceIds);
  const done = await source.increment(sql, {
    fresh,
    better: (a, b) => source.better(a, b),
    fingerprint: (s) => source.fingerprint(s),
  });
  return done ? { ok: true, ...done, received: fresh.size, incremental: true } : null;
}

async function storeAndRebuild<T>(
  tx: DbClient,
  source: Source<T>,
  incoming: readonly T[],
  format: ImportFormat,
  { lock, increment }: { lock: boolean; increment: boolean },
): Promise<TraceIngestResult> {
  // 1. The request's spans, one copy each.
  const { fresh, keys, traceIds } = requestOf(source, incoming);
  if (lock) await lockRequest(prismaSql(tx), source, keys, traceIds);

  // An export that only adds to sessions re-maps the part it touches (see ./trace-increment.ts, ./agents-increment.ts).
  if (increment) {
    const done = await source.increment(prismaSql(tx), {
      fresh,
      better: (a, b) => source.better(a, b),
      fingerprint: (s) => source.fingerprint(s),
    });
    if (done) return { ok: true, ...done, received: fresh.size, incremental: true };
  }

  // 2. What is stored of every group they touch (digests only), and the stored copies of the request's spans.
  const rows = await loadClosure(tx, keys, traceIds);
  const rowById = new Map(rows.map((r) => [idOf(r.traceId, r.spanId), r]));
  // Every stored item of the groups, read once: the stored copies of the request's spans among them.
  const storedItems = await loadItems<T>(
    prismaSql(tx),
    rows.map((r) => r.id),
  );
  const resent = new Map<string, T>();
  for (const id of fresh.keys()) {
    const row = rowById.get(id);
    if (row) resent.set(row.id, storedItems.get(row.id)!);
  }

  // 3. New spans, and better copies of stored ones.
  const inserted: string[] = [];
  const replaced = new Set<string>();
  for (const [id, item] of fresh) {
    const row = rowById.get(id);
    const before = row ? resent.get(row.id)! : undefined;
    if (!before) inserted.push(id);
    else if (source.better(item, before) && source.fingerprint(item) !== source.fingerprint(before)) replaced.add(id);
  }

  // The full rebuild: every stored span of the groups, replaced by better copies, plus the new ones.
  const stored = new Map<string, { row: Row; item: T }>();
  for (const row of rows)
    stored.set(idOf(row.traceId, row.spanId), { row, item: resent.get(row.id) ?? storedItems.get(row.id)! });
  const all = new Map<string, T>();
  for (const [id, { item }] of stored) all.set(id, item);
  for (const id of [...inserted, ...replaced]) all.set(id, fresh.get(id)!);

  // 4. Rebuild every touched group; refuse the request on any attribute problem, before writing anything.
  const { groups: rebuilt, warnings, digests } = source.rebuild([...all.values()]);
  if (warnings.length > 0) return { ok: false, issues: warnings };
  const storable = storableSessions(rebuilt.flatMap((g) => (g.session ? [g.session] : [])));
  if (!storable.ok) return { ok: false, issues: storable.issues };
  const repaired = [...storable.sessions];
  const groups = rebuilt.map((g) => (g.session ? { ...g, session: repaired.shift()! } : g));

  // 5. Sessions: rebuilt or created; groups that no longer exist (a trace moved into a session) lose theirs.
  const groupOf = new Map<string, { key: string; sessionId: string | null }>();
  const sessions: (SavedSession & { externalId: string })[] = [];
  const liveKeys = new Set(groups.map((g) => g.key));
  const staleKeys = [...new Set(rows.map((r) => r.groupKey.slice(source.prefix.length)))].filter(
    (k) => !liveKeys.has(k),
  );
  const existing = await tx.session.findMany({
    where: { externalId: { in: [...liveKeys, ...staleKeys] }, format: { in: [...source.formats] } },
    select: { id: true, externalId: true, format: true },
  });
  const existingByKey = new Map(existing.map((s) => [s.externalId ?? "", s]));
  // A session with replays is never deleted or rebuilt in place (its replays' baseSeq point at its
  // events): it is kept as it is, marked superseded, and the regrouped session is written as a new one.
  const withReplays = new Set(
    existing.length === 0
      ? []
      : (
          await tx.replay.findMany({
            where: { sessionId: { in: existing.map((s) => s.id) } },
            select: { sessionId: true },
            distinct: ["sessionId"],
          })
        ).map((r) => r.sessionId),
  );
  const staleKept: { session: (typeof existing)[number]; key: string }[] = [];
  for (const stale of staleKeys) {
    const session = existingByKey.get(stale);
    if (!session) continue;
    if (withReplays.has(session.id)) staleKept.push({ session, key: stale });
    else await tx.session.delete({ where: { id: session.id } });
  }
  for (const group of groups) {
    let sessionId: string | null = null;
    const before = existingByKey.get(group.key);
    if (group.session) {
      // A group keeps the format it was first stored as (an OTLP session may get JSON and protobuf exports).
      const session: ImportedSession = {
        ...group.session,
        format: (before?.format as ImportFormat | undefined) ?? format,
      };
      const keep = before && withReplays.has(before.id) && !(await sameStoredEvents(tx, before.id, session.events));
      if (keep) await supersede(tx, before, "rebuilt");
      const saved = await upsertRebuiltSession(tx, session);
      if (keep) await setSupersededBy(tx, before.id, saved.id);
      // What the session's next export adds to (see ./trace-increment.ts and ./agents-increment.ts).
      const state = digests
        ? traceStateOf(
            session,
            group.memberIds.map((id) => digests.get(id) as SpanDigest),
          )
        : group.state?.(session);
      if (state !== undefined) {
        await tx.session.update({
          where: { id: saved.id },
          data: { traceState: state as Prisma.InputJsonValue },
        });
      }
      sessions.push({ ...saved, externalId: group.key });
      sessionId = saved.id;
    } else if (before) {
      if (withReplays.has(before.id)) await supersede(tx, before, "no_longer_a_session");
      else await tx.session.delete({ where: { id: before.id } });
    }
    for (const id of group.memberIds) groupOf.set(id, { key: source.prefix + group.key, sessionId });
  }
  for (const { session, key } of staleKept) {
    // The session its spans moved into, when they all went to one.
    const into = new Set(
      rows
        .filter((r) => r.groupKey === source.prefix + key)
        .map((r) => groupOf.get(idOf(r.traceId, r.spanId))?.sessionId ?? null),
    );
    await supersede(tx, session, "regrouped");
    const by = into.size === 1 ? [...into][0]! : null;
    if (by) await setSupersededBy(tx, session.id, by);
  }

  // 6. Spans: new rows, better copies, and rows whose group or session changed.
  await insertSpanRows(
    prismaSql(tx),
    inserted.map((id) => {
      const item = all.get(id)!;
      const { traceId, spanId } = source.ids(item);
      const group = groupOf.get(id)!;
      return {
        groupKey: group.key,
        traceId,
        spanId,
        sessionId: group.sessionId,
        packed: pack(item),
        digest: (digests?.get(id) as SpanDigest | undefined) ?? null,
        columns: source.columns?.(item) ?? null,
      };
    }),
  );
  const moves = new Map<string, string[]>();
  const recolumned: { id: string; startNs: string; lastNs: string; role: string }[] = [];
  for (const [id, { row }] of stored) {
    const group = groupOf.get(id)!;
    // A source without digests: its rows' columns follow the copy stored (written here when they do not).
    const columns = source.columns?.(all.get(id)!) ?? null;
    if (replaced.has(id)) {
      await tx.traceSpan.update({
        where: { id: row.id },
        data: {
          groupKey: group.key,
          sessionId: group.sessionId,
          payload: Prisma.DbNull,
          packed: pack(all.get(id)! as { path?: string }),
          ...digestField(digests, id),
          ...(columns ?? {}),
        },
      });
      continue;
    }
    if (
      columns &&
      (row.startNs !== String(columns.startNs) || row.lastNs !== String(columns.lastNs) || row.role !== columns.role)
    )
      recolumned.push({
        id: row.id,
        startNs: String(columns.startNs),
        lastNs: String(columns.lastNs),
        role: columns.role,
      });
    if (digests && row.digest === null) {
      // A row stored before digests: packed and digested once, so its group can take the incremental path.
      await tx.traceSpan.update({
        where: { id: row.id },
        data: {
          groupKey: group.key,
          sessionId: group.sessionId,
          payload: Prisma.DbNull,
          packed: pack(all.get(id)! as { path?: string }),
          ...digestField(digests, id),
        },
      });
    } else if (row.groupKey !== group.key || row.sessionId !== group.sessionId) {
      const moveKey = JSON.stringify([group.key, group.sessionId]);
      const list = moves.get(moveKey) ?? [];
      list.push(row.id);
      moves.set(moveKey, list);
    }
  }
  for (const [moveKey, ids] of moves) {
    const [groupKey, sessionId] = JSON.parse(moveKey) as [string, string | null];
    await tx.traceSpan.updateMany({ where: { id: { in: ids } }, data: { groupKey, sessionId } });
  }
  if (recolumned.length > 0) await setColumns(prismaSql(tx), recolumned);

  return {
    ok: true,
    sessions,
    received: fresh.size,
    inserted: inserted.length,
    updated: replaced.size,
    incremental: false,
  };
}

function digestField(
  digests: Map<string, unknown> | undefined,
  id: string,
): { digest?: Prisma.InputJsonValue } & Partial<ReturnType<typeof digestColumns>> {
  const d = digests?.get(id);
  return d === undefined ? {} : { digest: d as Prisma.InputJsonValue, ...digestColumns(d as SpanDigest) };
}

/** The events as `writeSession` would store them and `toSessionEvent` read them back. */
function asStoredEvents(events: readonly SessionEvent[]): SessionEvent[] {
  return events.map((e) => {
    const u = e.usage;
    const usage =
      (u?.inputTokens ?? null) === null && (u?.outputTokens ?? null) === null && (u?.costUsd ?? null) === null
        ? null
        : {
            ...(u?.inputTokens === undefined || u.inputTokens === null ? {} : { inputTokens: u.inputTokens }),
            ...(u?.outputTokens === undefined || u.outputTokens === null ? {} : { outputTokens: u.outputTokens }),
            ...(u?.costUsd === undefined || u.costUsd === null ? {} : { costUsd: u.costUsd }),
          };
    return {
      seq: e.seq,
      kind: e.kind,
      name: e.name,
      input: e.input ?? null,
      output: e.output ?? null,
      error: e.error ?? null,
      status: e.status,
      startedAt: e.startedAt ? new Date(e.startedAt).toISOString() : null,
      durationMs: e.durationMs === null ? null : Math.round(e.durationMs),
      usage,
      parentSeq: e.parentSeq,
      cacheKey: e.cacheKey,
      occurrence: e.occurrence,
    };
  });
}

/** Whether a stored session already holds exactly these events (a rebuild would change nothing its replays rely on). */
async function sameStoredEvents(tx: DbClient, sessionId: string, events: readonly SessionEvent[]): Promise<boolean> {
  const stored = await tx.event.findMany({ where: { sessionId }, orderBy: { seq: "asc" } });
  if (stored.length !== events.length) return false;
  const a = canonicalJson(withFullInputs(stored).map(toSessionEvent));
  return a !== undefined && a === canonicalJson(asStoredEvents(events));
}

/**
 * Keeps a session that has replays as it is, marked superseded in its metadata
 * (`supersededBy` is set once the new session exists). Its external id gets a
 * suffix, which frees the (format, external id) key for the regrouped session.
 */
async function supersede(
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
}

async function setSupersededBy(tx: DbClient, sessionId: string, by: string): Promise<void> {
  const current = await tx.session.findUniqueOrThrow({ where: { id: sessionId }, select: { metadata: true } });
  const metadata =
    current.metadata !== null && typeof current.metadata === "object" && !Array.isArray(current.metadata)
      ? current.metadata
      : {};
  await tx.session.update({ where: { id: sessionId }, data: { metadata: { ...metadata, supersededBy: by } } });
}

/**
 * Stores OTLP spans (one request's) and rebuilds their sessions. Call inside a transaction.
 * `lock: false` skips the advisory locks: only for a client whose transactions already run one at a time.
 */
export function storeOtlpSpans(
  tx: DbClient,
  spans: readonly OtlpSpan[],
  format: OtlpFormat,
  { lock = true }: { lock?: boolean } = {},
): Promise<TraceIngestResult> {
  return storeAndRebuild(tx, otlpSource(format), spans, format, { lock, increment: true });
}

/** Stores OpenAI Agents SDK export items (traces and spans) and rebuilds their sessions. Call inside a transaction. */
export function storeAgentsItems(
  tx: DbClient,
  items: readonly AgentsItem[],
  { lock = true }: { lock?: boolean } = {},
): Promise<TraceIngestResult> {
  return storeAndRebuild(tx, agentsSource, items, "openai-agents", { lock, increment: true });
}

const TX = { timeout: 120_000, maxWait: 30_000 } as const;

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
  if (done) return done;
  return prisma.$transaction((tx) => storeAndRebuild(tx, source, items, format, { lock, increment: false }), TX);
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
