import {
  addDigests,
  aggregateOf,
  bySpanId,
  digestOf,
  factsOf,
  groupSpans,
  mapSessionGroup,
  readSpan,
  sessionFields,
  sessionGroupKey,
  stepsOf,
  type OtlpFormat,
  type OtlpSpan,
  type SpanAggregate,
  type SpanDigest,
} from "../otlp";
import type { Message } from "@/lib/replay";
import type { ImportFormat, ImportIssue } from "../types";
import {
  cacheKeysOf,
  planCreatedGroups,
  planTouchedGroups,
  planResult,
  rowsByTrace,
  type Composition,
  type GroupFormat,
  type Window,
} from "./group";
import {
  agentKeyOf,
  asTraceState,
  digestColumns,
  eventCounts,
  fallback,
  idOf,
  isDigest,
  isFallback,
  sameAgentInputs,
  traceStateOf,
  withoutTraceIds,
  type TraceState,
} from "./state";
import type { Fallback, IncrementPlan, Planner, RebuiltGroup, Read, SessionRow, StoredRow, WindowRead } from "./types";

// ---------------------------------------------------------------------------
// Incremental OTLP ingest: the plan of an export that adds spans to sessions
// (see ./group.ts for the window). The mapper's choices never cross from the
// prefix into the window: events are ordered by time, a trace's final answer
// and a tool's fallback match stay within its trace, and a tool tied by call
// id to a model call of another trace sends the export to the full rebuild.
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
// falls back to that rebuild: a regrouping (a trace moving between groups), a
// group without a session yet, a session with replays (kept and superseded), a
// span of the prefix in the millisecond of C, a request with attribute
// warnings, a repaired or refused value, rows stored before digests existed,
// events out of time order.
// ---------------------------------------------------------------------------

export const OTLP_PREFIX = "otlp:";
export const OTLP_FORMATS = ["otlp-json", "otlp-protobuf"];

/** The request's spans, one copy each, and how copies compare. */
export type IncrementRequest<T> = {
  /** Every span of the request, one copy each, by `idOf`. */
  fresh: ReadonlyMap<string, T>;
  better: (a: T, b: T) => boolean;
  fingerprint: (s: T) => string;
};

type Reading = ReturnType<typeof readSpan>;
type Row = StoredRow<OtlpSpan>;

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

/**
 * The plan of an OTLP request stored incrementally, or a fallback (the full rebuild). Reads the stored
 * rows of its traces (with their payloads: the window re-maps them) and the sessions of every group it
 * reaches (the full rebuild reports them all) first.
 */
