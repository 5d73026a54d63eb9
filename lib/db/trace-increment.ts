import { createHash } from "node:crypto";
import { gunzipSync, gzipSync } from "node:zlib";
import { storableSessions } from "@/lib/hostile/storable";
import {
  addDigests,
  aggregateOf,
  asAggregate,
  assemble,
  bySpanId,
  digestOf,
  factsOf,
  readSpan,
  sessionFields,
  sessionGroupKey,
  stepsOf,
  type OtlpSpan,
  type SpanAggregate,
  type SpanDigest,
} from "@/lib/ingest/otlp";
import type { ImportedSession, ImportFormat } from "@/lib/ingest/types";
import { canonicalJson, type Message, type SessionEvent } from "@/lib/replay";
import type { SqlTx } from "./sql";
import { ensureAgent, eventRows, insertEventRows, newId, rowText, searchTextFor, type SavedSession } from "./sessions";

// ---------------------------------------------------------------------------
// Incremental trace ingest: an OTLP export that adds spans to a session
// re-maps only the WINDOW those spans touch and rewrites only the events from
// where the window starts, and reads only what that needs, by indexed
// queries: never every span or event of the session.
//
// The window is a set of whole traces: the traces the export changes, plus
// every trace of the session with a span ending at or after the earliest
// start C among them (repeated until nothing new joins). Every other trace
// (the prefix) lies wholly before C, and the mapper's choices never cross from
// the prefix into the window: events are ordered by time, a trace's final
// answer and a tool's fallback match stay within its trace, and a tool tied by
// call id to a model call of another trace sends the export to the full
// rebuild. So the session's events are the stored events before the window
// (untouched), then the window's events, mapped with the prefix's last model
// call as the conversation they continue and the prefix's occurrence counts.
//
// What the session's own fields need from ALL its spans and events is kept on
// the session (`traceState`): the spans' aggregate (`SpanAggregate`, from
// which `sessionFields` computes them exactly as the full mapper does) and
// each tool name's and the incomplete events' counts. An export adds its spans
// to it and swaps the window's old events for its new ones. A session stored
// before it existed gets it from its rows on its first export.
//
// What an export reads: the rows of its traces (by trace id), the spans that
// reach into its window (by end time), the spans naming its call ids, the
// prefix's last model span (by start), the events from the window on (by
// time), the prefix's last occurrence of each call it maps (by cache key), and
// the session's first and last events of a kind (by seq).
//
// Whatever the plan cannot show to give the full rebuild's result exactly
// falls back to that rebuild (counted by reason in `fallbacks`): a regrouping
// (a trace moving between groups), a group without a session yet, a session
// with replays (kept and superseded), a span of the prefix in the millisecond
// of C, a request with attribute warnings, a repaired or refused value, rows
// stored before digests existed, events out of time order.
// ---------------------------------------------------------------------------

export type SpanRow = {
  id: string;
  groupKey: string;
  traceId: string;
  spanId: string;
  sessionId: string | null;
  digest: unknown;
};

export const idOf = (traceId: string, spanId: string) => `${traceId}\u0000${spanId}`;

/** A stored span as gzipped JSON, without its place in the request it came in (`path`). */
export function pack(item: { path?: string }): Uint8Array<ArrayBuffer> {
  const { path: _path, ...rest } = item;
  return new Uint8Array(gzipSync(JSON.stringify(rest), { level: 1 }));
}

export function unpack<T>(row: { payload: unknown; packed: Uint8Array | null }): T {
  if (row.packed) return { ...(JSON.parse(gunzipSync(row.packed).toString("utf8")) as object), path: "" } as T;
  return row.payload as T;
}

/** The items of some stored rows, by row id. */
export async function loadItems<T>(sql: SqlTx, ids: readonly string[]): Promise<Map<string, T>> {
  if (ids.length === 0) return new Map();
  // One row of JSON text: a row per span with its bytes through the client costs several times more.
  const [{ rows: text }] = await sql.query<[{ rows: string }]>`
    SELECT coalesce(json_agg(json_build_object('id', id, 'packed', encode(packed, 'base64'), 'payload', payload)), '[]')::text AS rows
    FROM "TraceSpan" WHERE id = ANY(${[...ids]}::text[])`;
  const rows = JSON.parse(text) as { id: string; packed: string | null; payload: unknown }[];
  return new Map(
    rows.map((r) => [
      r.id,
      unpack<T>({ payload: r.payload, packed: r.packed === null ? null : Buffer.from(r.packed, "base64") }),
    ]),
  );
}

export const isDigest = (v: unknown): v is SpanDigest =>
  v !== null && typeof v === "object" && !Array.isArray(v) && "traceId" in v;

/** The columns a span row carries beside its digest, for the indexed reads above. */
export function digestColumns(d: SpanDigest): { startNs: bigint; lastNs: bigint; role: string; callIds: string[] } {
  const start = BigInt(d.start);
  const end = d.end === null ? start : BigInt(d.end);
  return {
    startNs: start,
    lastNs: end > start ? end : start,
    role: d.role,
    callIds: d.role === "model" ? [...(d.requests ?? [])] : d.role === "tool" && d.callId ? [d.callId] : [],
  };
}

/** The columns of a row the indexed reads use, for a source that keeps no digest (Agents SDK). */
export type SpanColumns = { startNs: bigint; lastNs: bigint; role: string };

