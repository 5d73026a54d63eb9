import { z } from "zod";
import { storableSessions } from "@/lib/hostile/storable";
import {
  addToAggregate,
  agentsGroupFields,
  agentsSteps,
  emptyAggregate,
  nanos,
  openAiAgentsGroupKey,
  replaceInAggregate,
  spanKey,
  type AgentsAggregate,
  type AgentsGroup,
  type AgentsItem,
  type AgentsSpan,
} from "@/lib/ingest/openai-agents";
import { assemble } from "@/lib/ingest/otlp/assemble";
import { byCodePoint } from "@/lib/ingest/order";
import type { ImportedSession } from "@/lib/ingest/types";
import type { Message, SessionEvent } from "@/lib/replay";
import type { SqlTx } from "./sql";
import { searchTextFor } from "./sessions";
import {
  agentKeyOf,
  eventCounts,
  fallbacks,
  idOf,
  pack,
  replaceRow,
  unpack,
  windowFigures,
  writePlan,
  type Anchor,
  type GroupPlan,
  type IncrementResult,
  type NewSpanRow,
  type SessionRow,
  type SpanColumns,
  type StoredEvent,
} from "./trace-increment";

// ---------------------------------------------------------------------------
// Incremental ingest of OpenAI Agents SDK exports: an export that adds items
// to a group that has a session re-maps only the WINDOW its items touch and
// rewrites only the events from where the window starts, reading only what
// that needs: the window's rows and events by indexed queries, and the
// session row (its trace ids are rows of "SessionTrace": an export adds its own).
//
// The window is a set of whole traces: the traces the export changes, plus
// every trace of the session with a span ending at or after the earliest
// start C among them (repeated until nothing new joins). A function span is
// tied only to a generation of its own trace, a trace's final answer is its
// own last generation's, and events are ordered by time, so every other
// trace's events (the prefix) come before the window's and do not change.
// The window's events are mapped with the prefix's last model call as the
// conversation they continue (read from its span) and the prefix's occurrence
// counts.
//
// What the session's own fields need from ALL its items is kept on the
// session (`traceState`, `AgentsState`), a few numbers whatever the group's
// length: the items' aggregate (`AgentsAggregate`: time range, agent span,
// naming trace), how many traces have a synthesized call id, each tool name's
// and the incomplete events' counts, and what the agent upsert was last
// given. The full rebuild writes it with every session it writes; a session
// without a well-formed one (written before it existed) gets it from its rows.
//
// What cannot be done this way goes to the full rebuild (counted by reason in
// `fallbacks`, "agents: …"): a group without a session yet, a trace changing
// group (its trace item arriving after its spans), a session with replays, a
// better copy that moves the group's first start, last end or agent span,
// attribute warnings, repaired or refused values, rows of another source.
// The increment writes nothing before it knows it will not fall back.
// ---------------------------------------------------------------------------

const PREFIX = "openai-agents:";
const FORMAT = "openai-agents";
/** Beyond this (in ms) a time does not fit the rows' nanosecond columns. */
const MAX_MS = 9_000_000_000_000;
/** A window without spans starts here (no stored event or span reaches it). */
const NO_SPANS = BigInt(MAX_MS) * 1_000_000n;

/** What an Agents SDK session keeps for its next export (`Session.traceState`). */
export type AgentsState = {
  agents: AgentsAggregate;
  /** How many traces have a function span that matched no generation tool call. */
  synthesized: number;
  /** Tool calls per name among its events. */
  toolCalls: [string, number][];
  /** Events with status incomplete. */
  incomplete: number;
  /** A hash of what the agent upsert was last given (empty: not known). */
  agentKey: string;
};

const count = z.number().int().min(0).max(Number.MAX_SAFE_INTEGER);
const isoTime = z.string().refine((v) => !Number.isNaN(Date.parse(v)));
const epochMs = z.number().int().nullable();
const STATE = z.object({
  agents: z
    .object({
      spans: count,
      open: count,
      minStart: epochMs,
      maxEnd: epochMs,
      agent: z
        .object({
          id: z.string(),
          traceId: z.string(),
          startedAt: isoTime,
          endedAt: isoTime.nullable(),
          name: z.string(),
        })
        .nullable(),
      trace: z
        .object({
          id: z.string(),
          workflowName: z.string().nullable(),
          groupId: z.string().nullable(),
          metadata: z.custom<Record<string, unknown>>((v) => v !== null && typeof v === "object" && !Array.isArray(v)),
        })
        .nullable(),
      responses: count,
    })
    .refine((a) => a.open <= a.spans && a.responses <= a.spans && (a.spans === 0) === (a.minStart === null)),
  synthesized: count,
  toolCalls: z.array(z.tuple([z.string(), count])),
  incomplete: count,
  agentKey: z.string(),
});