export function* planOtlpIncrement(
  request: IncrementRequest<OtlpSpan>,
  format: OtlpFormat,
): Planner<IncrementPlan<TraceState>> {
  const { fresh } = request;
  const traceIds = [...new Set([...fresh.values()].map((s) => s.traceId))];
  const ownKeys = [...new Set([...fresh.values()].map((s) => sessionGroupKey(s)))];
  const loaded = (yield { kind: "load", traceIds, ownKeys }) as { rows: Row[]; sessions: SessionRow[] };
  const { rows: stored, sessions: sessionRows } = loaded;
  if (!stored.every((r) => r.groupKey.startsWith(OTLP_PREFIX)))
    return fallback("a trace id shared with another source");
  if (!stored.every((r) => isDigest(r.digest))) return fallback("rows stored before digests");
  // Nothing stored of its traces and no session of any group its spans name: every group it touches may be
  // new, and is then mapped whole from the request's spans, as the full rebuild would map it.
  if (stored.length === 0 && sessionRows.length === 0) return yield* planNewGroups(fresh, ownKeys, format);
  const storedById = new Map(stored.map((r) => [idOf(r.traceId, r.spanId), r]));

  // New spans, and better copies of stored ones; the request's spans read (any warning is the full rebuild's refusal).
  const inserted: OtlpSpan[] = [];
  const replaced = new Map<string, { row: Row; span: OtlpSpan }>();
  for (const [id, span] of fresh) {
    const row = storedById.get(id);
    if (!row) inserted.push(span);
    else {
      const before = row.item();
      if (request.better(span, before) && request.fingerprint(span) !== request.fingerprint(before))
        replaced.set(id, { row, span });
    }
  }
  const warnings: { path: string; message: string }[] = [];
  const readings = new Map<string, Reading>();
  for (const span of [...inserted, ...[...replaced.values()].map((r) => r.span)])
    readings.set(idOf(span.traceId, span.spanId), readSpan(span, warnings));
  if (warnings.length > 0) return fallback("attribute warnings");
  const freshDigests = new Map([...readings].map(([id, r]) => [id, digestOf(r)]));

  // Each trace's group, before and after: no regrouping.
  const rowsOfTrace = rowsByTrace(stored);
  const groupAfter = new Map<string, string>();
  for (const traceId of traceIds) {
    const rows = rowsOfTrace.get(traceId) ?? [];
    const digests = new Map(rows.map((r) => [idOf(r.traceId, r.spanId), r.digest as SpanDigest]));
    for (const [id, d] of freshDigests) if (d.traceId === traceId) digests.set(id, d);
    const key = groupOfTrace(traceId, digests.values());
    if (rows.some((r) => r.groupKey !== OTLP_PREFIX + key)) return fallback("regrouping");
    groupAfter.set(traceId, key);
  }
  const reached = new Set([...groupAfter.values(), ...ownKeys]);

  // A plan for every group the request changes.
  const touchedTraces = new Set([...freshDigests.values()].map((d) => d.traceId));
  const sessionOfKey = new Map(sessionRows.map((s) => [s.externalId ?? "", s]));
  const groupFormat = otlpGroupFormat(freshDigests, readings, replaced);
  const groups = yield* planTouchedGroups(
    groupFormat,
    { traces: touchedTraces, groupAfter, sessionOfKey, rowsOfTrace },
    (plan, key, session) => {
      const spans = inserted
        .filter((span) => groupAfter.get(span.traceId) === key)
        .map((span) => {
          const digest = freshDigests.get(idOf(span.traceId, span.spanId))!;
          return {
            groupKey: OTLP_PREFIX + key,
            traceId: span.traceId,
            spanId: span.spanId,
            sessionId: session.id,
            item: span,
            digest,
            columns: digestColumns(digest),
          };
        });
      return { plan, spans, fixes: [], derived: false };
    },
  );
  if (isFallback(groups)) return groups;

  const replacements = [...replaced].map(([id, { row, span }]) => {
    const digest = freshDigests.get(id)!;
    return { rowId: row.id, item: span, digest, columns: digestColumns(digest) };
  });
  return planResult(groups, replacements, { sessionRows, reached, inserted: inserted.length, updated: replaced.size });
}

/** Every group of some spans mapped whole (the full rebuild's mapping), with the mapper's warnings and each span's digest. */
export function otlpGroups(
  spans: OtlpSpan[],
  format: OtlpFormat,
): { groups: RebuiltGroup[]; warnings: ImportIssue[]; digests: Map<string, SpanDigest> } {
  const groups: RebuiltGroup[] = [];
  const warnings: ImportIssue[] = [];
  const digests = new Map<string, SpanDigest>();
  for (const [key, members] of groupSpans(spans)) {
    const mapped = mapSessionGroup(key, members, { format });
    warnings.push(...mapped.warnings);
    for (const d of mapped.digests) digests.set(idOf(d.traceId, d.spanId), d);
    const memberIds = members.map((s) => idOf(s.traceId, s.spanId));
    groups.push({
      key,
      memberIds,
      session: mapped.session,
      state: (session) =>
        traceStateOf(
          session,
          memberIds.map((id) => digests.get(id)!),
        ),
    });
  }
  return { groups, warnings, digests };
}

/**
 * The plan of a request none of whose traces is stored and none of whose groups has a session: every group new,
 * mapped from the request's spans alone, unless one is stored under its groups' keys (planCreatedGroups).
 */
function* planNewGroups(
  fresh: ReadonlyMap<string, OtlpSpan>,
  ownKeys: readonly string[],
  format: OtlpFormat,
): Generator<Read, IncrementPlan<TraceState> | Fallback, unknown> {
  const mapped = otlpGroups([...fresh.values()], format);
  const storedKeys = mapped.groups.map((g) => OTLP_PREFIX + g.key);
  return yield* planCreatedGroups(
    mapped,
    { ownKeys, members: "spans", storedKeys, size: fresh.size },
    {
      state: (g, session) => g.state(session),
      spans: (g) =>
        g.memberIds.map((id) => {
          const span = fresh.get(id)!;
          const digest = mapped.digests.get(id)!;
          return {
            groupKey: OTLP_PREFIX + g.key,
            traceId: span.traceId,
            spanId: span.spanId,
            sessionId: null,
            item: span,
            digest,
            columns: digestColumns(digest),
          };
        }),
    },
  );
}

