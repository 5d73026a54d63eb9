import { gunzipSync, gzipSync } from "node:zlib";
import { storableSessions } from "@/lib/hostile/storable";
import {
  assemble,
  bySpanId,
  factsOf,
  readSpan,
  sessionFields,
  stepsOf,
  digestOf,
  type OtlpSpan,
  type SpanDigest,
} from "@/lib/ingest/otlp";
import type { ImportedSession, ImportFormat } from "@/lib/ingest/types";
import type { Message, SessionEvent } from "@/lib/replay";
import type { DbClient } from "./client";
import { Prisma } from "./generated/client";
import { ensureAgent, eventRows, replaceChangedEvents, searchTextFor, summarize, type SavedSession } from "./sessions";

// ---------------------------------------------------------------------------
// Incremental trace ingest: an OTLP export that adds spans to a session
// re-maps only the WINDOW those spans touch and rewrites only the events from
// where the window starts, instead of re-mapping the whole session from all
// its stored spans.
//
// The window is a set of whole traces: the traces the export touches, plus
// every trace of the session with a span starting or ending at or after the
// earliest start C among them (repeated until nothing new joins). Every other
// trace (the prefix) lies wholly before C, and the mapper's choices never
// cross from the prefix into the window: events are ordered by time, a
// trace's final answer and a tool's fallback match stay within its trace, and
// a tool tied by call id to a model call of another trace sends the export to
// the full rebuild. So the session's events are the stored events before the
// window (untouched), then the window's events, mapped with the prefix's last
// model call as the conversation they continue (user turns, stored inputs)
// and its tool-call counts (occurrences). The session's own fields come from
// the small per-span digests of all its spans (`sessionFields`, as the full
// mapper computes them).
//
// Whatever the plan cannot show to give the full rebuild's result exactly
// falls back to that rebuild: a regrouping (a trace moving between groups), a
// group without a session yet, a session with replays (kept and superseded),
// a span of the prefix in the millisecond of C, a request with attribute
// warnings, a repaired or refused value, rows stored before digests existed.
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
  return new Uint8Array(gzipSync(JSON.stringify(rest)));
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

const isDigest = (v: unknown): v is SpanDigest => v !== null && typeof v === "object" && "traceId" in v;

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

/** The group key (unprefixed) of every trace, as `groupSpans` decides it: the session its earliest naming span names. */
function groupsOfTraces(digests: Iterable<SpanDigest>): Map<string, string> {
  const named = new Map<string, { id: string; start: bigint; spanId: string }>();
  const traces = new Set<string>();
  for (const d of digests) {
    traces.add(d.traceId);
    if (d.session === null) continue;
    const start = BigInt(d.start);
    const current = named.get(d.traceId);
    if (!current || start < current.start || (start === current.start && d.spanId < current.spanId))
      named.set(d.traceId, { id: d.session, start, spanId: d.spanId });
  }
  return new Map([...traces].map((t) => [t, named.has(t) ? `session:${named.get(t)!.id}` : `trace:${t}`]));
}

/** One group's incremental change, computed before anything is written. */
type GroupPlan = {
  key: string;
  sessionId: string;
  from: number;
  previousModel: { seq: number; input: unknown } | null;
  tail: SessionEvent[];
  session: ImportedSession;
  summary: ReturnType<typeof summarize>;
  searchText: string;
  eventCount: number;
};

export type IncrementResult = {
  sessions: (SavedSession & { externalId: string })[];
  newRows: Prisma.TraceSpanCreateManyInput[];
  updates: { id: string; data: Prisma.TraceSpanUpdateInput }[];
};

const PREFIX = "otlp:";

/** Why requests took the full rebuild, counted (for the benchmark and the tests). */
export const fallbacks = new Map<string, number>();
function fallback(reason: string): null {
  fallbacks.set(reason, (fallbacks.get(reason) ?? 0) + 1);
  return null;
}
const INT_MAX = 2_147_483_647;