/** A new span row (the columns of `TraceSpan` an insert sets). */
export type NewSpanRow = {
  groupKey: string;
  traceId: string;
  spanId: string;
  sessionId: string | null;
  packed: Uint8Array;
  digest: SpanDigest | null;
  /** Without a digest, its columns (else none). */
  columns?: SpanColumns | null;
};

/** Span rows in one statement per ~4 MB (JSON records: one parameter, not one per column). */
export async function insertSpanRows(sql: SqlTx, rows: readonly NewSpanRow[]): Promise<void> {
  let batch: string[] = [];
  let bytes = 0;
  const flush = async () => {
    if (batch.length === 0) return;
    await sql.query`
      INSERT INTO "TraceSpan" (id, "groupKey", "traceId", "spanId", "sessionId", packed, digest, "startNs", "lastNs", role, "callIds")
      SELECT id, "groupKey", "traceId", "spanId", "sessionId", decode(packed, 'base64'), digest, "startNs"::bigint,
        "lastNs"::bigint, role, coalesce("callIds", ARRAY[]::text[])
      FROM jsonb_to_recordset(${`[${batch.join(",")}]`}::jsonb) AS x(id text, "groupKey" text, "traceId" text,
        "spanId" text, "sessionId" text, packed text, digest jsonb, "startNs" text, "lastNs" text, role text, "callIds" text[])
      ON CONFLICT ("groupKey", "traceId", "spanId") DO NOTHING`;
    batch = [];
    bytes = 0;
  };
  for (const row of rows) {
    const text = spanRecord(row);
    if (bytes + text.length > 4_000_000) await flush();
    batch.push(text);
    bytes += text.length + 1;
  }
  await flush();
}

/** A new span row as a JSON record for `jsonb_to_recordset`. */
function spanRecord(row: NewSpanRow): string {
  const columns = row.digest ? digestColumns(row.digest) : (row.columns ?? null);
  return JSON.stringify({
    id: newId(),
    groupKey: row.groupKey,
    traceId: row.traceId,
    spanId: row.spanId,
    sessionId: row.sessionId,
    packed: Buffer.from(row.packed).toString("base64"),
    digest: row.digest,
    startNs: columns ? String(columns.startNs) : null,
    lastNs: columns ? String(columns.lastNs) : null,
    role: columns?.role ?? null,
    callIds: columns && "callIds" in columns ? columns.callIds : null,
  });
}

// --- The session's stored aggregate ----------------------------------------------

/** What a session keeps for its next export (`Session.traceState`). */
export type TraceState = {
  spans: SpanAggregate;
  /** Tool calls per name among its events (`toolNames` and the fields' undeclared tools). */
  toolCalls: [string, number][];
  /** Events with status incomplete (the session's status). */
  incomplete: number;
  /** A hash of what `ensureAgent` was last given: unchanged, the agent, version and tools need no writes. */
  agentKey: string;
};

export function agentKeyOf(s: Pick<ImportedSession, "agent" | "agentVersion" | "tools">): string {
  return createHash("sha256")
    .update(canonicalJson([s.agent, s.agentVersion, s.tools]) ?? "")
    .digest("base64url");
}

/**
 * Whether two states give `sessionFields` the same agent, version and tools (so the same `agentKeyOf`): the
 * same sources of each (a tool definition is known by the span it came from, and a span's copy by its
 * digest does not change unless replaced) and the same tool call names.
 */
export function sameAgentInputs(
  a: Pick<TraceState, "spans" | "toolCalls">,
  b: Pick<TraceState, "spans" | "toolCalls">,
): boolean {
  const x = a.spans;
  const y = b.spans;
  const value = (r: { value: unknown } | null) => (r === null ? null : r.value);
  return (
    x.toolDefs.length === y.toolDefs.length &&
    x.toolDefs.every(([name, { key }], i) => y.toolDefs[i]![0] === name && y.toolDefs[i]![1].key === key) &&
    a.toolCalls.length === b.toolCalls.length &&
    a.toolCalls.every(([name], i) => b.toolCalls[i]![0] === name) &&
    x.conventions.join("\u0000") === y.conventions.join("\u0000") &&
    x.found.join("\u0000") === y.found.join("\u0000") &&
    x.explicitAdapter?.value === y.explicitAdapter?.value &&
    value(x.service) === value(y.service) &&
    value(x.agentOfAgent) === value(y.agentOfAgent) &&
    value(x.agentAny) === value(y.agentAny) &&
    value(x.version) === value(y.version)
  );
}

/** The state of a session written whole (by the full rebuild). */
export function traceStateOf(session: ImportedSession, digests: Iterable<SpanDigest>): TraceState {
  return {
    spans: withoutTraceIds(aggregateOf(digests)),
    ...eventCounts(null, session.events),
    agentKey: agentKeyOf(session),
  };
}

/**
 * The aggregate as a session keeps it: without its trace ids, which are rows of "SessionTrace" (an
 * export adds only its own: see "otlp_increment_write"), so that no export reads or writes them all.
 */
function withoutTraceIds(spans: SpanAggregate): SpanAggregate {
  return { ...spans, traceIds: [] };
}

