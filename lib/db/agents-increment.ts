import { storableSessions } from "@/lib/hostile/storable";
import {
  addToAggregate,
  agentsGroupFields,
  agentsSteps,
  emptyAggregate,
  nanos,
  openAiAgentsGroupKey,
  replaceInAggregate,
  type AgentsAggregate,
  type AgentsItem,
  type AgentsSpan,
} from "@/lib/ingest/openai-agents";
import type { SpanDigest } from "@/lib/ingest/otlp";
import { assemble } from "@/lib/ingest/otlp/assemble";
import type { Message, SessionEvent } from "@/lib/replay";
import type { DbClient } from "./client";
import { Prisma } from "./generated/client";
import { searchTextFor } from "./sessions";
import {
  agentKeyOf,
  anchorAsEvent,
  digestColumns,
  eventCounts,
  fallbacks,
  idOf,
  pack,
  unpack,
  writePlan,
  type GroupPlan,
  type IncrementResult,
  type NewSpanRow,
  type SessionRow,
  type StoredEvent,
} from "./trace-increment";

// ---------------------------------------------------------------------------
// Incremental ingest of OpenAI Agents SDK exports: an export that adds items
// to a group that has a session re-maps only the WINDOW its items touch and
// rewrites only the events from where the window starts, reading only what
// that needs (indexed queries, never every item or event of the group).
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
// session (`traceState`, `AgentsState`): the items' aggregate
// (`AgentsAggregate`: time range, agent span, naming trace, trace ids), the
// traces with a synthesized call id, each tool name's and the incomplete
// events' counts, and what the agent upsert was last given. A session without
// it (written whole, or before it existed) gets it from its rows once.
//
// What cannot be done this way goes to the full rebuild (counted by reason in
// `fallbacks`, "agents: …"): a group without a session yet, a trace changing
// group (its trace item arriving after its spans), a session with replays, a
// better copy that moves the group's first start, last end or agent span,
// attribute warnings, repaired or refused values, rows of another source.
// Before it does, the states of the sessions the rebuild may rewrite are
// dropped: the next export re-derives them from what the rebuild wrote.
// ---------------------------------------------------------------------------

const PREFIX = "openai-agents:";
const FORMAT = "openai-agents";
const INT_MAX = 2_147_483_647;
/** Beyond this (in ms) a time does not fit the rows' nanosecond columns. */
const MAX_MS = 9_000_000_000_000;
/** A window without spans starts here (no stored event or span reaches it). */
const NO_SPANS = BigInt(MAX_MS) * 1_000_000n;

/** What an Agents SDK session keeps for its next export (`Session.traceState`). */
export type AgentsState = {
  agents: AgentsAggregate;
  /** Traces where a function span matched no generation tool call. */
  synthesized: string[];
  /** Tool calls per name among its events. */
  toolCalls: [string, number][];
  /** Events with status incomplete. */
  incomplete: number;
  /** A hash of what the agent upsert was last given (empty: not known). */
  agentKey: string;
};

function asAgentsState(value: unknown): AgentsState | null {
  if (value === null || typeof value !== "object" || Array.isArray(value)) return null;
  const v = value as Partial<AgentsState>;
  return v.agents && Array.isArray(v.synthesized) && Array.isArray(v.toolCalls) && typeof v.incomplete === "number"
    ? (value as AgentsState)
    : null;
}

const ids = (item: AgentsItem) =>
  item.object === "trace" ? { traceId: item.id, spanId: item.id } : { traceId: item.traceId, spanId: item.id };
const isSpan = (item: AgentsItem): item is AgentsSpan => item.object === "trace.span";

/** What a span row carries for the indexed reads (start, last time, role), in the shape `digestColumns` reads. */
function digestOf(span: AgentsSpan): SpanDigest {
  const type = span.spanData.type;
  return {
    traceId: span.traceId,
    spanId: span.id,
    start: String(nanos(span.startedAt)),
    end: span.endedAt === null ? null : String(nanos(span.endedAt)),
    role: type === "generation" || type === "response" ? "model" : type === "function" ? "tool" : "other",
  } as unknown as SpanDigest;
}

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