/**
 * The incremental plan of an OTLP request, or null when it must take the full
 * rebuild. `fresh`: the request's spans to store (new, or better copies of
 * stored ones: `replaced`), `rows`: the stored rows of every group they reach.
 */
export async function planOtlpIncrement(
  tx: DbClient,
  rows: readonly SpanRow[],
  inserted: readonly OtlpSpan[],
  replaced: ReadonlyMap<string, OtlpSpan>,
): Promise<(IncrementResult & { write: (tx: DbClient) => Promise<void> }) | null> {
  if (!rows.every((r) => isDigest(r.digest))) return fallback("rows stored before digests");
  // The request's spans, read; any warning is the full rebuild's refusal.
  const warnings: { path: string; message: string }[] = [];
  const freshReadings = new Map<string, ReturnType<typeof readSpan>>();
  for (const span of [...inserted, ...replaced.values()])
    freshReadings.set(idOf(span.traceId, span.spanId), readSpan(span, warnings));
  if (warnings.length > 0) return fallback("attribute warnings");
  const freshDigests = new Map([...freshReadings].map(([id, r]) => [id, digestOf(r)]));

  // Digests after the request (and before it, for the replaced spans).
  const before = new Map<string, SpanDigest>();
  for (const r of rows) before.set(idOf(r.traceId, r.spanId), r.digest as SpanDigest);
  const after = new Map(before);
  for (const [id, d] of freshDigests) after.set(id, d);

  // No regrouping: every stored row stays in its group.
  const groupOf = groupsOfTraces(after.values());
  for (const r of rows) if (PREFIX + groupOf.get(r.traceId)! !== r.groupKey) return fallback("regrouping");
  const rowById = new Map(rows.map((r) => [idOf(r.traceId, r.spanId), r]));

  const touchedKeys = new Set([...freshDigests.values()].map((d) => groupOf.get(d.traceId)!));
  const plans: GroupPlan[] = [];
  for (const key of [...touchedKeys].sort()) {
    const members = rows.filter((r) => r.groupKey === PREFIX + key);
    const sessionIds = new Set(members.map((r) => r.sessionId));
    if (members.length === 0 || sessionIds.size !== 1 || sessionIds.has(null))
      return fallback("a group without a session yet");
    const plan = await planGroup(
      tx,
      key,
      [...sessionIds][0]!,
      members,
      groupOf,
      before,
      after,
      freshDigests,
      freshReadings,
    );
    if (!plan) return null;
    plans.push(plan);
  }

  const sessions: (SavedSession & { externalId: string })[] = [];
  const touchedIds = new Set(plans.map((p) => p.sessionId));
  // Groups the request reached but did not change are reported as they are (the full rebuild reports them too).
  const others = [...new Set(rows.filter((r) => r.sessionId && !touchedIds.has(r.sessionId)).map((r) => r.sessionId!))];
  const otherRows = others.length
    ? await tx.session.findMany({
        where: { id: { in: others } },
        select: { id: true, eventCount: true, externalId: true },
      })
    : [];
  const reported = [
    ...plans.map((p) => ({ id: p.sessionId, eventCount: p.eventCount, externalId: p.key })),
    ...otherRows.map((s) => ({ id: s.id, eventCount: s.eventCount, externalId: s.externalId ?? "" })),
  ].sort((a, b) => (a.externalId < b.externalId ? -1 : 1));
  sessions.push(...reported);

  const sessionOfKey = new Map(plans.map((p) => [p.key, p.sessionId]));
  const newRows: Prisma.TraceSpanCreateManyInput[] = inserted.map((span) => {
    const key = groupOf.get(span.traceId)!;
    return {
      groupKey: PREFIX + key,
      traceId: span.traceId,
      spanId: span.spanId,
      sessionId: sessionOfKey.get(key) ?? null,
      packed: pack(span),
      digest: freshDigests.get(idOf(span.traceId, span.spanId)) as unknown as Prisma.InputJsonValue,
    };
  });
  const updates = [...replaced].map(([id, span]) => ({
    id: rowById.get(id)!.id,
    data: {
      payload: Prisma.DbNull,
      packed: pack(span),
      digest: freshDigests.get(id) as unknown as Prisma.InputJsonValue,
    },
  }));
  return {
    sessions,
    newRows,
    updates,
    write: async (tx) => {
      for (const plan of plans) await writePlan(tx, plan);
    },
  };
}