export function eventCounts(
  base: Pick<TraceState, "toolCalls" | "incomplete"> | null,
  add: readonly { kind: string; name: string; status: string }[],
  remove: readonly { kind: string; name: string; status: string }[] = [],
): Pick<TraceState, "toolCalls" | "incomplete"> {
  const counts = new Map(base?.toolCalls ?? []);
  let incomplete = base?.incomplete ?? 0;
  for (const [list, sign] of [
    [add, 1],
    [remove, -1],
  ] as const)
    for (const e of list) {
      if (e.kind === "tool_call") counts.set(e.name, (counts.get(e.name) ?? 0) + sign);
      if (e.status === "incomplete") incomplete += sign;
    }
  return {
    toolCalls: [...counts].filter(([, n]) => n > 0).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)),
    incomplete,
  };
}

function asTraceState(value: unknown): TraceState | null {
  if (value === null || typeof value !== "object" || Array.isArray(value)) return null;
  const v = value as Partial<TraceState>;
  return asAggregate(v.spans) && Array.isArray(v.toolCalls) && typeof v.incomplete === "number"
    ? (value as TraceState)
    : null;
}

// --- The plan ----------------------------------------------------------------

type Timing = { start: bigint; end: bigint | null; key: string };
const timingOf = (d: SpanDigest): Timing => ({
  start: BigInt(d.start),
  end: d.end === null ? null : BigInt(d.end),
  key: `${d.traceId}:${d.spanId}`,
});
/** The mapper's order of model calls (start, then end, then key). */
function laterThan(a: Timing, b: Timing): boolean {
  if (a.start !== b.start) return a.start > b.start;
  const ae = a.end ?? -1n;
  const be = b.end ?? -1n;
  if (ae !== be) return ae > be;
  return a.key > b.key;
}

/** The group key (unprefixed) of one trace's spans, as `groupSpans` decides it: the session its earliest naming span names. */
function groupOfTrace(traceId: string, digests: Iterable<SpanDigest>): string {
  let named: { id: string; start: bigint; spanId: string } | null = null;
  for (const d of digests) {
    if (d.session === null) continue;
    const start = BigInt(d.start);
    if (!named || start < named.start || (start === named.start && d.spanId < named.spanId))
      named = { id: d.session, start, spanId: d.spanId };
  }
  return named ? `session:${named.id}` : `trace:${traceId}`;
}

/** A stored span row as the plan reads it. */
type LoadedRow = SpanRow & { packed: Uint8Array | null; payload: unknown };

/** The request's spans: new ones, better copies of stored ones, and the stored copies they were compared with. */
export type OtlpRequest = {
  /** Every span of the request, one copy each, by `idOf`. */
  fresh: ReadonlyMap<string, OtlpSpan>;
  better: (a: OtlpSpan, b: OtlpSpan) => boolean;
  fingerprint: (s: OtlpSpan) => string;
};

export type IncrementResult = {
  sessions: (SavedSession & { externalId: string })[];
  inserted: number;
  updated: number;
};

const PREFIX = "otlp:";
const FORMATS = ["otlp-json", "otlp-protobuf"];

/** Why requests took the full rebuild, counted (for the benchmark and the tests). */
export const fallbacks = new Map<string, number>();
function fallback(reason: string): null {
  fallbacks.set(reason, (fallbacks.get(reason) ?? 0) + 1);
  return null;
}
const INT_MAX = 2_147_483_647;

export type SessionRow = {
  id: string;
  externalId: string | null;
  format: string;
  metadata: unknown;
  traceState: unknown;
  eventCount: number;
  modelCallCount: number;
  toolCallCount: number;
  errorCount: number;
  inputTokens: number;
  outputTokens: number;
  costUsd: number;
  agentId: string;
  agentVersionId: string;
  replays: number;
};

/** Rows as one JSON text (one round trip, far cheaper than a row per span through the client). */
type JsonRow = Omit<LoadedRow, "packed"> & { packed: string | null };
const fromJson = (r: JsonRow): LoadedRow => ({
  ...r,
  packed: r.packed === null ? null : Buffer.from(r.packed, "base64"),
});

/**
 * Stores an OTLP request incrementally and returns what it did, or null (having
 * written nothing) when it must take the full rebuild. Call inside the request's
 * transaction, after its keys are locked.
 */