type OtlpComposition = Composition & { digestsBefore: SpanDigest[]; digestsAfter: SpanDigest[] };

/** The OTLP strategy of the group planner, for one request. */
function otlpGroupFormat(
  freshDigests: ReadonlyMap<string, SpanDigest>,
  freshReadings: ReadonlyMap<string, Reading>,
  replaced: ReadonlyMap<string, { row: Row; span: OtlpSpan }>,
): GroupFormat<OtlpSpan, TraceState | null, OtlpComposition, TraceState> {
  // The stored spans read, once each whatever the windows they join.
  const ignored: { path: string; message: string }[] = [];
  const storedReadings = new Map<string, Reading>();
  return {
    *begin() {
      return null;
    },
    compose: (window) => composeWindow(window, freshDigests, freshReadings, storedReadings, ignored),
    reaching: (read, c) =>
      read.reaching.some((r) => BigInt(r.last) < c) ? "a prefix span in the window's first millisecond" : null,
    joining: (rows, sessionId) =>
      rows.some((r) => r.sessionId !== sessionId || !isDigest(r.digest)) ? "window rows unreadable" : null,
    growsInside: false,
    settle: settleOtlp,
    previous: previousOtlp,
    *finish({ group, base, window, read }, tail, storedTail) {
      const state = base!;
      // The aggregate after the request: the new spans added (a replaced span's old copy cannot be taken out: re-read).
      const newDigests = [...freshDigests.values()].filter((d) => window.traces.has(d.traceId));
      const replacedHere = [...replaced.keys()].some(
        (id) => freshDigests.get(id) && window.traces.has(freshDigests.get(id)!.traceId),
      );
      let spans: SpanAggregate;
      if (replacedHere) {
        const all = (yield { kind: "sessionDigests", sessionId: group.session.id }) as {
          traceId: string;
          spanId: string;
          digest: unknown;
        }[];
        const digests = new Map(all.map((r) => [idOf(r.traceId, r.spanId), r.digest as SpanDigest]));
        for (const d of newDigests) digests.set(idOf(d.traceId, d.spanId), d);
        spans = aggregateOf(digests.values());
      } else
        spans = addDigests(
          state.spans,
          newDigests.filter((d) => !window.rows.has(idOf(d.traceId, d.spanId))),
        );
      const counts = eventCounts(state, tail, storedTail);

      // The session's fields, from the aggregate and the two facts about its events.
      const firstModelInput = read.anchors.find((a) => a.seq === read.fm)?.input ?? factsOf(tail).firstModelInput;
      const fields = sessionFields(
        group.key,
        spans,
        { firstModelInput, toolCallNames: counts.toolCalls.map(([n]) => n) },
        group.session.format as ImportFormat,
      );
      if (!fields) return fallback("no session fields");
      // The hash of the agent, version and tools is kept while nothing it is made of changed (hashing the
      // tools' schemas costs more than most of an export's planning).
      const agentKey =
        state.agentKey !== "" && !replacedHere && sameAgentInputs(state, { spans, ...counts })
          ? state.agentKey
          : agentKeyOf(fields);
      return {
        fields,
        counts,
        state: { spans: withoutTraceIds(spans), ...counts, agentKey },
        ensure: agentKey !== state.agentKey,
      };
    },
  };
}