type SmallEvent = {
  seq: number;
  kind: string;
  name: string;
  status: string;
  /** Milliseconds since the epoch. */
  startedAt: number | null;
  inputTokens: number | null;
  outputTokens: number | null;
  costUsd: number | null;
  cacheKey: string | null;
  occurrence: number | null;
};

async function planGroup(
  tx: DbClient,
  key: string,
  sessionId: string,
  members: readonly SpanRow[],
  groupOf: ReadonlyMap<string, string>,
  before: ReadonlyMap<string, SpanDigest>,
  after: ReadonlyMap<string, SpanDigest>,
  fresh: ReadonlyMap<string, SpanDigest>,
  freshReadings: ReadonlyMap<string, ReturnType<typeof readSpan>>,
): Promise<GroupPlan | null> {
  const session = await tx.session.findUnique({
    where: { id: sessionId },
    select: { id: true, format: true, metadata: true, _count: { select: { replays: true } } },
  });
  if (!session || session._count.replays > 0) return fallback("a session with replays");
  const meta = session.metadata as Record<string, unknown> | null;
  if (meta && typeof meta === "object" && "repairedCharacters" in meta) return fallback("repaired characters");

  const memberIds = new Set(members.map((r) => idOf(r.traceId, r.spanId)));
  const freshHere = [...fresh.keys()].filter((id) => groupOf.get(fresh.get(id)!.traceId) === key);
  const ids = new Set([...memberIds, ...freshHere]);
  const digestsAfter = [...ids].map((id) => after.get(id)!);
  const digestsBefore = [...memberIds].map((id) => before.get(id)!);

  // The window: whole traces, from the earliest start C of the touched ones on.
  const extent = new Map<string, { min: bigint; max: bigint }>();
  for (const d of [...digestsAfter, ...digestsBefore]) {
    const start = BigInt(d.start);
    const last = d.end === null ? start : BigInt(d.end) > start ? BigInt(d.end) : start;
    const e = extent.get(d.traceId);
    if (!e) extent.set(d.traceId, { min: start, max: last });
    else {
      if (start < e.min) e.min = start;
      if (last > e.max) e.max = last;
    }
  }
  const window = new Set(freshHere.map((id) => fresh.get(id)!.traceId));
  let c = 0n;
  for (;;) {
    c = [...window].reduce(
      (m, t) => (extent.get(t)!.min < m ? extent.get(t)!.min : m),
      extent.get([...window][0]!)!.min,
    );
    const more = [...extent].filter(([t, e]) => !window.has(t) && e.max >= c).map(([t]) => t);
    if (more.length === 0) break;
    for (const t of more) window.add(t);
  }
  // Events carry milliseconds: the prefix must end before C's millisecond for the split to be read off them.
  const cMs = c / 1_000_000n;
  for (const [t, e] of extent)
    if (!window.has(t) && e.max >= cMs * 1_000_000n) return fallback("a prefix span in the window's first millisecond");

  // No tool tied by call id across the window's edge, before or after the request.
  for (const state of [digestsBefore, digestsAfter]) {
    const requesters = new Map<string, Set<string>>();
    for (const d of state)
      if (d.role === "model")
        for (const id of d.requests ?? []) {
          const set = requesters.get(id) ?? new Set<string>();
          set.add(d.traceId);
          requesters.set(id, set);
        }
    for (const d of state) {
      if (d.role !== "tool" || !d.callId) continue;
      const traces = requesters.get(d.callId);
      if (!traces || traces.has(d.traceId)) continue;
      const inside = window.has(d.traceId);
      for (const t of traces) if (window.has(t) !== inside) return fallback("a call id tied across the window's edge");
    }
  }

  // The stored events: those before C are the prefix's, and stay.
  const [{ events: text }] = await tx.$queryRaw<[{ events: string }]>`
    SELECT coalesce(json_agg(json_build_object('seq', seq, 'kind', kind, 'name', name, 'status', status,
      'startedAt', (extract(epoch FROM "startedAt") * 1000)::bigint, 'inputTokens', "inputTokens",
      'outputTokens', "outputTokens", 'costUsd', "costUsd", 'cacheKey', "cacheKey", 'occurrence', occurrence)
      ORDER BY seq)::text, '[]') AS events
    FROM "Event" WHERE "sessionId" = ${sessionId}`;
  const events = JSON.parse(text) as SmallEvent[];
  const cutMs = Number(cMs);
  let from = 0;
  while (from < events.length && events[from]!.startedAt !== null && events[from]!.startedAt! < cutMs) from++;
  for (let i = 0; i < events.length; i++) {
    if (events[i]!.seq !== i) return fallback("event numbering");
    if (i >= from && (events[i]!.startedAt === null || events[i]!.startedAt! < cutMs))
      return fallback("events out of time order");
  }
  const prefix = events.slice(0, from);
  const prefixDigests = digestsAfter.filter((d) => !window.has(d.traceId));
  const count = (kind: string) => prefix.filter((e) => e.kind === kind).length;
  if (count("model_call") !== prefixDigests.filter((d) => d.role === "model").length)
    return fallback("prefix model calls do not match");
  if (count("tool_call") !== prefixDigests.filter((d) => d.role === "tool").length)
    return fallback("prefix tool calls do not match");

  // The conversation the window continues: the prefix's last model call, read from its span.
  let lastModel: SpanDigest | null = null;
  for (const d of prefixDigests)
    if (d.role === "model" && (!lastModel || laterThan(timingOf(d), timingOf(lastModel)))) lastModel = d;
  const windowIds = digestsAfter.filter((d) => window.has(d.traceId)).map((d) => idOf(d.traceId, d.spanId));
  const storedIds = windowIds.filter((id) => !freshReadings.has(id));
  const rowOf = new Map(members.map((r) => [idOf(r.traceId, r.spanId), r.id]));
  const lastModelId = lastModel ? rowOf.get(idOf(lastModel.traceId, lastModel.spanId))! : null;
  const items = await loadItems<OtlpSpan>(tx, [
    ...storedIds.map((id) => rowOf.get(id)!),
    ...(lastModelId ? [lastModelId] : []),
  ]);
  const ignored: { path: string; message: string }[] = [];
  let previous: Message[] | null = null;
  let previousModel: GroupPlan["previousModel"] = null;
  if (lastModel) {
    const reading = readSpan(items.get(lastModelId!)!, ignored);
    if (reading.role !== "model") return fallback("prefix model span unreadable");
    previous = [...reading.step.input.messages, ...(reading.step.output ? [reading.step.output] : [])];
    const seq = prefix.findLast((e) => e.kind === "model_call")!.seq;
    previousModel = { seq, input: reading.step.input };
  }
  const readings = windowIds
    .map((id) => freshReadings.get(id) ?? readSpan(items.get(rowOf.get(id)!)!, ignored))
    .sort((a, b) => bySpanId(a.span, b.span));

  // The window's events, numbered after the prefix, occurrences counted on from the prefix's.
  const seen = new Map<string, number>();
  for (const e of prefix)
    if (e.cacheKey !== null && e.occurrence !== null) seen.set(e.cacheKey, (seen.get(e.cacheKey) ?? 0) + 1);
  const tail = assemble(stepsOf(readings), previous).map((e) => ({
    ...e,
    seq: e.seq + from,
    parentSeq: e.parentSeq === null ? null : e.parentSeq + from,
    occurrence:
      e.occurrence === null || e.cacheKey === null ? e.occurrence : e.occurrence + (seen.get(e.cacheKey) ?? 0),
  }));

  // The session's fields, from every span's digest and the two facts about its events.
  const firstModelSeq = prefix.find((e) => e.kind === "model_call")?.seq;
  const firstUserSeq = prefix.find((e) => e.kind === "user_message")?.seq;
  const lastFinalSeq = prefix.findLast((e) => e.kind === "final_output")?.seq;
  const wanted = [firstModelSeq, firstUserSeq, lastFinalSeq].filter((s): s is number => s !== undefined);
  const anchors = wanted.length
    ? await tx.event.findMany({
        where: { sessionId, seq: { in: wanted } },
        select: { seq: true, kind: true, input: true, output: true, inputPrefixSeq: true },
        orderBy: { seq: "asc" },
      })
    : [];
  if (anchors.some((a) => a.inputPrefixSeq !== null)) return fallback("first events stored with a prefix");
  const firstModelInput = anchors.find((a) => a.seq === firstModelSeq)?.input ?? factsOf(tail).firstModelInput;
  const toolCallNames = [
    ...prefix.filter((e) => e.kind === "tool_call").map((e) => e.name),
    ...factsOf(tail).toolCallNames,
  ];
  const format = session.format as ImportFormat;
  const fields = sessionFields(key, [...digestsAfter].sort(bySpanId), { firstModelInput, toolCallNames }, format);
  if (!fields) return fallback("no session fields");
  const checked = storableSessions([{ ...fields, format, events: tail }]);
  if (!checked.ok || "repairedCharacters" in checked.sessions[0]!.metadata)
    return fallback("unstorable or repaired values");

  // The session row's summary: the prefix's figures, then the tail's, in event order (as `summarize` adds them).
  const all = [...prefix.map(smallAsEvent), ...tail];
  const summary = summarize(all);
  if (summary.inputTokens > INT_MAX || summary.outputTokens > INT_MAX) return fallback("token totals out of range");
  const searchEvents = [
    ...anchors.map((a) => ({ ...smallAsEvent(prefix[a.seq]!), input: a.input, output: a.output })),
    ...tail,
  ];
  const searchText = searchTextFor({ ...fields, format, events: searchEvents });
  return {
    key,
    sessionId,
    from,
    previousModel,
    tail,
    session: { ...fields, format, events: tail },
    summary,
    searchText,
    eventCount: all.length,
  };
}