/** A stored state, or null when it is not one in every field (an older shape, or damaged): re-derived then. */
export function asAgentsState(value: unknown): AgentsState | null {
  // The value itself, not zod's copy: its trace metadata keeps any key as it was stored.
  return STATE.safeParse(value).success ? (value as AgentsState) : null;
}

/** The state the full rebuild keeps with a group's session as written. */
export function agentsStateOf(group: AgentsGroup, session: ImportedSession): AgentsState {
  return {
    agents: group.aggregate,
    synthesized: group.synthesized,
    ...eventCounts(null, session.events),
    agentKey: agentKeyOf(session),
  };
}

/** The columns a span's row carries for the window's indexed reads (a trace item's: none). */
export function agentsColumns(item: AgentsItem): SpanColumns | null {
  if (item.object !== "trace.span") return null;
  const start = nanos(item.startedAt);
  const end = item.endedAt === null ? start : nanos(item.endedAt);
  const type = item.spanData.type;
  return {
    startNs: start,
    lastNs: end > start ? end : start,
    role: type === "generation" || type === "response" ? "model" : type === "function" ? "tool" : "other",
  };
}

type ColumnsRecord = { id: string; startNs: string; lastNs: string; role: string };
const columnsRecord = (id: string, c: SpanColumns): ColumnsRecord => ({
  id,
  startNs: String(c.startNs),
  lastNs: String(c.lastNs),
  role: c.role,
});

/** Sets the window reads' columns of some rows, in one statement. */
export async function setColumns(sql: SqlTx, rows: readonly ColumnsRecord[]): Promise<void> {
  await sql.query`
    UPDATE "TraceSpan" t SET "startNs" = x."startNs"::bigint, "lastNs" = x."lastNs"::bigint, role = x.role
    FROM jsonb_to_recordset(${JSON.stringify(rows)}::jsonb) AS x(id text, "startNs" text, "lastNs" text, role text)
    WHERE t.id = x.id`;
}

/**
 * A session row as the load reads it: its metadata without the group's trace ids (kept as rows of
 * "SessionTrace": an export names only the ones it adds, and the write adds them as rows), and whether
 * those rows are the list (no other value left under the metadata's `traceIds`).
 */
type AgentsSessionRow = SessionRow & { listed: boolean | null };

const ids = (item: AgentsItem) =>
  item.object === "trace" ? { traceId: item.id, spanId: item.id } : { traceId: item.traceId, spanId: item.id };
const isSpan = (item: AgentsItem): item is AgentsSpan => item.object === "trace.span";

function fallback(reason: string): null {
  const key = `agents: ${reason}`;
  fallbacks.set(key, (fallbacks.get(key) ?? 0) + 1);
  return null;
}

type Row = { id: string; groupKey: string; traceId: string; spanId: string; sessionId: string | null };
type LoadedRow = Row & { item: AgentsItem };
type JsonRow = Row & { packed: string | null; payload: unknown };
const fromJson = (r: JsonRow): LoadedRow => ({
  id: r.id,
  groupKey: r.groupKey,
  traceId: r.traceId,
  spanId: r.spanId,
  sessionId: r.sessionId,
  item: unpack<AgentsItem>({ payload: r.payload, packed: r.packed === null ? null : Buffer.from(r.packed, "base64") }),
});

async function rowsOfTraces(sql: SqlTx, traceIds: readonly string[]): Promise<LoadedRow[]> {
  const [{ rows }] = await sql.query<[{ rows: string }]>`
    SELECT coalesce(json_agg(json_build_object('id', id, 'groupKey', "groupKey", 'traceId', "traceId",
      'spanId', "spanId", 'sessionId', "sessionId", 'packed', encode(packed, 'base64'), 'payload', payload)), '[]')::text AS rows
    FROM "TraceSpan" WHERE "traceId" = ANY(${[...traceIds]}::text[])`;
  return (JSON.parse(rows) as JsonRow[]).map(fromJson);
}