export async function ingestOtlpIncrement(sql: SqlTx, request: OtlpRequest): Promise<IncrementResult | null> {
  const { fresh } = request;
  const traceIds = [...new Set([...fresh.values()].map((s) => s.traceId))];
  const ownKeys = [...new Set([...fresh.values()].map((s) => sessionGroupKey(s)))];

  // 1. The stored rows of the request's traces (with their payloads: the window re-maps them), and the
  // sessions of every group the request reaches (the full rebuild reports them all), in one round trip.
  const [{ loaded }] = await sql.query<[{ loaded: string }]>`
    SELECT "otlp_increment_load"(${traceIds}::text[], ${ownKeys}::text[], ${FORMATS}::text[], ${PREFIX.length}::int) AS loaded`;
  const parsed = JSON.parse(loaded) as { rows: JsonRow[]; sessions: SessionRow[] };
  const stored = parsed.rows.map(fromJson);
  const sessionRows = parsed.sessions;
  if (!stored.every((r) => r.groupKey.startsWith(PREFIX))) return fallback("a trace id shared with another source");
  if (!stored.every((r) => isDigest(r.digest))) return fallback("rows stored before digests");
  // Nothing stored of its traces and no session of any group its spans name: every group it touches is new,
  // so the full rebuild builds them (known before reading a span: the rebuild reads them all anyway).
  if (stored.length === 0 && sessionRows.length === 0) return fallback("a group without a session yet");
  const storedById = new Map(stored.map((r) => [idOf(r.traceId, r.spanId), r]));

  // 2. New spans, and better copies of stored ones; the request's spans read (any warning is the full rebuild's refusal).
  const inserted: OtlpSpan[] = [];
  const replaced = new Map<string, { row: LoadedRow; span: OtlpSpan }>();
  for (const [id, span] of fresh) {
    const row = storedById.get(id);
    if (!row) inserted.push(span);
    else {
      const before = unpack<OtlpSpan>(row);
      if (request.better(span, before) && request.fingerprint(span) !== request.fingerprint(before))
        replaced.set(id, { row, span });
    }
  }
  const warnings: { path: string; message: string }[] = [];
  const readings = new Map<string, ReturnType<typeof readSpan>>();
  for (const span of [...inserted, ...[...replaced.values()].map((r) => r.span)])
    readings.set(idOf(span.traceId, span.spanId), readSpan(span, warnings));
  if (warnings.length > 0) return fallback("attribute warnings");
  const freshDigests = new Map([...readings].map(([id, r]) => [id, digestOf(r)]));

  // 3. Each trace's group, before and after: no regrouping.
  const rowsOfTrace = new Map<string, LoadedRow[]>();
  for (const r of stored) rowsOfTrace.set(r.traceId, [...(rowsOfTrace.get(r.traceId) ?? []), r]);
  const groupAfter = new Map<string, string>();
  for (const traceId of traceIds) {
    const rows = rowsOfTrace.get(traceId) ?? [];
    const digests = new Map(rows.map((r) => [idOf(r.traceId, r.spanId), r.digest as SpanDigest]));
    for (const [id, d] of freshDigests) if (d.traceId === traceId) digests.set(id, d);
    const key = groupOfTrace(traceId, digests.values());
    if (rows.some((r) => r.groupKey !== PREFIX + key)) return fallback("regrouping");
    groupAfter.set(traceId, key);
  }
  const reached = new Set([...groupAfter.values(), ...ownKeys]);

  // 4. A plan for every group the request changes.
  const touchedTraces = new Set([...freshDigests.values()].map((d) => d.traceId));
  const touchedKeys = [...new Set([...touchedTraces].map((t) => groupAfter.get(t)!))].sort();
  const sessionOfKey = new Map(sessionRows.map((s) => [s.externalId ?? "", s]));
  const plans: GroupPlan[] = [];
  for (const key of touchedKeys) {
    const session = sessionOfKey.get(key);
    if (!session) return fallback("a group without a session yet");
    const traces = [...touchedTraces].filter((t) => groupAfter.get(t) === key);
    if (traces.some((t) => (rowsOfTrace.get(t) ?? []).some((r) => r.sessionId !== session.id)))
      return fallback("rows of another session");
    const plan = await planGroup(sql, key, session, traces, rowsOfTrace, freshDigests, readings, replaced);
    if (!plan) return null;
    plans.push(plan);
  }

  // 5. Writes: per group, its session, its events from the window on and its new spans in one statement.
  for (const plan of plans) {
    const spans = inserted
      .filter((span) => groupAfter.get(span.traceId) === plan.key)
      .map((span) => ({
        groupKey: PREFIX + plan.key,
        traceId: span.traceId,
        spanId: span.spanId,
        sessionId: plan.session.id,
        packed: pack(span),
        digest: freshDigests.get(idOf(span.traceId, span.spanId))!,
      }));
    await writePlan(sql, plan, spans);
  }
  for (const [id, { row, span }] of replaced) {
    const digest = freshDigests.get(id)!;
    await replaceRow(sql, row.id, pack(span), digest, digestColumns(digest));
  }

  const touched = new Map(plans.map((p) => [p.session.id, p]));
  const sessions = sessionRows
    .filter((s) => reached.has(s.externalId ?? ""))
    .map((s) => ({
      id: s.id,
      eventCount: touched.get(s.id)?.eventCount ?? s.eventCount,
      externalId: s.externalId ?? "",
    }))
    .sort((a, b) => (a.externalId < b.externalId ? -1 : 1));
  return { sessions, inserted: inserted.length, updated: replaced.size };
}

/** One group's incremental change, computed before anything is written (`S`: the state its session keeps). */
export type GroupPlan<S = TraceState> = {
  key: string;
  session: SessionRow;
  from: number;
  previousModel: { seq: number; input: unknown } | null;
  tail: SessionEvent[];
  storedTail: StoredEvent[];
  fields: Omit<ImportedSession, "events">;
  summary: {
    eventCount: number;
    modelCallCount: number;
    toolCallCount: number;
    errorCount: number;
    inputTokens: number;
    outputTokens: number;
    costUsd: number;
    toolNames: string[];
    status: string;
  };
  searchText: string;
  eventCount: number;
  state: S;
  ensure: boolean;
};

