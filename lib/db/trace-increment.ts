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
import type { DbClient } from "./client";
import { Prisma } from "./generated/client";
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
export async function loadItems<T>(tx: DbClient, ids: readonly string[]): Promise<Map<string, T>> {
  if (ids.length === 0) return new Map();
  const rows = await tx.traceSpan.findMany({
    where: { id: { in: [...ids] } },
    select: { id: true, payload: true, packed: true },
  });
  return new Map(rows.map((r) => [r.id, unpack<T>(r)]));
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

/** A new span row (the columns of `TraceSpan` an insert sets). */
export type NewSpanRow = {
  groupKey: string;
  traceId: string;
  spanId: string;
  sessionId: string | null;
  packed: Uint8Array;
  digest: SpanDigest | null;
};

/** Span rows in one statement per ~4 MB (JSON records: one parameter, not one per column). */
export async function insertSpanRows(tx: DbClient, rows: readonly NewSpanRow[]): Promise<void> {
  let batch: string[] = [];
  let bytes = 0;
  const flush = async () => {
    if (batch.length === 0) return;
    await tx.$executeRaw`
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
    const columns = row.digest ? digestColumns(row.digest) : null;
    const text = JSON.stringify({
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
      callIds: columns?.callIds ?? null,
    });
    if (bytes + text.length > 4_000_000) await flush();
    batch.push(text);
    bytes += text.length + 1;
  }
  await flush();
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

/** The state of a session written whole (by the full rebuild). */
export function traceStateOf(session: ImportedSession, digests: Iterable<SpanDigest>): TraceState {
  return {
    spans: aggregateOf(digests),
    ...eventCounts(null, session.events),
    agentKey: agentKeyOf(session),
  };
}

function eventCounts(
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

type SessionRow = {
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

/**
 * Stores an OTLP request incrementally and returns what it did, or null (having
 * written nothing) when it must take the full rebuild. Call inside the request's
 * transaction, after its keys are locked.
 */
export async function ingestOtlpIncrement(tx: DbClient, request: OtlpRequest): Promise<IncrementResult | null> {
  const { fresh } = request;
  const traceIds = [...new Set([...fresh.values()].map((s) => s.traceId))];

  // 1. The stored rows of the request's traces, with their payloads (the window re-maps them).
  const stored = await tx.$queryRaw<LoadedRow[]>`
    SELECT id, "groupKey", "traceId", "spanId", "sessionId", digest, packed, payload
    FROM "TraceSpan" WHERE "traceId" = ANY(${traceIds}::text[])`;
  if (!stored.every((r) => r.groupKey.startsWith(PREFIX))) return fallback("a trace id shared with another source");
  if (!stored.every((r) => isDigest(r.digest))) return fallback("rows stored before digests");
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

  // 4. The sessions of every group the request reaches (the full rebuild reports them all).
  const touchedTraces = new Set([...freshDigests.values()].map((d) => d.traceId));
  const touchedKeys = [...new Set([...touchedTraces].map((t) => groupAfter.get(t)!))].sort();
  const reached = new Set([...groupAfter.values(), ...[...fresh.values()].map((s) => sessionGroupKey(s))]);
  const sessionRows = await tx.$queryRaw<SessionRow[]>`
    SELECT s.id, s."externalId", s.format, s.metadata, s."traceState", s."eventCount", s."modelCallCount",
      s."toolCallCount", s."errorCount", s."inputTokens", s."outputTokens", s."costUsd", s."agentId", s."agentVersionId",
      (SELECT count(*)::int FROM "Replay" r WHERE r."sessionId" = s.id) AS replays
    FROM "Session" s WHERE s.format = ANY(${FORMATS}::text[]) AND s."externalId" = ANY(${[...reached]}::text[])`;
  const sessionOfKey = new Map(sessionRows.map((s) => [s.externalId ?? "", s]));

  const plans: GroupPlan[] = [];
  for (const key of touchedKeys) {
    const session = sessionOfKey.get(key);
    if (!session) return fallback("a group without a session yet");
    const traces = [...touchedTraces].filter((t) => groupAfter.get(t) === key);
    if (traces.some((t) => (rowsOfTrace.get(t) ?? []).some((r) => r.sessionId !== session.id)))
      return fallback("rows of another session");
    const plan = await planGroup(tx, key, session, traces, rowsOfTrace, freshDigests, readings, replaced);
    if (!plan) return null;
    plans.push(plan);
  }

  // 5. Writes: the sessions, their events from the window on, the spans.
  for (const plan of plans) await writePlan(tx, plan);
  const sessionIdOfKey = new Map(plans.map((p) => [p.key, p.session.id]));
  await insertSpanRows(
    tx,
    inserted.map((span) => {
      const key = groupAfter.get(span.traceId)!;
      return {
        groupKey: PREFIX + key,
        traceId: span.traceId,
        spanId: span.spanId,
        sessionId: sessionIdOfKey.get(key) ?? null,
        packed: pack(span),
        digest: freshDigests.get(idOf(span.traceId, span.spanId))!,
      };
    }),
  );
  for (const [id, { row, span }] of replaced) {
    const digest = freshDigests.get(id)!;
    await tx.traceSpan.update({
      where: { id: row.id },
      data: {
        payload: Prisma.DbNull,
        packed: pack(span),
        digest: digest as unknown as Prisma.InputJsonValue,
        ...digestColumns(digest),
      },
    });
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

/** One group's incremental change, computed before anything is written. */
type GroupPlan = {
  key: string;
  session: SessionRow;
  from: number;
  previousModel: { seq: number; input: unknown } | null;
  tail: SessionEvent[];
  storedTail: EventRow[];
  fields: Omit<ImportedSession, "events">;
  summary: Record<string, unknown>;
  searchText: string;
  eventCount: number;
  state: TraceState;
  ensure: boolean;
};

type EventRow = Awaited<ReturnType<DbClient["event"]["findMany"]>>[number];

/** A row of another trace that names one of the window's call ids. */
type CallRow = { traceId: string; role: string | null; callIds: string[] };

async function planGroup(
  tx: DbClient,
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
  const after = (): SpanDigest[] => {
    const out = new Map([...windowRows].map(([id, r]) => [id, r.digest as SpanDigest]));
    for (const [id, d] of freshDigests) if (window.has(d.traceId)) out.set(id, d);
    return [...out.values()];
  };
  const before = (): SpanDigest[] => [...windowRows.values()].map((r) => r.digest as SpanDigest);

  // The window: whole traces, from the earliest start C of the window's spans (before and after the request) on.
  let c = 0n;
  for (;;) {
    c = [...after(), ...before()].reduce(
      (m, d) => (BigInt(d.start) < m ? BigInt(d.start) : m),
      BigInt(after()[0]!.start),
    );
    // Spans of other traces that end in or after C's millisecond: their traces join, or the split cannot be read off the events.
    const floor = (c / 1_000_000n) * 1_000_000n;
    const reaching = await tx.$queryRaw<{ traceId: string; last: bigint }[]>`
      SELECT "traceId", max("lastNs") AS last FROM "TraceSpan"
      WHERE "sessionId" = ${sessionId} AND "lastNs" >= ${floor} AND NOT ("traceId" = ANY(${[...window]}::text[]))
      GROUP BY "traceId"`;
    if (reaching.length === 0) break;
    if (reaching.some((r) => BigInt(r.last) < c)) return fallback("a prefix span in the window's first millisecond");
    const joining = reaching.map((r) => r.traceId);
    const rows = await tx.$queryRaw<LoadedRow[]>`
      SELECT id, "groupKey", "traceId", "spanId", "sessionId", digest, packed, payload
      FROM "TraceSpan" WHERE "traceId" = ANY(${joining}::text[])`;
    if (rows.some((r) => r.sessionId !== sessionId || !isDigest(r.digest))) return fallback("window rows unreadable");
    for (const r of rows) windowRows.set(idOf(r.traceId, r.spanId), r);
    for (const t of joining) window.add(t);
  }
  const digestsAfter = after();
  const digestsBefore = before();

  // No tool tied by call id across the window's edge, before or after the request.
  const ids = [
    ...new Set(
      [...digestsAfter, ...digestsBefore].flatMap((d) =>
        d.role === "model" ? (d.requests ?? []) : d.role === "tool" && d.callId ? [d.callId] : [],
      ),
    ),
  ];
  const outside =
    ids.length === 0
      ? []
      : await tx.$queryRaw<CallRow[]>`
          SELECT "traceId", role, "callIds" FROM "TraceSpan"
          WHERE "callIds" && ${ids}::text[] AND "sessionId" = ${sessionId} AND NOT ("traceId" = ANY(${[...window]}::text[]))`;
  const outsideDigests = outside.map((r) => ({
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
  const cutMs = new Date(Number(c / 1_000_000n));
  const storedTail = await tx.event.findMany({
    where: { sessionId, OR: [{ startedAt: { gte: cutMs } }, { startedAt: null }] },
    orderBy: { seq: "asc" },
  });
  const from = session.eventCount - storedTail.length;
  if (storedTail.some((e, i) => e.seq !== from + i)) return fallback("events out of time order");

  // The aggregate before the request (a session stored before aggregates gets it from its rows once).
  let state = asTraceState(session.traceState);
  if (!state) {
    state = await stateFromRows(tx, sessionId, from, storedTail);
    if (!state) return fallback("rows stored before digests");
  }
  const windowBefore = digestsBefore;
  const count = (list: readonly { role?: string | null; kind?: string }[], what: string) =>
    list.filter((x) => x.role === what || x.kind === what).length;
  if (session.modelCallCount - count(storedTail, "model_call") !== state.spans.models - count(windowBefore, "model"))
    return fallback("prefix model calls do not match");
  if (session.toolCallCount - count(storedTail, "tool_call") !== state.spans.tools - count(windowBefore, "tool"))
    return fallback("prefix tool calls do not match");

  // The prefix's facts in one round trip: its first model call and user turn, last final answer and model call, last event.
  const [facts] = await tx.$queryRaw<[{ fm: number | null; fu: number | null; lf: number | null; lm: number | null }]>`
    SELECT
      (SELECT min(seq) FROM "Event" WHERE "sessionId" = ${sessionId} AND kind = 'model_call' AND seq < ${from}) AS fm,
      (SELECT min(seq) FROM "Event" WHERE "sessionId" = ${sessionId} AND kind = 'user_message' AND seq < ${from}) AS fu,
      (SELECT max(seq) FROM "Event" WHERE "sessionId" = ${sessionId} AND kind = 'final_output' AND seq < ${from}) AS lf,
      (SELECT max(seq) FROM "Event" WHERE "sessionId" = ${sessionId} AND kind = 'model_call' AND seq < ${from}) AS lm`;
  const wanted = [facts.fm, facts.fu, facts.lf, from > 0 ? from - 1 : null].filter((s): s is number => s !== null);
  const anchors = wanted.length
    ? await tx.event.findMany({
        where: { sessionId, seq: { in: [...new Set(wanted)] } },
        select: { seq: true, kind: true, name: true, status: true, input: true, output: true, inputPrefixSeq: true },
        orderBy: { seq: "asc" },
      })
    : [];
  if (anchors.some((a) => a.seq !== from - 1 && a.inputPrefixSeq !== null))
    return fallback("first events stored with a prefix");

  // The conversation the window continues: the prefix's last model call, read from its span.
  let previous: Message[] | null = null;
  let previousModel: GroupPlan["previousModel"] = null;
  if (facts.lm !== null) {
    const lastRows = await tx.$queryRaw<LoadedRow[]>`
      SELECT id, "groupKey", "traceId", "spanId", "sessionId", digest, packed, payload FROM "TraceSpan"
      WHERE "sessionId" = ${sessionId} AND role = 'model' AND "startNs" = (
        SELECT max("startNs") FROM "TraceSpan" WHERE "sessionId" = ${sessionId} AND role = 'model' AND "startNs" < ${c})`;
    let last: LoadedRow | null = null;
    for (const r of lastRows)
      if (!last || laterThan(timingOf(r.digest as SpanDigest), timingOf(last.digest as SpanDigest))) last = r;
    if (!last) return fallback("prefix model span not found");
    const reading = readSpan(unpack<OtlpSpan>(last), []);
    if (reading.role !== "model") return fallback("prefix model span unreadable");
    previous = [...reading.step.input.messages, ...(reading.step.output ? [reading.step.output] : [])];
    previousModel = { seq: facts.lm, input: reading.step.input };
  }

  // The window's events, numbered after the prefix, occurrences counted on from the prefix's.
  const ignored: { path: string; message: string }[] = [];
  const readings = [
    ...new Map([
      ...[...windowRows].map(([id, r]) => [id, readSpan(unpack<OtlpSpan>(r), ignored)] as const),
      ...[...freshReadings].filter(([, r]) => window.has(r.span.traceId)),
    ]).values(),
  ].sort((a, b) => bySpanId(a.span, b.span));
  const mapped = assemble(stepsOf(readings), previous);
  const keys = [...new Set(mapped.flatMap((e) => (e.cacheKey !== null && e.occurrence !== null ? [e.cacheKey] : [])))];
  const seen = new Map<string, number>();
  if (keys.length > 0 && from > 0) {
    const last = await tx.$queryRaw<{ k: string; occurrence: number | null }[]>`
      SELECT k, (SELECT occurrence FROM "Event" WHERE "sessionId" = ${sessionId} AND "cacheKey" = k AND seq < ${from}
        AND occurrence IS NOT NULL ORDER BY seq DESC LIMIT 1) AS occurrence
      FROM unnest(${keys}::text[]) AS k`;
    for (const r of last) if (r.occurrence !== null) seen.set(r.k, r.occurrence + 1);
  }
  const tail = mapped.map((e) => ({
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
    const all = await tx.$queryRaw<{ traceId: string; spanId: string; digest: unknown }[]>`
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
  const firstModelInput = anchors.find((a) => a.seq === facts.fm)?.input ?? factsOf(tail).firstModelInput;
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

  // The session row's figures: the stored ones, less the window's old events, plus its new ones.
  const sum = (list: readonly { kind: string; status: string }[], f: (e: (typeof list)[number]) => number) =>
    list.reduce((n, e) => n + f(e), 0);
  const storedUsage = (e: (typeof storedTail)[number]) => ({
    inputTokens: e.inputTokens ?? 0,
    outputTokens: e.outputTokens ?? 0,
    costUsd: e.costUsd ?? 0,
  });
  const tailUsage = (e: SessionEvent) => ({
    inputTokens: e.usage?.inputTokens ?? 0,
    outputTokens: e.usage?.outputTokens ?? 0,
    costUsd: e.usage?.costUsd ?? 0,
  });
  // Costs are summed in event order: only a session without any can be updated by difference exactly.
  if (
    session.costUsd !== 0 ||
    storedTail.some((e) => storedUsage(e).costUsd !== 0) ||
    tail.some((e) => tailUsage(e).costUsd !== 0)
  )
    return fallback("costs");
  const inputTokens =
    session.inputTokens -
    storedTail.reduce((n, e) => n + storedUsage(e).inputTokens, 0) +
    tail.reduce((n, e) => n + tailUsage(e).inputTokens, 0);
  const outputTokens =
    session.outputTokens -
    storedTail.reduce((n, e) => n + storedUsage(e).outputTokens, 0) +
    tail.reduce((n, e) => n + tailUsage(e).outputTokens, 0);
  if (inputTokens > INT_MAX || outputTokens > INT_MAX) return fallback("token totals out of range");
  const kindCount = (kind: string) => (e: { kind: string }) => (e.kind === kind ? 1 : 0);
  const failed = (e: { status: string }) => (e.status === "failed" ? 1 : 0);
  const last = tail.at(-1) ?? anchors.find((a) => a.seq === from - 1);
  const summary = {
    eventCount: from + tail.length,
    modelCallCount:
      session.modelCallCount - sum(storedTail, kindCount("model_call")) + sum(tail, kindCount("model_call")),
    toolCallCount: session.toolCallCount - sum(storedTail, kindCount("tool_call")) + sum(tail, kindCount("tool_call")),
    errorCount: session.errorCount - sum(storedTail, failed) + sum(tail, failed),
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
      .filter((a) => a.seq === facts.fm || a.seq === facts.fu || a.seq === facts.lf)
      .map((a) => ({ ...anchorAsEvent(a), input: a.input, output: a.output })),
    ...tail,
  ];
  const searchText = searchTextFor({ ...fields, format, events: searchEvents });
  const agentKey = agentKeyOf(fields);
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
    state: { spans, ...counts, agentKey },
    ensure: agentKey !== state.agentKey,
  };
}

/** The state of a session stored before `traceState`: its spans' digests and its events' counts, read once. */
async function stateFromRows(
  tx: DbClient,
  sessionId: string,
  from: number,
  storedTail: readonly { kind: string; name: string; status: string }[],
): Promise<TraceState | null> {
  const rows = await tx.$queryRaw<{ digest: unknown }[]>`
    SELECT digest FROM "TraceSpan" WHERE "sessionId" = ${sessionId}`;
  if (!rows.every((r) => isDigest(r.digest))) return null;
  const prefix = await tx.event.findMany({
    where: { sessionId, seq: { lt: from } },
    select: { kind: true, name: true, status: true },
  });
  return {
    spans: aggregateOf(rows.map((r) => r.digest as SpanDigest)),
    ...eventCounts(null, [...prefix, ...storedTail]),
    agentKey: "",
  };
}

function anchorAsEvent(e: { seq: number; kind: string; name: string; status: string }): SessionEvent {
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

async function writePlan(tx: DbClient, plan: GroupPlan): Promise<void> {
  const s = plan.fields;
  const ids = plan.ensure
    ? await ensureAgent(tx, { ...s, events: plan.tail }).then(({ agent, version }) => ({
        agentId: agent.id,
        agentVersionId: version.id,
      }))
    : { agentId: plan.session.agentId, agentVersionId: plan.session.agentVersionId };
  await tx.session.update({
    where: { id: plan.session.id },
    data: {
      ...ids,
      title: s.title,
      startedAt: s.startedAt ? new Date(s.startedAt) : null,
      endedAt: s.endedAt ? new Date(s.endedAt) : null,
      durationMs: s.startedAt && s.endedAt ? Math.max(0, Date.parse(s.endedAt) - Date.parse(s.startedAt)) : null,
      ...plan.summary,
      searchText: plan.searchText,
      metadata: s.metadata as Prisma.InputJsonValue,
      traceState: plan.state as unknown as Prisma.InputJsonValue,
    },
  });
  // The window's events as a change: rows whose content is the same stay, changed and new ones are written.
  const rows = eventRows(plan.session.id, plan.tail, plan.previousModel);
  const storedBySeq = new Map(plan.storedTail.map((r) => [r.seq, r]));
  const wanted = new Set(rows.map((r) => r.seq));
  const stale = plan.storedTail.filter((r) => !wanted.has(r.seq)).map((r) => r.id);
  const write: Prisma.EventCreateManyInput[] = [];
  for (const row of rows) {
    const before = storedBySeq.get(row.seq);
    if (before && rowText(before) === rowText(row)) continue;
    if (before) stale.push(before.id);
    write.push(row);
  }
  if (stale.length > 0) await tx.event.deleteMany({ where: { id: { in: stale } } });
  await insertEventRows(tx, write);
}