async function rowsOfTraces(tx: DbClient, traceIds: readonly string[]): Promise<LoadedRow[]> {
  const [{ rows }] = await tx.$queryRaw<[{ rows: string }]>`
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
 * Stores an Agents SDK request incrementally and returns what it did, or null when it must take the
 * full rebuild (having written nothing but the dropped states). Call inside the request's
 * transaction, after its keys are locked.
 */
export async function ingestAgentsIncrement(tx: DbClient, request: AgentsRequest): Promise<IncrementResult | null> {
  const reach = new Set<string>();
  const done = await attempt(tx, request, reach);
  if (done) return done;
  // The full rebuild rewrites these sessions without their state: drop it, so it is re-derived from the rebuild's.
  await tx.$executeRaw`
    UPDATE "Session" SET "traceState" = NULL
    WHERE format = ${FORMAT} AND "externalId" = ANY(${[...reach]}::text[]) AND "traceState" IS NOT NULL`;
  return null;
}

async function attempt(tx: DbClient, request: AgentsRequest, reach: Set<string>): Promise<IncrementResult | null> {
  const { fresh } = request;
  const traceIds = [...new Set([...fresh.values()].map((i) => ids(i).traceId))];
  const ownKeys = [...new Set([...fresh.values()].map((i) => openAiAgentsGroupKey(i)))];
  for (const k of ownKeys) reach.add(k);

  // 1. The stored rows of the request's traces (with their items: the window re-maps them), and the sessions of
  // every group the request reaches (the full rebuild reports them all), in one round trip.
  const [loaded] = await tx.$queryRaw<[{ rows: string; sessions: string }]>`
    WITH r AS (SELECT * FROM "TraceSpan" WHERE "traceId" = ANY(${traceIds}::text[]))
    SELECT
      (SELECT coalesce(json_agg(json_build_object('id', id, 'groupKey', "groupKey", 'traceId', "traceId",
        'spanId', "spanId", 'sessionId', "sessionId", 'packed', encode(packed, 'base64'), 'payload', payload)), '[]')
       FROM r)::text AS rows,
      (SELECT coalesce(json_agg(json_build_object('id', s.id, 'externalId', s."externalId", 'format', s.format,
        'metadata', s.metadata, 'traceState', s."traceState", 'eventCount', s."eventCount",
        'modelCallCount', s."modelCallCount", 'toolCallCount', s."toolCallCount", 'errorCount', s."errorCount",
        'inputTokens', s."inputTokens", 'outputTokens', s."outputTokens", 'costUsd', s."costUsd",
        'agentId', s."agentId", 'agentVersionId', s."agentVersionId",
        'replays', (SELECT count(*)::int FROM "Replay" p WHERE p."sessionId" = s.id))), '[]')
       FROM "Session" s WHERE s.format = ${FORMAT} AND s."externalId" IN (
         SELECT unnest(${ownKeys}::text[]) UNION SELECT DISTINCT substr("groupKey", ${PREFIX.length + 1}) FROM r))::text AS sessions`;
  const stored = (JSON.parse(loaded.rows) as JsonRow[]).map(fromJson);
  for (const r of stored) reach.add(r.groupKey.slice(PREFIX.length));
  if (!stored.every((r) => r.groupKey.startsWith(PREFIX))) return fallback("a trace id shared with another source");
  const sessionRows = JSON.parse(loaded.sessions) as SessionRow[];
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
  for (const r of stored) rowsOfTrace.set(r.traceId, [...(rowsOfTrace.get(r.traceId) ?? []), r]);
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
  const plans: { plan: GroupPlan; spans: NewSpanRow[] }[] = [];
  for (const key of touchedKeys) {
    const session = sessionOfKey.get(key);
    if (!session) return fallback("a group without a session yet");
    const traces = [...touchedTraces].filter((t) => groupAfter.get(t) === key);
    if (traces.some((t) => (rowsOfTrace.get(t) ?? []).some((r) => r.sessionId !== session.id)))
      return fallback("rows of another session");
    const plan = await planGroup(tx, key, session, traces, rowsOfTrace, changed, replaced);
    if (!plan) return null;
    const spans = inserted
      .filter((item) => groupAfter.get(ids(item).traceId) === key)
      .map((item) => ({
        groupKey: PREFIX + key,
        ...ids(item),
        sessionId: session.id,
        packed: pack(item),
        digest: isSpan(item) ? digestOf(item) : null,
      }));
    plans.push({ plan, spans });
  }

  // 5. Writes: per group, its session, its events from the window on and its new rows in one statement.
  for (const { plan, spans } of plans) await writePlan(tx, plan, spans);
  for (const { row, item } of replaced.values()) {
    const digest = isSpan(item) ? digestOf(item) : null;
    await tx.traceSpan.update({
      where: { id: row.id },
      data: {
        payload: Prisma.DbNull,
        packed: pack(item),
        ...(digest ? { digest: digest as unknown as Prisma.InputJsonValue, ...digestColumns(digest) } : {}),
      },
    });
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

type Anchor = {
  seq: number;
  kind: string;
  name: string;
  status: string;
  input: unknown;
  output: unknown;
  inputPrefixSeq: number | null;
};

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
  tx: DbClient,
  sessionId: string,
  eventCount: number,
  c: bigint,
  window: readonly string[],
  keys: readonly string[],
): Promise<WindowRead> {
  const cut = new Date(Number(c / 1_000_000n));
  const [read] = await tx.$queryRaw<[{ read: string }]>`
    WITH tail AS (
      SELECT * FROM "Event" WHERE "sessionId" = ${sessionId} AND "startedAt" >= ${cut}
    ), f AS (SELECT ${eventCount}::int - (SELECT count(*)::int FROM tail) AS n),
    facts AS (SELECT
      (SELECT min(seq) FROM "Event" WHERE "sessionId" = ${sessionId} AND kind = 'model_call' AND seq < (SELECT n FROM f)) AS fm,
      (SELECT min(seq) FROM "Event" WHERE "sessionId" = ${sessionId} AND kind = 'user_message' AND seq < (SELECT n FROM f)) AS fu,
      (SELECT max(seq) FROM "Event" WHERE "sessionId" = ${sessionId} AND kind = 'final_output' AND seq < (SELECT n FROM f)) AS lf,
      (SELECT max(seq) FROM "Event" WHERE "sessionId" = ${sessionId} AND kind = 'model_call' AND seq < (SELECT n FROM f)) AS lm)
    SELECT json_build_object(
      'reaching', (SELECT coalesce(json_agg(json_build_object('traceId', "traceId", 'last', last::text)), '[]') FROM (
        SELECT "traceId", max("lastNs") AS last FROM "TraceSpan"
        WHERE "sessionId" = ${sessionId} AND "lastNs" >= ${c} AND NOT ("traceId" = ANY(${window}::text[]))
        GROUP BY "traceId") x),
      'tail', (SELECT coalesce(json_agg(to_jsonb(t) ORDER BY t.seq), '[]') FROM tail t),
      'from', (SELECT n FROM f),
      'untimed', (SELECT count(*)::int FROM "Event" WHERE "sessionId" = ${sessionId} AND "startedAt" IS NULL),
      'fm', facts.fm, 'fu', facts.fu, 'lf', facts.lf, 'lm', facts.lm,
      'anchors', (SELECT coalesce(json_agg(json_build_object('seq', seq, 'kind', kind, 'name', name, 'status', status,
          'input', input, 'output', output, 'inputPrefixSeq', "inputPrefixSeq")), '[]')
        FROM "Event" WHERE "sessionId" = ${sessionId} AND seq IN (facts.fm, facts.fu, facts.lf, (SELECT n FROM f) - 1)),
      'lastModel', (SELECT coalesce(json_agg(json_build_object('id', id, 'groupKey', "groupKey", 'traceId', "traceId",
          'spanId', "spanId", 'sessionId', "sessionId", 'packed', encode(packed, 'base64'), 'payload', payload)), '[]')
        FROM "TraceSpan" WHERE "sessionId" = ${sessionId} AND role = 'model' AND "startNs" = (
          SELECT max("startNs") FROM "TraceSpan" WHERE "sessionId" = ${sessionId} AND role = 'model' AND "startNs" < ${c})),
      'occurrences', (SELECT coalesce(json_agg(json_build_object('k', k, 'occurrence', (
          SELECT occurrence FROM "Event" WHERE "sessionId" = ${sessionId} AND "cacheKey" = k AND seq < (SELECT n FROM f)
            AND occurrence IS NOT NULL ORDER BY seq DESC LIMIT 1))), '[]')
        FROM unnest(${keys}::text[]) AS k)
    )::text AS read FROM facts`;
  return JSON.parse(read.read) as WindowRead;
}

/** The mapper's order of model calls (start, then end with none first, then key). */
function laterModel(a: AgentsSpan, b: AgentsSpan): boolean {
  const [sa, sb] = [nanos(a.startedAt), nanos(b.startedAt)];
  if (sa !== sb) return sa > sb;
  const ea = a.endedAt === null ? -1n : nanos(a.endedAt);
  const eb = b.endedAt === null ? -1n : nanos(b.endedAt);
  if (ea !== eb) return ea > eb;
  return a.id > b.id;
}

async function planGroup(
  tx: DbClient,
  key: string,
  session: SessionRow,
  traces: readonly string[],
  rowsOfTrace: ReadonlyMap<string, LoadedRow[]>,
  changed: ReadonlyMap<string, AgentsItem>,
  replaced: ReadonlyMap<string, { row: LoadedRow; item: AgentsItem }>,
): Promise<GroupPlan | null> {
  if (session.replays > 0) return fallback("a session with replays");
  const meta = session.metadata as Record<string, unknown> | null;
  if (meta && typeof meta === "object" && "repairedCharacters" in meta) return fallback("repaired characters");
  if (session.costUsd !== 0) return fallback("costs");
  const sessionId = session.id;

  // The aggregate before the request (a session written whole gets it from its rows once).
  const state = asAgentsState(session.traceState) ?? (await stateFromRows(tx, session, key));
  if (!state) return null;

  // The window: whole traces, from the earliest start C of their spans (before and after the request) on.
  const windowRows = new Map<string, LoadedRow>();
  for (const t of traces) for (const r of rowsOfTrace.get(t) ?? []) windowRows.set(idOf(r.traceId, r.spanId), r);
  const window = new Set(traces);
  let read: WindowRead;
  let after: AgentsItem[];
  for (;;) {
    const items = new Map([...windowRows].map(([id, r]) => [id, r.item]));
    for (const [id, item] of changed) if (window.has(ids(item).traceId)) items.set(id, item);
    after = [...items.values()];
    const starts = [...after, ...[...windowRows.values()].map((r) => r.item)].flatMap((i) =>
      isSpan(i) ? [nanos(i.startedAt)] : [],
    );
    const c = starts.reduce((m, s) => (s < m ? s : m), NO_SPANS);
    // The window's calls' cache keys (the same whatever conversation it continues).
    const { steps } = agentsSteps(after.filter(isSpan), []);
    const keys = [
      ...new Set(assemble(steps).flatMap((e) => (e.cacheKey !== null && e.occurrence !== null ? [e.cacheKey] : []))),
    ];
    read = await readWindow(tx, sessionId, session.eventCount, c, [...window], keys);
    // Traces with a span ending at or after C join the window.
    if (read.reaching.length === 0) break;
    const joining = read.reaching.map((r) => r.traceId);
    const rows = await rowsOfTraces(tx, joining);
    if (rows.some((r) => r.sessionId !== sessionId)) return fallback("window rows of another session");
    for (const r of rows) windowRows.set(idOf(r.traceId, r.spanId), r);
    for (const t of joining) window.add(t);
  }

  const storedTail = read.tail;
  const from = read.from;
  if (read.untimed > 0) return fallback("events without a start time");
  if (storedTail.some((e, i) => e.seq !== from + i)) return fallback("events out of time order");
  const anchors = read.anchors;
  if (anchors.some((a) => a.seq !== from - 1 && a.inputPrefixSeq !== null))
    return fallback("first events stored with a prefix");

  // The window mapped; any warning is the request's (stored items passed the same check): the rebuild refuses it.
  const warnings: { path: string; message: string }[] = [];
  const { steps, synthesized } = agentsSteps(after.filter(isSpan), warnings);
  if (warnings.length > 0) return fallback("attribute warnings");

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
  agents = addToAggregate(
    agents,
    [...changed].filter(([id, item]) => !replaced.has(id) && window.has(ids(item).traceId)).map(([, item]) => item),
  );
  const synthesizedAfter = [...new Set([...state.synthesized.filter((t) => !window.has(t)), ...synthesized])].sort();
  const counts = eventCounts(state, tail, storedTail);

  // The session's fields, from the aggregate and the facts about its events.
  const firstModelInput =
    read.fm !== null ? anchors.find((a) => a.seq === read.fm)?.input : tail.find((e) => e.kind === "model_call")?.input;
  const fields = agentsGroupFields(key, agents, {
    firstModelInput,
    toolNames: counts.toolCalls.map(([n]) => n),
    synthesizedIds: synthesizedAfter.length > 0,
  });
  if (from + tail.length === 0) return fallback("no events");
  const checked = storableSessions([{ ...fields, events: tail }]);
  if (!checked.ok || "repairedCharacters" in checked.sessions[0]!.metadata)
    return fallback("unstorable or repaired values");

  // The session row's figures: the stored ones, less the window's old events, plus its new ones.
  if (storedTail.some((e) => (e.costUsd ?? 0) !== 0) || tail.some((e) => (e.usage?.costUsd ?? 0) !== 0))
    return fallback("costs");
  const minus = (f: (e: StoredEvent) => number) => storedTail.reduce((n, e) => n + f(e), 0);
  const plus = (f: (e: SessionEvent) => number) => tail.reduce((n, e) => n + f(e), 0);
  const inputTokens = session.inputTokens - minus((e) => e.inputTokens ?? 0) + plus((e) => e.usage?.inputTokens ?? 0);
  const outputTokens =
    session.outputTokens - minus((e) => e.outputTokens ?? 0) + plus((e) => e.usage?.outputTokens ?? 0);
  if (inputTokens > INT_MAX || outputTokens > INT_MAX) return fallback("token totals out of range");
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
      .filter((a) => a.seq === read.fm || a.seq === read.fu || a.seq === read.lf)
      .sort((a, b) => a.seq - b.seq)
      .map((a) => ({ ...anchorAsEvent(a), input: a.input, output: a.output })),
    ...tail,
  ];
  const searchText = searchTextFor({ ...fields, events: searchEvents });
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
    state: { agents, synthesized: synthesizedAfter, ...counts, agentKey } satisfies AgentsState as never,
    ensure: agentKey !== state.agentKey,
  };
}

/**
 * The state of a session written whole (by the full rebuild, or before states existed): its rows read
 * and mapped once, checked against its stored events; its span rows get the columns the window reads.
 */
async function stateFromRows(tx: DbClient, session: SessionRow, key: string): Promise<AgentsState | null> {
  const [{ rows: text }] = await tx.$queryRaw<[{ rows: string }]>`
    SELECT coalesce(json_agg(json_build_object('id', id, 'groupKey', "groupKey", 'traceId', "traceId",
      'spanId', "spanId", 'sessionId', "sessionId", 'packed', encode(packed, 'base64'), 'payload', payload,
      'lastNs', "lastNs")), '[]')::text AS rows
    FROM "TraceSpan" WHERE "sessionId" = ${session.id}`;
  const json = JSON.parse(text) as (JsonRow & { lastNs: unknown })[];
  if (json.length === 0) return fallback("a session without rows");
  if (!json.every((r) => r.groupKey === PREFIX + key)) return fallback("rows of another group");
  const rows = json.map(fromJson);
  const items = rows.map((r) => r.item);
  const spans = items.filter(isSpan);
  if (!spans.every(inRange)) return fallback("times out of range");
  const { steps, synthesized } = agentsSteps(spans, []);
  const events = assemble(steps);
  if (events.length !== session.eventCount) return fallback("stored events do not match their rows");
  const bare = json.flatMap((r, i) => {
    const item = rows[i]!.item;
    return r.lastNs === null && isSpan(item) ? [{ id: r.id, digest: digestOf(item) }] : [];
  });
  if (bare.length > 0) {
    const records = bare.map(({ id, digest }) => {
      const c = digestColumns(digest);
      return { id, digest, startNs: String(c.startNs), lastNs: String(c.lastNs), role: c.role };
    });
    await tx.$executeRaw`
      UPDATE "TraceSpan" t SET digest = x.digest, "startNs" = x."startNs"::bigint, "lastNs" = x."lastNs"::bigint, role = x.role
      FROM jsonb_to_recordset(${JSON.stringify(records)}::jsonb) AS x(id text, digest jsonb, "startNs" text, "lastNs" text, role text)
      WHERE t.id = x.id`;
  }
  return {
    agents: addToAggregate(emptyAggregate(), items),
    synthesized: [...synthesized].sort(),
    ...eventCounts(null, events),
    agentKey: "",
  };
}