/** A stored event as read back as JSON (`to_jsonb` of the row). */
export type StoredEvent = {
  id: string;
  seq: number;
  kind: string;
  name: string;
  input: unknown;
  output: unknown;
  error: unknown;
  status: string;
  startedAt: string | null;
  durationMs: number | null;
  inputTokens: number | null;
  outputTokens: number | null;
  costUsd: number | null;
  parentSeq: number | null;
  cacheKey: string | null;
  occurrence: number | null;
  inputPrefixSeq: number | null;
  inputPrefixCount: number | null;
  inputDigest: string | null;
};

export type Anchor = {
  seq: number;
  kind: string;
  name: string;
  status: string;
  input: unknown;
  output: unknown;
  inputPrefixSeq: number | null;
};

/** What a window needs of the rest of its session, read in one round trip (see `readWindow`). */
type WindowRead = {
  /** Other traces with a span ending in or after C's millisecond (their latest end). */
  reaching: { traceId: string; last: string }[];
  /** Spans of other traces naming one of the window's call ids. */
  outside: { traceId: string; role: string | null; callIds: string[] }[];
  /** The stored events from C's millisecond on, in seq order. */
  tail: StoredEvent[];
  from: number;
  fm: number | null;
  fu: number | null;
  lf: number | null;
  lm: number | null;
  anchors: Anchor[];
  /** The prefix's latest-starting model spans. */
  lastModel: JsonRow[];
  /** The occurrence of each cache key's last finished call before the window. */
  occurrences: { k: string; occurrence: number | null }[];
};

async function readWindow(
  sql: SqlTx,
  sessionId: string,
  eventCount: number,
  c: bigint,
  window: readonly string[],
  ids: readonly string[],
  keys: readonly string[],
): Promise<WindowRead> {
  const floor = (c / 1_000_000n) * 1_000_000n;
  const cut = new Date(Number(c / 1_000_000n));
  const [read] = await sql.query<[{ read: string }]>`
    SELECT "otlp_increment_window"(${sessionId}::text, ${eventCount}::int, ${cut}::timestamptz, ${floor}::bigint,
      ${c}::bigint, ${[...window]}::text[], ${[...ids]}::text[], ${[...keys]}::text[]) AS read`;
  return JSON.parse(read.read) as WindowRead;
}