/** The window's digests before and after the request, C, its call ids, its spans read and their steps. */
function composeWindow(
  window: Window<OtlpSpan>,
  freshDigests: ReadonlyMap<string, SpanDigest>,
  freshReadings: ReadonlyMap<string, Reading>,
  storedReadings: Map<string, Reading>,
  ignored: { path: string; message: string }[],
): OtlpComposition {
  const after = new Map([...window.rows].map(([id, r]) => [id, r.digest as SpanDigest]));
  for (const [id, d] of freshDigests) if (window.traces.has(d.traceId)) after.set(id, d);
  const digestsAfter = [...after.values()];
  const digestsBefore = [...window.rows.values()].map((r) => r.digest as SpanDigest);
  const c = [...digestsAfter, ...digestsBefore].reduce(
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
  for (const [id, r] of window.rows) if (!storedReadings.has(id)) storedReadings.set(id, readSpan(r.item(), ignored));
  const readings = [
    ...new Map([
      ...[...window.rows.keys()].map((id) => [id, storedReadings.get(id)!] as const),
      ...[...freshReadings].filter(([, r]) => window.traces.has(r.span.traceId)),
    ]).values(),
  ].sort((a, b) => bySpanId(a.span, b.span));
  const steps = stepsOf(readings);
  return { c, ids, keys: cacheKeysOf(steps), steps, digestsBefore, digestsAfter };
}

/** The checks once the window is whole, and the session's state before the request. */
function* settleOtlp({
  group,
  window,
  comp,
  read,
}: {
  group: { session: SessionRow };
  window: Window<OtlpSpan>;
  comp: OtlpComposition;
  read: WindowRead<OtlpSpan>;
}): Generator<
  { kind: "sessionDigests"; sessionId: string } | { kind: "prefixEvents"; sessionId: string; from: number },
  TraceState | { fallback: string },
  unknown
> {
  const { session } = group;
  // No tool tied by call id across the window's edge, before or after the request.
  const outsideDigests = (read.outside ?? []).map((r) => ({
    traceId: r.traceId,
    role: r.role,
    requests: r.role === "model" ? r.callIds : [],
    callId: r.role === "tool" ? (r.callIds[0] ?? null) : null,
  }));
  for (const digests of [comp.digestsBefore, comp.digestsAfter])
    if (tiedAcrossEdge([...digests, ...outsideDigests], window.traces))
      return fallback("a call id tied across the window's edge");

  // The stored events from C's millisecond on are the window's; those before it are the prefix's, and stay.
  const storedTail = read.tail;
  const from = read.from;
  if (storedTail.some((e, i) => e.seq !== from + i)) return fallback("events out of time order");

  // The aggregate before the request (a session stored before aggregates gets it from its rows once).
  // (Its trace ids are rows of their own: those of the spans added here are added as it is written.)
  let state = asTraceState(session.traceState);
  if (state) state = { ...state, spans: withoutTraceIds(state.spans) };
  else {
    const rows = (yield { kind: "sessionDigests", sessionId: session.id }) as { digest: unknown }[];
    if (!rows.every((r) => isDigest(r.digest))) return fallback("rows stored before digests");
    const prefix = (yield { kind: "prefixEvents", sessionId: session.id, from }) as {
      kind: string;
      name: string;
      status: string;
    }[];
    state = {
      spans: aggregateOf(rows.map((r) => r.digest as SpanDigest)),
      ...eventCounts(null, [...prefix, ...storedTail]),
      agentKey: "",
    };
  }
  const count = (list: readonly { role?: string | null; kind?: string }[], what: string) =>
    list.filter((x) => x.role === what || x.kind === what).length;
  if (
    session.modelCallCount - count(storedTail, "model_call") !==
    state.spans.models - count(comp.digestsBefore, "model")
  )
    return fallback("prefix model calls do not match");
  if (session.toolCallCount - count(storedTail, "tool_call") !== state.spans.tools - count(comp.digestsBefore, "tool"))
    return fallback("prefix tool calls do not match");
  if (read.anchors.some((a) => a.seq !== from - 1 && a.inputPrefixSeq !== null))
    return fallback("first events stored with a prefix");
  return state;
}

/** Whether a tool is tied by call id to a model call on the other side of the window's edge. */
function tiedAcrossEdge(
  all: readonly { traceId: string; role: string | null; requests?: string[] | null; callId?: string | null }[],
  window: ReadonlySet<string>,
): boolean {
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
    for (const t of traces) if (window.has(t) !== inside) return true;
  }
  return false;
}

/** The conversation the window continues: the prefix's last model call, read from its span. */
function previousOtlp(
  read: WindowRead<OtlpSpan>,
): { messages: Message[]; model: { seq: number; input: unknown } } | null | string {
  if (read.lm === null) return null;
  let last: Row | null = null;
  for (const r of read.lastModel)
    if (!last || laterThan(timingOf(r.digest as SpanDigest), timingOf(last.digest as SpanDigest))) last = r;
  if (!last) return "prefix model span not found";
  const reading = readSpan(last.item(), []);
  if (reading.role !== "model") return "prefix model span unreadable";
  return {
    messages: [...reading.step.input.messages, ...(reading.step.output ? [reading.step.output] : [])],
    model: { seq: read.lm, input: reading.step.input },
  };
}