export type AgentsRequest = {
  /** Every item of the request, one copy each, by `idOf`. */
  fresh: ReadonlyMap<string, AgentsItem>;
  better: (a: AgentsItem, b: AgentsItem) => boolean;
  fingerprint: (item: AgentsItem) => string;
};

/**
 * Stores an Agents SDK request incrementally and returns what it did, or null (having written nothing)
 * when it must take the full rebuild. Call inside the request's transaction, after its keys are locked.
 */
export async function ingestAgentsIncrement(sql: SqlTx, request: AgentsRequest): Promise<IncrementResult | null> {
  const { fresh } = request;
  const traceIds = [...new Set([...fresh.values()].map((i) => ids(i).traceId))];
  const ownKeys = [...new Set([...fresh.values()].map((i) => openAiAgentsGroupKey(i)))];

  // 1. The stored rows of the request's traces (with their items: the window re-maps them), and the sessions of
  // every group the request reaches (the full rebuild reports them all), in one round trip.
  const [loaded] = await sql.query<[{ rows: string; sessions: string }]>`
    WITH r AS (SELECT * FROM "TraceSpan" WHERE "traceId" = ANY(${traceIds}::text[]))
    SELECT
      (SELECT coalesce(json_agg(json_build_object('id', id, 'groupKey', "groupKey", 'traceId', "traceId",
        'spanId', "spanId", 'sessionId', "sessionId", 'packed', encode(packed, 'base64'), 'payload', payload)), '[]')
       FROM r)::text AS rows,
      (SELECT coalesce(json_agg(json_build_object('id', s.id, 'externalId', s."externalId", 'format', s.format,
        'metadata', CASE WHEN jsonb_typeof(s.metadata) = 'object' THEN s.metadata - 'traceIds' ELSE s.metadata END,
        'listed', NOT (jsonb_typeof(s.metadata) = 'object' AND s.metadata ? 'traceIds'),
        'traceState', s."traceState", 'eventCount', s."eventCount",
        'modelCallCount', s."modelCallCount", 'toolCallCount', s."toolCallCount", 'errorCount', s."errorCount",
        'inputTokens', s."inputTokens", 'outputTokens', s."outputTokens", 'costUsd', s."costUsd",
        'agentId', s."agentId", 'agentVersionId', s."agentVersionId",
        'replays', (SELECT count(*)::int FROM "Replay" p WHERE p."sessionId" = s.id))), '[]')
       FROM "Session" s WHERE s.format = ${FORMAT} AND s."externalId" IN (
         SELECT unnest(${ownKeys}::text[]) UNION SELECT DISTINCT substr("groupKey", ${PREFIX.length + 1}) FROM r))::text AS sessions`;
  const stored = (JSON.parse(loaded.rows) as JsonRow[]).map(fromJson);
  if (!stored.every((r) => r.groupKey.startsWith(PREFIX))) return fallback("a trace id shared with another source");
  const sessionRows = JSON.parse(loaded.sessions) as AgentsSessionRow[];
  const storedById = new Map(stored.map((r) => [idOf(r.traceId, r.spanId), r]));

  // 2. New items, and better copies of stored ones.
  const inserted: AgentsItem[] = [];
  const replaced = new Map<string, { row: LoadedRow; item: AgentsItem }>();
  for (const [id, item] of fresh) {
    if (isSpan(item) && item.id === item.traceId) return fallback("a span with its trace's id");
    if (isSpan(item) && !inRange(item)) return fallback("times out of range");
    const row = storedById.get(id);
    if (!row) inserted.push(item);
    else {
      if (row.item.object !== item.object) return fallback("an item stored as another kind");
      if (request.better(item, row.item) && request.fingerprint(item) !== request.fingerprint(row.item))
        replaced.set(id, { row, item });
    }
  }

  // 3. Each trace's group after the request: the group its trace item names, else the trace. No regrouping.
  const rowsOfTrace = new Map<string, LoadedRow[]>();
  for (const r of stored) {
    const list = rowsOfTrace.get(r.traceId);
    if (list) list.push(r);
    else rowsOfTrace.set(r.traceId, [r]);
  }
  const changed = new Map<string, AgentsItem>();
  for (const item of inserted) changed.set(idOf(ids(item).traceId, ids(item).spanId), item);
  for (const [id, { item }] of replaced) changed.set(id, item);
  const groupAfter = new Map<string, string>();
  for (const traceId of traceIds) {
    const id = idOf(traceId, traceId);
    const traceItem = changed.get(id) ?? storedById.get(id)?.item;
    const key = traceItem?.object === "trace" ? openAiAgentsGroupKey(traceItem) : `trace:${traceId}`;
    if ((rowsOfTrace.get(traceId) ?? []).some((r) => r.groupKey !== PREFIX + key)) return fallback("regrouping");
    groupAfter.set(traceId, key);
  }
  const reached = new Set([...groupAfter.values(), ...ownKeys]);
  const sessionOfKey = new Map(sessionRows.map((s) => [s.externalId ?? "", s]));
  // A trace's own group holding a session while the trace is stored under another: the rebuild deletes it.
  for (const [traceId, key] of groupAfter)
    if (key !== `trace:${traceId}` && sessionOfKey.has(`trace:${traceId}`)) return fallback("a stale trace session");

  // 4. A plan for every group the request changes.
  const touchedTraces = new Set([...changed.values()].map((i) => ids(i).traceId));
  const touchedKeys = [...new Set([...touchedTraces].map((t) => groupAfter.get(t)!))].sort();
  const plans: { plan: GroupPlan<AgentsState>; spans: NewSpanRow[]; fixes: ColumnsRecord[]; derived: boolean }[] = [];
  for (const key of touchedKeys) {
    const session = sessionOfKey.get(key);
    if (!session) return fallback("a group without a session yet");
    const traces = [...touchedTraces].filter((t) => groupAfter.get(t) === key);
    if (traces.some((t) => (rowsOfTrace.get(t) ?? []).some((r) => r.sessionId !== session.id)))
      return fallback("rows of another session");
    const planned = await planGroup(sql, key, session, traces, rowsOfTrace, changed, replaced);
    if (!planned) return null;
    const spans = inserted
      .filter((item) => groupAfter.get(ids(item).traceId) === key)
      .map((item) => ({
        groupKey: PREFIX + key,
        ...ids(item),
        sessionId: session.id,
        packed: pack(item),
        digest: null,
        columns: agentsColumns(item),
      }));
    plans.push({ ...planned, spans });
  }

  // 5. Writes (none before: a request that falls back writes nothing here). Per group, its session, its
  // events from the window on and its new rows in one statement; then the rows of better copies.
  for (const { plan, spans, fixes, derived } of plans) {
    if (fixes.length > 0) await setColumns(sql, fixes);
    // The write adds the plan's trace ids as rows: a value left in the metadata that was not trusted goes first.
    if (derived)
      await sql.query`
        UPDATE "Session" SET metadata = CASE WHEN jsonb_typeof(metadata) = 'object' THEN metadata - 'traceIds'
          ELSE '{}'::jsonb END WHERE id = ${plan.session.id}`;
    await writePlan(sql, plan, spans);
  }
  for (const { row, item } of replaced.values()) {
    await replaceRow(sql, row.id, pack(item), null, agentsColumns(item));
  }

  const touched = new Map(plans.map(({ plan }) => [plan.session.id, plan]));
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

function inRange(span: AgentsSpan): boolean {
  const ok = (iso: string | null) => iso === null || (Date.parse(iso) >= 0 && Date.parse(iso) < MAX_MS);
  return ok(span.startedAt) && ok(span.endedAt);
}

/** What a window needs of the rest of its session, in one round trip. */
type WindowRead = {
  /** Other traces with a span ending at or after C (their latest end). */
  reaching: { traceId: string; last: string }[];
  /** The stored events from C on, in seq order. */
  tail: StoredEvent[];
  from: number;
  /** Events without a start time (the mapper gives every event one: none). */
  untimed: number;
  /** The prefix's first model call, first user turn, last final answer and last model call (seqs). */
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
  keys: readonly string[],
): Promise<WindowRead> {
  const cut = new Date(Number(c / 1_000_000n));
  // One plan per connection, made without the session's statistics (see "agents_increment_window").
  const [read] = await sql.query<[{ read: string }]>`
    SELECT "agents_increment_window"(${sessionId}::text, ${eventCount}::int, ${cut}::timestamptz, ${c}::bigint,
      ${[...window]}::text[], ${[...keys]}::text[]) AS read`;
  return JSON.parse(read.read) as WindowRead;
}

/** The rows of the session's other traces with a span ending at or after `c` (they join the window). */
async function reachingRows(
  sql: SqlTx,
  sessionId: string,
  c: bigint,
  window: ReadonlySet<string>,
): Promise<LoadedRow[]> {
  const [{ rows }] = await sql.query<[{ rows: string }]>`
    SELECT coalesce(json_agg(json_build_object('id', id, 'groupKey', "groupKey", 'traceId', "traceId",
      'spanId', "spanId", 'sessionId', "sessionId", 'packed', encode(packed, 'base64'), 'payload', payload)), '[]')::text AS rows
    FROM "TraceSpan" WHERE "traceId" IN (
      SELECT DISTINCT "traceId" FROM "TraceSpan"
      WHERE "sessionId" = ${sessionId} AND "lastNs" >= ${c} AND NOT ("traceId" = ANY(${[...window]}::text[])))`;
  return (JSON.parse(rows) as JsonRow[]).map(fromJson);
}

/** The mapper's order of model calls (start, then end with none first, then key). */
function laterModel(a: AgentsSpan, b: AgentsSpan): boolean {
  const [sa, sb] = [nanos(a.startedAt), nanos(b.startedAt)];
  if (sa !== sb) return sa > sb;
  const ea = a.endedAt === null ? -1n : nanos(a.endedAt);
  const eb = b.endedAt === null ? -1n : nanos(b.endedAt);
  if (ea !== eb) return ea > eb;
  return spanKey(a) > spanKey(b);
}

/** What a session's increment starts from: its state, its trace ids, and any row columns to correct first. */
/** `derived`: taken from the rows, the stored state or trace ids not being trusted. */
type Base = { state: AgentsState; traceIds: string[]; fixes: ColumnsRecord[]; derived: boolean };

async function planGroup(
  sql: SqlTx,
  key: string,
  session: AgentsSessionRow,
  traces: readonly string[],
  rowsOfTrace: ReadonlyMap<string, LoadedRow[]>,
  changed: ReadonlyMap<string, AgentsItem>,
  replaced: ReadonlyMap<string, { row: LoadedRow; item: AgentsItem }>,
): Promise<{ plan: GroupPlan<AgentsState>; fixes: ColumnsRecord[]; derived: boolean } | null> {
  if (session.replays > 0) return fallback("a session with replays");
  const meta = session.metadata as Record<string, unknown> | null;
  if (meta && typeof meta === "object" && "repairedCharacters" in meta) return fallback("repaired characters");
  if (session.costUsd !== 0) return fallback("costs");
  const sessionId = session.id;

  // The state before the request; a session without a well-formed one gets it from its rows (written with the plan).
  const stored = asAgentsState(session.traceState);
  // Trusted, the stored rows get the request's new traces as it is written; else the list is rebuilt whole.
  const base: Base | null =
    stored && session.listed === true
      ? { state: stored, traceIds: [], fixes: [], derived: false }
      : await stateFromRows(sql, session, key);
  if (!base) return null;
  const { state } = base;

  // The window: whole traces, from the earliest start C of their spans (before and after the request) on.
  const windowRows = new Map<string, LoadedRow>();
  for (const t of traces) for (const r of rowsOfTrace.get(t) ?? []) windowRows.set(idOf(r.traceId, r.spanId), r);
  const window = new Set(traces);
  const composition = () => {
    const items = new Map<string, AgentsItem>();
    for (const [id, r] of windowRows) items.set(id, r.item);
    for (const [id, item] of changed) if (window.has(ids(item).traceId)) items.set(id, item);
    const after = [...items.values()];
    let c = NO_SPANS;
    for (const i of after) if (isSpan(i) && nanos(i.startedAt) < c) c = nanos(i.startedAt);
    for (const r of windowRows.values()) if (isSpan(r.item) && nanos(r.item.startedAt) < c) c = nanos(r.item.startedAt);
    // Any warning is the request's (stored items passed the same check): the rebuild refuses it.
    const warnings: { path: string; message: string }[] = [];
    const mapped = agentsSteps(after.filter(isSpan), warnings);
    // The window's calls' cache keys (the same whatever conversation it continues).
    const keys = [
      ...new Set(
        assemble(mapped.steps).flatMap((e) => (e.cacheKey !== null && e.occurrence !== null ? [e.cacheKey] : [])),
      ),
    ];
    return { c, keys, warned: warnings.length > 0, ...mapped };
  };
  let current = composition();
  let read = await readWindow(sql, sessionId, session.eventCount, current.c, [...window], current.keys);
  // Traces with a span ending at or after C join the window (C may move earlier as they do); the whole
  // window read again only once it stops growing.
  while (read.reaching.length > 0) {
    let joining = await rowsOfTraces(
      sql,
      read.reaching.map((r) => r.traceId),
    );
    while (joining.length > 0) {
      if (joining.some((r) => r.sessionId !== sessionId)) return fallback("window rows of another session");
      for (const r of joining) {
        windowRows.set(idOf(r.traceId, r.spanId), r);
        window.add(r.traceId);
      }
      current = composition();
      joining = await reachingRows(sql, sessionId, current.c, window);
    }
    read = await readWindow(sql, sessionId, session.eventCount, current.c, [...window], current.keys);
  }
  const { steps, synthesized } = current;

  const storedTail = read.tail;
  const from = read.from;
  if (read.untimed > 0) return fallback("events without a start time");
  if (storedTail.some((e, i) => e.seq !== from + i)) return fallback("events out of time order");
  const anchors = read.anchors;
  if (anchors.some((a) => a.seq !== from - 1 && a.inputPrefixSeq !== null))
    return fallback("first events stored with a prefix");
  if (current.warned) return fallback("attribute warnings");

  // The conversation the window continues: the prefix's last model call, read from its span.
  let previous: Message[] | null = null;
  let previousModel: GroupPlan["previousModel"] = null;
  const lastSpans = read.lastModel.map(fromJson).flatMap((r) => (isSpan(r.item) ? [r.item] : []));
  if ((read.lm === null) !== (lastSpans.length === 0)) return fallback("prefix model span not found");
  if (read.lm !== null) {
    const last = lastSpans.reduce((m, s) => (laterModel(s, m) ? s : m));
    const step = agentsSteps([last], []).steps[0];
    if (step?.kind !== "model_call") return fallback("prefix model span unreadable");
    previous = [...step.input.messages, ...(step.output ? [step.output] : [])];
    previousModel = { seq: read.lm, input: step.input };
  }

  // The window's events, numbered after the prefix, occurrences counted on from the prefix's.
  const seen = new Map<string, number>();
  for (const r of read.occurrences) if (r.occurrence !== null) seen.set(r.k, r.occurrence + 1);
  const tail: SessionEvent[] = assemble(steps, previous).map((e) => ({
    ...e,
    seq: e.seq + from,
    parentSeq: e.parentSeq === null ? null : e.parentSeq + from,
    occurrence:
      e.occurrence === null || e.cacheKey === null ? e.occurrence : e.occurrence + (seen.get(e.cacheKey) ?? 0),
  }));

  // The aggregate after the request: better copies swapped in, new items added.
  let agents: AgentsAggregate | null = state.agents;
  for (const [id, { row, item }] of replaced) {
    if (!window.has(ids(item).traceId) || !changed.has(id)) continue;
    agents = replaceInAggregate(agents, row.item, item);
    if (!agents) return fallback("a better copy moves the group's range or agent");
  }
  const added = [...changed].filter(([id, item]) => !replaced.has(id) && window.has(ids(item).traceId));
  agents = addToAggregate(
    agents,
    added.map(([, item]) => item),
  );
  // Only the request's traces changed: each maps on its own, so the others' synthesized ids are as they were.
  const touched = traces;
  const before = agentsSteps(
    touched.flatMap((t) => (rowsOfTrace.get(t) ?? []).flatMap((r) => (isSpan(r.item) ? [r.item] : []))),
    [],
  ).synthesized;
  const synthesizedAfter =
    state.synthesized - touched.filter((t) => before.has(t)).length + touched.filter((t) => synthesized.has(t)).length;
  if (synthesizedAfter < 0) return fallback("a stored state that does not match its rows");
  // A trace is new to the group's list exactly when it had no span stored.
  const withNewSpans = new Set(added.flatMap(([, i]) => (isSpan(i) ? [i.traceId] : [])));
  const newTraces = touched.filter(
    (t) => withNewSpans.has(t) && !(rowsOfTrace.get(t) ?? []).some((r) => isSpan(r.item)),
  );
  const traceIds =
    newTraces.length === 0 ? base.traceIds : [...new Set([...base.traceIds, ...newTraces])].sort(byCodePoint);
  const counts = eventCounts(state, tail, storedTail);

  // The session's fields, from the aggregate and the facts about its events.
  const firstModelInput =
    read.fm !== null ? anchors.find((a) => a.seq === read.fm)?.input : tail.find((e) => e.kind === "model_call")?.input;
  const fields = agentsGroupFields(key, agents, {
    traceIds,
    firstModelInput,
    toolNames: counts.toolCalls.map(([n]) => n),
    synthesizedIds: synthesizedAfter > 0,
  });
  if (from + tail.length === 0) return fallback("no events");
  const checked = storableSessions([{ ...fields, events: tail }]);
  if (!checked.ok || "repairedCharacters" in checked.sessions[0]!.metadata)
    return fallback("unstorable or repaired values");

  const figures = windowFigures(session, from, tail, storedTail, anchors, counts, [read.fm, read.fu, read.lf]);
  if (typeof figures === "string") return fallback(figures);
  const { summary, searchEvents } = figures;
  const searchText = searchTextFor({ ...fields, events: searchEvents });
  const agentKey = agentKeyOf(fields);
  return {
    plan: {
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
      state: { agents, synthesized: synthesizedAfter, ...counts, agentKey },
      ensure: agentKey !== state.agentKey,
    },
    fixes: base.fixes,
    derived: base.derived,
  };
}

/**
 * The state of a session without a well-formed one (written before states existed, or damaged): its
 * rows read and mapped once, checked against its stored events; with its span rows whose columns do
 * not match their items (written with the plan, never before it is known to hold).
 */
async function stateFromRows(sql: SqlTx, session: SessionRow, key: string): Promise<Base | null> {
  const [{ rows: text }] = await sql.query<[{ rows: string }]>`
    SELECT coalesce(json_agg(json_build_object('id', id, 'groupKey', "groupKey", 'traceId', "traceId",
      'spanId', "spanId", 'sessionId', "sessionId", 'packed', encode(packed, 'base64'), 'payload', payload,
      'startNs', "startNs"::text, 'lastNs', "lastNs"::text, 'role', role)), '[]')::text AS rows
    FROM "TraceSpan" WHERE "sessionId" = ${session.id}`;
  const json = JSON.parse(text) as (JsonRow & { startNs: string | null; lastNs: string | null; role: string | null })[];
  if (json.length === 0) return fallback("a session without rows");
  if (!json.every((r) => r.groupKey === PREFIX + key)) return fallback("rows of another group");
  const rows = json.map(fromJson);
  const items = rows.map((r) => r.item);
  const spans = items.filter(isSpan);
  if (!spans.every(inRange)) return fallback("times out of range");
  const { steps, synthesized } = agentsSteps(spans, []);
  const events = assemble(steps);
  if (events.length !== session.eventCount) return fallback("stored events do not match their rows");
  const fixes = json.flatMap((r, i) => {
    const c = agentsColumns(rows[i]!.item);
    return c && (r.startNs !== String(c.startNs) || r.lastNs !== String(c.lastNs) || r.role !== c.role)
      ? [columnsRecord(r.id, c)]
      : [];
  });
  return {
    state: {
      agents: addToAggregate(emptyAggregate(), items),
      synthesized: synthesized.size,
      ...eventCounts(null, events),
      agentKey: "",
    },
    traceIds: [...new Set(spans.map((s) => s.traceId))].sort(),
    fixes,
    derived: true,
  };
}