async function planGroup(
  sql: SqlTx,
  key: string,
  session: SessionRow,
  traces: readonly string[],
  rowsOfTrace: ReadonlyMap<string, LoadedRow[]>,
  freshDigests: ReadonlyMap<string, SpanDigest>,
  freshReadings: ReadonlyMap<string, ReturnType<typeof readSpan>>,
  replaced: ReadonlyMap<string, { row: LoadedRow; span: OtlpSpan }>,
): Promise<GroupPlan | null> {
  if (session.replays > 0) return fallback("a session with replays");
  const meta = session.metadata as Record<string, unknown> | null;
  if (meta && typeof meta === "object" && "repairedCharacters" in meta) return fallback("repaired characters");
  const sessionId = session.id;

  // The window's rows so far: every stored row of its traces, and the request's spans.
  const windowRows = new Map<string, LoadedRow>();
  for (const t of traces) for (const r of rowsOfTrace.get(t) ?? []) windowRows.set(idOf(r.traceId, r.spanId), r);
  const window = new Set(traces);
  const ignored: { path: string; message: string }[] = [];
  const storedReadings = new Map<string, ReturnType<typeof readSpan>>();

  // The window: whole traces, from the earliest start C of the window's spans (before and after the request)
  // on. Read with it: what the plan needs of the rest of the session (see `readWindow`).
  let c = 0n;
  let read: WindowRead;
  let digestsAfter: SpanDigest[];
  let digestsBefore: SpanDigest[];
  let readings: ReturnType<typeof readSpan>[];
  for (;;) {
    const after = new Map([...windowRows].map(([id, r]) => [id, r.digest as SpanDigest]));
    for (const [id, d] of freshDigests) if (window.has(d.traceId)) after.set(id, d);
    digestsAfter = [...after.values()];
    digestsBefore = [...windowRows.values()].map((r) => r.digest as SpanDigest);
    c = [...digestsAfter, ...digestsBefore].reduce(
      (m, d) => (BigInt(d.start) < m ? BigInt(d.start) : m),
      BigInt(digestsAfter[0]!.start),
    );
    const ids = [
      ...new Set(
        [...digestsAfter, ...digestsBefore].flatMap((d) =>
          d.role === "model" ? (d.requests ?? []) : d.role === "tool" && d.callId ? [d.callId] : [],
        ),
      ),
    ];
    // The window's spans read, and its calls' cache keys (the same whatever conversation it continues).
    for (const [id, r] of windowRows)
      if (!storedReadings.has(id)) storedReadings.set(id, readSpan(unpack<OtlpSpan>(r), ignored));
    readings = [
      ...new Map([
        ...[...windowRows.keys()].map((id) => [id, storedReadings.get(id)!] as const),
        ...[...freshReadings].filter(([, r]) => window.has(r.span.traceId)),
      ]).values(),
    ].sort((a, b) => bySpanId(a.span, b.span));
    const keys = [
      ...new Set(
        assemble(stepsOf(readings)).flatMap((e) => (e.cacheKey !== null && e.occurrence !== null ? [e.cacheKey] : [])),
      ),
    ];
    read = await readWindow(sql, sessionId, session.eventCount, c, [...window], ids, keys);
    // Spans of other traces that end in or after C's millisecond: their traces join, or the split cannot be read off the events.
    if (read.reaching.length === 0) break;
    if (read.reaching.some((r) => BigInt(r.last) < c))
      return fallback("a prefix span in the window's first millisecond");
    const joining = read.reaching.map((r) => r.traceId);
    const [{ rows: text }] = await sql.query<[{ rows: string }]>`
      SELECT coalesce(json_agg(json_build_object('id', id, 'groupKey', "groupKey", 'traceId', "traceId",
        'spanId', "spanId", 'sessionId', "sessionId", 'digest', digest, 'packed', encode(packed, 'base64'),
        'payload', payload)), '[]')::text AS rows
      FROM "TraceSpan" WHERE "traceId" = ANY(${joining}::text[])`;
    const rows = (JSON.parse(text) as JsonRow[]).map(fromJson);
    if (rows.some((r) => r.sessionId !== sessionId || !isDigest(r.digest))) return fallback("window rows unreadable");
    for (const r of rows) windowRows.set(idOf(r.traceId, r.spanId), r);
    for (const t of joining) window.add(t);
  }

  // No tool tied by call id across the window's edge, before or after the request.
  const outsideDigests = read.outside.map((r) => ({
    traceId: r.traceId,
    role: r.role,
    requests: r.role === "model" ? r.callIds : [],
    callId: r.role === "tool" ? (r.callIds[0] ?? null) : null,
  }));
  for (const state of [digestsBefore, digestsAfter]) {
    const all = [...state, ...outsideDigests];
    const requesters = new Map<string, Set<string>>();
    for (const d of all)
      if (d.role === "model")
        for (const id of d.requests ?? []) {
          const set = requesters.get(id) ?? new Set<string>();
          set.add(d.traceId);
          requesters.set(id, set);
        }
    for (const d of all) {
      if (d.role !== "tool" || !d.callId) continue;
      const traces = requesters.get(d.callId);
      if (!traces || traces.has(d.traceId)) continue;
      const inside = window.has(d.traceId);
      for (const t of traces) if (window.has(t) !== inside) return fallback("a call id tied across the window's edge");
    }
  }

  // The stored events from C's millisecond on are the window's; those before it are the prefix's, and stay.
  const storedTail = read.tail;
  const from = read.from;
  if (storedTail.some((e, i) => e.seq !== from + i)) return fallback("events out of time order");

  // The aggregate before the request (a session stored before aggregates gets it from its rows once).
  // (Its trace ids are rows of their own: those of the spans added here are added as it is written.)
  let state = asTraceState(session.traceState);
  if (state) state = { ...state, spans: withoutTraceIds(state.spans) };
  else {
    state = await stateFromRows(sql, sessionId, from, storedTail);
    if (!state) return fallback("rows stored before digests");
  }
  const count = (list: readonly { role?: string | null; kind?: string }[], what: string) =>
    list.filter((x) => x.role === what || x.kind === what).length;
  if (session.modelCallCount - count(storedTail, "model_call") !== state.spans.models - count(digestsBefore, "model"))
    return fallback("prefix model calls do not match");
  if (session.toolCallCount - count(storedTail, "tool_call") !== state.spans.tools - count(digestsBefore, "tool"))
    return fallback("prefix tool calls do not match");
  const anchors = read.anchors;
  if (anchors.some((a) => a.seq !== from - 1 && a.inputPrefixSeq !== null))
    return fallback("first events stored with a prefix");

  // The conversation the window continues: the prefix's last model call, read from its span.
  let previous: Message[] | null = null;
  let previousModel: GroupPlan["previousModel"] = null;
  if (read.lm !== null) {
    let last: LoadedRow | null = null;
    for (const r of read.lastModel.map(fromJson))
      if (!last || laterThan(timingOf(r.digest as SpanDigest), timingOf(last.digest as SpanDigest))) last = r;
    if (!last) return fallback("prefix model span not found");
    const reading = readSpan(unpack<OtlpSpan>(last), []);
    if (reading.role !== "model") return fallback("prefix model span unreadable");
    previous = [...reading.step.input.messages, ...(reading.step.output ? [reading.step.output] : [])];
    previousModel = { seq: read.lm, input: reading.step.input };
  }

  // The window's events, numbered after the prefix, occurrences counted on from the prefix's.
  const seen = new Map<string, number>();
  for (const r of read.occurrences) if (r.occurrence !== null) seen.set(r.k, r.occurrence + 1);
  const tail = assemble(stepsOf(readings), previous).map((e) => ({
    ...e,
    seq: e.seq + from,
    parentSeq: e.parentSeq === null ? null : e.parentSeq + from,
    occurrence:
      e.occurrence === null || e.cacheKey === null ? e.occurrence : e.occurrence + (seen.get(e.cacheKey) ?? 0),
  }));

  // The aggregate after the request: the new spans added (a replaced span's old copy cannot be taken out: re-read).
  const newDigests = [...freshDigests.values()].filter((d) => window.has(d.traceId));
  const replacedHere = [...replaced.keys()].some(
    (id) => freshDigests.get(id) && window.has(freshDigests.get(id)!.traceId),
  );
  let spans: SpanAggregate;
  if (replacedHere) {
    const all = await sql.query<{ traceId: string; spanId: string; digest: unknown }[]>`
      SELECT "traceId", "spanId", digest FROM "TraceSpan" WHERE "sessionId" = ${sessionId}`;
    const digests = new Map(all.map((r) => [idOf(r.traceId, r.spanId), r.digest as SpanDigest]));
    for (const d of newDigests) digests.set(idOf(d.traceId, d.spanId), d);
    spans = aggregateOf(digests.values());
  } else
    spans = addDigests(
      state.spans,
      newDigests.filter((d) => !windowRows.has(idOf(d.traceId, d.spanId))),
    );
  const counts = eventCounts(state, tail, storedTail);

  // The session's fields, from the aggregate and the two facts about its events.
  const firstModelInput = anchors.find((a) => a.seq === read.fm)?.input ?? factsOf(tail).firstModelInput;
  const format = session.format as ImportFormat;
  const fields = sessionFields(
    key,
    spans,
    { firstModelInput, toolCallNames: counts.toolCalls.map(([n]) => n) },
    format,
  );
  if (!fields) return fallback("no session fields");
  const checked = storableSessions([{ ...fields, format, events: tail }]);
  if (!checked.ok || "repairedCharacters" in checked.sessions[0]!.metadata)
    return fallback("unstorable or repaired values");

  const figures = windowFigures(session, from, tail, storedTail, anchors, counts, [read.fm, read.fu, read.lf]);
  if (typeof figures === "string") return fallback(figures);
  const { summary, searchEvents } = figures;
  const searchText = searchTextFor({ ...fields, format, events: searchEvents });
  // The hash of the agent, version and tools is kept while nothing it is made of changed (hashing the
  // tools' schemas costs more than most of an export's planning).
  const agentKey =
    state.agentKey !== "" && !replacedHere && sameAgentInputs(state, { spans, ...counts })
      ? state.agentKey
      : agentKeyOf(fields);
  return {
    key,
    session,
    from,
    previousModel,
    tail,
    storedTail,
    fields,
    summary,
    searchText,
    eventCount: from + tail.length,
    state: { spans: withoutTraceIds(spans), ...counts, agentKey },
    ensure: agentKey !== state.agentKey,
  };
}