function smallAsEvent(e: SmallEvent): SessionEvent {
  return {
    seq: e.seq,
    kind: e.kind as SessionEvent["kind"],
    name: e.name,
    input: null,
    output: null,
    error: null,
    status: e.status as SessionEvent["status"],
    startedAt: e.startedAt === null ? null : new Date(e.startedAt).toISOString(),
    durationMs: null,
    usage: {
      ...(e.inputTokens === null ? {} : { inputTokens: e.inputTokens }),
      ...(e.outputTokens === null ? {} : { outputTokens: e.outputTokens }),
      ...(e.costUsd === null ? {} : { costUsd: e.costUsd }),
    },
    parentSeq: null,
    cacheKey: e.cacheKey,
    occurrence: e.occurrence,
  };
}

async function writePlan(tx: DbClient, plan: GroupPlan): Promise<void> {
  const s = plan.session;
  const { agent, version } = await ensureAgent(tx, s);
  await tx.session.update({
    where: { id: plan.sessionId },
    data: {
      agentId: agent.id,
      agentVersionId: version.id,
      title: s.title,
      startedAt: s.startedAt ? new Date(s.startedAt) : null,
      endedAt: s.endedAt ? new Date(s.endedAt) : null,
      durationMs: s.startedAt && s.endedAt ? Math.max(0, Date.parse(s.endedAt) - Date.parse(s.startedAt)) : null,
      ...plan.summary,
      searchText: plan.searchText,
      metadata: s.metadata as Prisma.InputJsonValue,
    },
  });
  await replaceChangedEvents(tx, plan.sessionId, eventRows(plan.sessionId, plan.tail, plan.previousModel), plan.from);
}