/**
 * What a window's plan writes on its session row besides the events: the stored figures less the
 * window's old events plus its new ones, and the events the search text is made of (the prefix's
 * anchors `searchSeqs` name, then the window's). A string: why this cannot be done by difference.
 * Costs are summed in event order, so only a session without any is updated by difference exactly
 * (neither trace source carries costs).
 */
export function windowFigures(
  session: SessionRow,
  from: number,
  tail: readonly SessionEvent[],
  storedTail: readonly StoredEvent[],
  anchors: readonly Anchor[],
  counts: Pick<TraceState, "toolCalls" | "incomplete">,
  searchSeqs: readonly (number | null)[],
): { summary: GroupPlan["summary"]; searchEvents: SessionEvent[] } | string {
  if (
    session.costUsd !== 0 ||
    storedTail.some((e) => (e.costUsd ?? 0) !== 0) ||
    tail.some((e) => (e.usage?.costUsd ?? 0) !== 0)
  )
    return "costs";
  const minus = (f: (e: StoredEvent) => number) => storedTail.reduce((n, e) => n + f(e), 0);
  const plus = (f: (e: SessionEvent) => number) => tail.reduce((n, e) => n + f(e), 0);
  const inputTokens = session.inputTokens - minus((e) => e.inputTokens ?? 0) + plus((e) => e.usage?.inputTokens ?? 0);
  const outputTokens =
    session.outputTokens - minus((e) => e.outputTokens ?? 0) + plus((e) => e.usage?.outputTokens ?? 0);
  if (inputTokens > INT_MAX || outputTokens > INT_MAX) return "token totals out of range";
  const of = (kind: string) => (e: { kind: string }) => (e.kind === kind ? 1 : 0);
  const failed = (e: { status: string }) => (e.status === "failed" ? 1 : 0);
  const last = tail.at(-1) ?? anchors.find((a) => a.seq === from - 1);
  const summary = {
    eventCount: from + tail.length,
    modelCallCount: session.modelCallCount - minus(of("model_call")) + plus(of("model_call")),
    toolCallCount: session.toolCallCount - minus(of("tool_call")) + plus(of("tool_call")),
    errorCount: session.errorCount - minus(failed) + plus(failed),
    inputTokens,
    outputTokens,
    costUsd: 0,
    toolNames: counts.toolCalls.map(([n]) => n),
    status:
      counts.incomplete > 0
        ? "incomplete"
        : last?.kind === "final_output" || (last !== undefined && last.status === "completed")
          ? "completed"
          : "failed",
  };
  const searchEvents = [
    ...anchors
      .filter((a) => searchSeqs.includes(a.seq))
      .sort((a, b) => a.seq - b.seq)
      .map((a) => ({ ...anchorAsEvent(a), input: a.input, output: a.output })),
    ...tail,
  ];
  return { summary, searchEvents };
}

/** The state of a session stored before `traceState`: its spans' digests and its events' counts, read once. */
async function stateFromRows(
  sql: SqlTx,
  sessionId: string,
  from: number,
  storedTail: readonly { kind: string; name: string; status: string }[],
): Promise<TraceState | null> {
  const rows = await sql.query<{ digest: unknown }[]>`
    SELECT digest FROM "TraceSpan" WHERE "sessionId" = ${sessionId}`;
  if (!rows.every((r) => isDigest(r.digest))) return null;
  const prefix = await sql.query<{ kind: string; name: string; status: string }[]>`
    SELECT kind, name, status FROM "Event" WHERE "sessionId" = ${sessionId} AND seq < ${from}::int`;
  return {
    spans: aggregateOf(rows.map((r) => r.digest as SpanDigest)),
    ...eventCounts(null, [...prefix, ...storedTail]),
    agentKey: "",
  };
}

export function anchorAsEvent(e: { seq: number; kind: string; name: string; status: string }): SessionEvent {
  return {
    seq: e.seq,
    kind: e.kind as SessionEvent["kind"],
    name: e.name,
    input: null,
    output: null,
    error: null,
    status: e.status as SessionEvent["status"],
    startedAt: null,
    durationMs: null,
    usage: null,
    parentSeq: null,
    cacheKey: null,
    occurrence: null,
  };
}

/** A stored span row given a better copy of its span (its packed bytes, digest and read columns). */
export async function replaceRow(
  sql: SqlTx,
  id: string,
  packed: Uint8Array,
  digest: SpanDigest | null,
  columns: (SpanColumns & { callIds?: string[] }) | null,
): Promise<void> {
  await sql.query`
    UPDATE "TraceSpan" SET payload = NULL, packed = ${Buffer.from(packed)}::bytea,
      digest = CASE WHEN ${digest !== null}::boolean THEN ${JSON.stringify(digest)}::jsonb ELSE digest END,
      "startNs" = CASE WHEN ${columns !== null}::boolean THEN ${columns ? String(columns.startNs) : null}::bigint ELSE "startNs" END,
      "lastNs" = CASE WHEN ${columns !== null}::boolean THEN ${columns ? String(columns.lastNs) : null}::bigint ELSE "lastNs" END,
      role = CASE WHEN ${columns !== null}::boolean THEN ${columns?.role ?? null}::text ELSE role END,
      "callIds" = CASE WHEN ${columns?.callIds !== undefined}::boolean THEN ${columns?.callIds ?? []}::text[] ELSE "callIds" END
    WHERE id = ${id}::text`;
}

/**
 * A group's writes in one statement: the session row, its events from the window on as a change (rows
 * whose content is the same stay, changed ones are updated in place, new ones inserted, those past the
 * new end deleted) and its new spans.
 */
export async function writePlan<S>(sql: SqlTx, plan: GroupPlan<S>, spans: readonly NewSpanRow[]): Promise<void> {
  const s = plan.fields;
  const ids = plan.ensure
    ? await ensureAgent(sql, { ...s, events: plan.tail })
    : { agentId: plan.session.agentId, agentVersionId: plan.session.agentVersionId };
  const rows = eventRows(plan.session.id, plan.tail, plan.previousModel);
  const storedBySeq = new Map(plan.storedTail.map((r) => [r.seq, r]));
  const write = rows.filter((row) => {
    const before = storedBySeq.get(row.seq);
    return !before || rowText(before) !== rowText(row);
  });
  const events = `[${write.map((row) => JSON.stringify({ ...row, id: newId() })).join(",")}]`;
  const spanRows = `[${spans.map(spanRecord).join(",")}]`;
  const small = events.length + spanRows.length <= 4_000_000;
  if (!small) {
    // Too much for one statement (the embedded database aborts on huge ones): the same, in parts.
    await insertSpanRows(sql, spans);
    const stale = [
      ...write.flatMap((r) => storedBySeq.get(r.seq)?.id ?? []),
      ...plan.storedTail.filter((r) => r.seq >= plan.summary.eventCount).map((r) => r.id),
    ];
    if (stale.length > 0) await sql.query`DELETE FROM "Event" WHERE id = ANY(${stale}::text[])`;
    await insertEventRows(sql, write);
  }
  const startedAt = s.startedAt ? new Date(s.startedAt) : null;
  const endedAt = s.endedAt ? new Date(s.endedAt) : null;
  const durationMs = s.startedAt && s.endedAt ? Math.max(0, Date.parse(s.endedAt) - Date.parse(s.startedAt)) : null;
  const m = plan.summary;
  await sql.query`
    SELECT "otlp_increment_write"(${plan.session.id}::text, ${m.eventCount}::int, ${small}::boolean,
      ${small ? events : "[]"}::jsonb, ${small ? spanRows : "[]"}::jsonb, ${ids.agentId}::text,
      ${ids.agentVersionId}::text, ${s.title}::text, ${startedAt}::timestamptz, ${endedAt}::timestamptz,
      ${durationMs}::int, ${m.modelCallCount}::int, ${m.toolCallCount}::int, ${m.errorCount}::int,
      ${m.inputTokens}::int, ${m.outputTokens}::int, ${m.costUsd}::float8, ${m.toolNames}::text[], ${m.status}::text,
      ${plan.searchText}::text, ${JSON.stringify(s.metadata)}::jsonb, ${JSON.stringify(plan.state)}::jsonb) AS n`;
}
