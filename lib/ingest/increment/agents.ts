import { z } from "zod";
import {
  agentsSteps,
  mapOpenAiAgentsGroups,
  nanos,
  openAiAgentsGroupKey,
  spanKey,
  type AgentsGroup,
} from "../openai-agents";
import {
  addToAggregate,
  agentsGroupFields,
  emptyAggregate,
  replaceInAggregate,
  type AgentsAggregate,
} from "../openai-agents-aggregate";
import type { AgentsItem, AgentsSpan } from "../openai-agents-parse";
import { assemble } from "../otlp/assemble";
import { byCodePoint } from "../order";
import type { ImportedSession } from "../types";
import {
  cacheKeysOf,
  planCreatedGroups,
  planTouchedGroups,
  planResult,
  rowsByTrace,
  type Composition,
  type Context,
  type Finished,
  type GroupFormat,
} from "./group";
import type { IncrementRequest } from "./otlp";
import { agentKeyOf, eventCounts, fallback, idOf, isFallback } from "./state";
import type { SessionEvent } from "@/lib/replay";
import type {
  ColumnedRow,
  Fallback,
  IncrementPlan,
  Planner,
  Read,
  SessionRow,
  SpanColumns,
  StoredEvent,
  StoredRow,
} from "./types";

// ---------------------------------------------------------------------------
// Incremental ingest of OpenAI Agents SDK exports (see ./group.ts for the
// window). A function span is tied only to a generation of its own trace, a
// trace's final answer is its own last generation's, and events are ordered
// by time, so every other trace's events (the prefix) come before the
// window's and do not change.
//
// What the session's own fields need from ALL its items is kept on the
// session (`traceState`, `AgentsState`), a few numbers whatever the group's
// length: the items' aggregate (`AgentsAggregate`: time range, agent span,
// naming trace), how many traces have a synthesized call id, each tool name's
// and the incomplete events' counts, and what the agent upsert was last
// given. The full rebuild writes it with every session it writes; a session
// without a well-formed one (written before it existed) gets it from its rows.
//
// A request none of whose traces or groups is stored starts its groups on
// this path too: mapped whole from its items, as the full rebuild maps them.
//
// What cannot be done this way goes to the full rebuild ("agents: …"): a
// group without a session yet while other items are stored, a trace changing group (its trace item
// arriving after its spans), a session with replays, a better copy that
// moves the group's first start, last end or agent span, attribute warnings,
// repaired or refused values, rows of another source.
// ---------------------------------------------------------------------------

export const AGENTS_PREFIX = "openai-agents:";
export const AGENTS_FORMAT = "openai-agents";
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

export const agentsIds = (item: AgentsItem) =>
  item.object === "trace" ? { traceId: item.id, spanId: item.id } : { traceId: item.traceId, spanId: item.id };
const isSpan = (item: AgentsItem): item is AgentsSpan => item.object === "trace.span";
type Row = StoredRow<AgentsItem>;

function inRange(span: AgentsSpan): boolean {
  const ok = (iso: string | null) => iso === null || (Date.parse(iso) >= 0 && Date.parse(iso) < MAX_MS);
  return ok(span.startedAt) && ok(span.endedAt);
}

/** The plan of an Agents SDK request stored incrementally, or a fallback (the full rebuild). */
export function* planAgentsIncrement(request: IncrementRequest<AgentsItem>): Planner<IncrementPlan<AgentsState>> {
  const planned = yield* planRequest(request);
  return isFallback(planned) ? { fallback: `agents: ${planned.fallback}` } : planned;
}

function* planRequest(request: IncrementRequest<AgentsItem>): Planner<IncrementPlan<AgentsState>> {
  const { fresh } = request;
  const traceIds = [...new Set([...fresh.values()].map((i) => agentsIds(i).traceId))];
  const ownKeys = [...new Set([...fresh.values()].map((i) => openAiAgentsGroupKey(i)))];
  // The stored rows of the request's traces (with their items: the window re-maps them), and the sessions of
  // every group the request reaches (the full rebuild reports them all), in one round trip.
  const loaded = (yield { kind: "load", traceIds, ownKeys }) as { rows: Row[]; sessions: SessionRow[] };
  const { rows: stored, sessions: sessionRows } = loaded;
  if (!stored.every((r) => r.groupKey.startsWith(AGENTS_PREFIX)))
    return fallback("a trace id shared with another source");
  const storedById = new Map(stored.map((r) => [idOf(r.traceId, r.spanId), r]));

  // New items, and better copies of stored ones.
  const inserted: AgentsItem[] = [];
  const replaced = new Map<string, { row: Row; item: AgentsItem }>();
  for (const [id, item] of fresh) {
    if (isSpan(item) && item.id === item.traceId) return fallback("a span with its trace's id");
    if (isSpan(item) && !inRange(item)) return fallback("times out of range");
    const row = storedById.get(id);
    if (!row) inserted.push(item);
    else {
      if (row.item().object !== item.object) return fallback("an item stored as another kind");
      if (request.better(item, row.item()) && request.fingerprint(item) !== request.fingerprint(row.item()))
        replaced.set(id, { row, item });
    }
  }
  // Nothing stored of its traces and no session of any group it names: its groups may all be new.
  if (stored.length === 0 && sessionRows.length === 0) return yield* planNewGroups(fresh, ownKeys);

  // Each trace's group after the request: the group its trace item names, else the trace. No regrouping.
  const rowsOfTrace = rowsByTrace(stored);
  const changed = new Map<string, AgentsItem>();
  for (const item of inserted) changed.set(idOf(agentsIds(item).traceId, agentsIds(item).spanId), item);
  for (const [id, { item }] of replaced) changed.set(id, item);
  const groupAfter = new Map<string, string>();
  for (const traceId of traceIds) {
    const id = idOf(traceId, traceId);
    const traceItem = changed.get(id) ?? storedById.get(id)?.item();
    const key = traceItem?.object === "trace" ? openAiAgentsGroupKey(traceItem) : `trace:${traceId}`;
    if ((rowsOfTrace.get(traceId) ?? []).some((r) => r.groupKey !== AGENTS_PREFIX + key)) return fallback("regrouping");
    groupAfter.set(traceId, key);
  }
  const reached = new Set([...groupAfter.values(), ...ownKeys]);
  const sessionOfKey = new Map(sessionRows.map((s) => [s.externalId ?? "", s]));
  // A trace's own group holding a session while the trace is stored under another: the rebuild deletes it.
  for (const [traceId, key] of groupAfter)
    if (key !== `trace:${traceId}` && sessionOfKey.has(`trace:${traceId}`)) return fallback("a stale trace session");

  // A plan for every group the request changes.
  const touchedTraces = new Set([...changed.values()].map((i) => agentsIds(i).traceId));
  const format = agentsGroupFormat(changed, replaced);
  const groups = yield* planTouchedGroups(
    format,
    { traces: touchedTraces, groupAfter, sessionOfKey, rowsOfTrace },
    (plan, key, session) => {
      const base = format.bases.get(session.id)!;
      const spans = inserted
        .filter((item) => groupAfter.get(agentsIds(item).traceId) === key)
        .map((item) => ({
          groupKey: AGENTS_PREFIX + key,
          ...agentsIds(item),
          sessionId: session.id,
          item,
          digest: null,
          columns: agentsColumns(item),
        }));
      return { plan, spans, fixes: base.fixes, derived: base.derived };
    },
  );
  if (isFallback(groups)) return groups;

  const replacements = [...replaced.values()].map(({ row, item }) => ({
    rowId: row.id,
    item,
    digest: null,
    columns: agentsColumns(item),
  }));
  return planResult(groups, replacements, { sessionRows, reached, inserted: inserted.length, updated: replaced.size });
}

/**
 * The plan of a request none of whose traces is stored and none of whose groups has a session: every group new,
 * mapped from the request's items alone, unless one is stored under its groups' keys (planCreatedGroups).
 */
function* planNewGroups(
  fresh: ReadonlyMap<string, AgentsItem>,
  ownKeys: readonly string[],
): Generator<Read, IncrementPlan<AgentsState> | Fallback, unknown> {
  const mapped = mapOpenAiAgentsGroups([...fresh.values()]);
  const storedKeys = [...new Set([...ownKeys, ...mapped.groups.map((g) => g.key)])].map((k) => AGENTS_PREFIX + k);
  return yield* planCreatedGroups(
    mapped,
    { ownKeys, members: "items", storedKeys, size: fresh.size },
    {
      state: agentsStateOf,
      spans: (g) =>
        g.items.map((item) => {
          const ids = agentsIds(item);
          return {
            groupKey: AGENTS_PREFIX + g.key,
            ...ids,
            sessionId: null,
            item: fresh.get(idOf(ids.traceId, ids.spanId))!,
            digest: null,
            columns: agentsColumns(item),
          };
        }),
    },
  );
}

/** What a session's increment starts from: its state, its trace ids, and any row columns to correct first. */
/** `derived`: taken from the rows, the stored state or trace ids not being trusted. */
type Base = { state: AgentsState; traceIds: string[]; fixes: ColumnsRecord[]; derived: boolean };
type AgentsComposition = Composition & { warned: boolean; synthesized: Set<string> };

/** The mapper's order of model calls (start, then end with none first, then key). */
function laterModel(a: AgentsSpan, b: AgentsSpan): boolean {
  const [sa, sb] = [nanos(a.startedAt), nanos(b.startedAt)];
  if (sa !== sb) return sa > sb;
  const ea = a.endedAt === null ? -1n : nanos(a.endedAt);
  const eb = b.endedAt === null ? -1n : nanos(b.endedAt);
  if (ea !== eb) return ea > eb;
  return spanKey(a) > spanKey(b);
}

/** The Agents SDK strategy of the group planner, for one request (`bases`: each planned session's). */
function agentsGroupFormat(
  changed: ReadonlyMap<string, AgentsItem>,
  replaced: ReadonlyMap<string, { row: Row; item: AgentsItem }>,
): GroupFormat<AgentsItem, Base, AgentsComposition, AgentsState> & { bases: Map<string, Base> } {
  const bases = new Map<string, Base>();
  return {
    bases,
    *begin({ key, session }) {
      if (session.costUsd !== 0) return fallback("costs");
      // The state before the request; a session without a well-formed one gets it from its rows (written with the plan).
      const stored = asAgentsState(session.traceState);
      // Trusted, the stored rows get the request's new traces as it is written; else the list is rebuilt whole.
      const base =
        stored && session.listed === true
          ? { state: stored, traceIds: [], fixes: [], derived: false }
          : yield* stateFromRows(session, key);
      if (!isFallback(base)) bases.set(session.id, base);
      return base;
    },
    compose(window) {
      const items = new Map<string, AgentsItem>();
      for (const [id, r] of window.rows) items.set(id, r.item());
      for (const [id, item] of changed) if (window.traces.has(agentsIds(item).traceId)) items.set(id, item);
      const after = [...items.values()];
      let c = NO_SPANS;
      for (const i of after) if (isSpan(i) && nanos(i.startedAt) < c) c = nanos(i.startedAt);
      for (const r of window.rows.values()) {
        const item = r.item();
        if (isSpan(item) && nanos(item.startedAt) < c) c = nanos(item.startedAt);
      }
      // Any warning is the request's (stored items passed the same check): the rebuild refuses it.
      const warnings: { path: string; message: string }[] = [];
      const mapped = agentsSteps(after.filter(isSpan), warnings);
      return { c, ids: [], keys: cacheKeysOf(mapped.steps), warned: warnings.length > 0, ...mapped };
    },
    joining: (rows, sessionId) =>
      rows.some((r) => r.sessionId !== sessionId) ? "window rows of another session" : null,
    growsInside: true,
    *settle({ base, comp, read }) {
      if ((read.untimed ?? 0) > 0) return fallback("events without a start time");
      if (read.tail.some((e, i) => e.seq !== read.from + i)) return fallback("events out of time order");
      if (read.anchors.some((a) => a.seq !== read.from - 1 && a.inputPrefixSeq !== null))
        return fallback("first events stored with a prefix");
      if (comp.warned) return fallback("attribute warnings");
      return base;
    },
    previous(read) {
      const lastSpans = read.lastModel.flatMap((r) => {
        const item = r.item();
        return isSpan(item) ? [item] : [];
      });
      if ((read.lm === null) !== (lastSpans.length === 0)) return "prefix model span not found";
      if (read.lm === null) return null;
      const last = lastSpans.reduce((m, s) => (laterModel(s, m) ? s : m));
      const step = agentsSteps([last], []).steps[0];
      if (step?.kind !== "model_call") return "prefix model span unreadable";
      return {
        messages: [...step.input.messages, ...(step.output ? [step.output] : [])],
        model: { seq: read.lm, input: step.input },
      };
    },
    *finish(ctx, tail, storedTail) {
      return finishAgents(changed, replaced, ctx, tail, storedTail);
    },
  };
}

/** The aggregate, trace ids and fields after the request (Agents SDK). */
function finishAgents(
  changed: ReadonlyMap<string, AgentsItem>,
  replaced: ReadonlyMap<string, { row: Row; item: AgentsItem }>,
  { group, base, window, comp, read }: Context<AgentsItem, Base, AgentsComposition>,
  tail: SessionEvent[],
  storedTail: StoredEvent[],
): Finished<AgentsState> | Fallback {
  const { state } = base;
  const { key, traces, rowsOfTrace } = group;
  const from = read.from;
  // The aggregate after the request: better copies swapped in, new items added.
  let agents: AgentsAggregate | null = state.agents;
  for (const [id, { row, item }] of replaced) {
    if (!window.traces.has(agentsIds(item).traceId) || !changed.has(id)) continue;
    agents = replaceInAggregate(agents, row.item(), item);
    if (!agents) return fallback("a better copy moves the group's range or agent");
  }
  const added = [...changed].filter(([id, item]) => !replaced.has(id) && window.traces.has(agentsIds(item).traceId));
  agents = addToAggregate(
    agents,
    added.map(([, item]) => item),
  );
  // Only the request's traces changed: each maps on its own, so the others' synthesized ids are as they were.
  const before = agentsSteps(
    traces.flatMap((t) =>
      (rowsOfTrace.get(t) ?? []).flatMap((r) => {
        const item = r.item();
        return isSpan(item) ? [item] : [];
      }),
    ),
    [],
  ).synthesized;
  const synthesizedAfter =
    state.synthesized -
    traces.filter((t) => before.has(t)).length +
    traces.filter((t) => comp.synthesized.has(t)).length;
  if (synthesizedAfter < 0) return fallback("a stored state that does not match its rows");
  // A trace is new to the group's list exactly when it had no span stored.
  const withNewSpans = new Set(added.flatMap(([, i]) => (isSpan(i) ? [i.traceId] : [])));
  const newTraces = traces.filter(
    (t) => withNewSpans.has(t) && !(rowsOfTrace.get(t) ?? []).some((r) => isSpan(r.item())),
  );
  const traceIds =
    newTraces.length === 0 ? base.traceIds : [...new Set([...base.traceIds, ...newTraces])].sort(byCodePoint);
  const counts = eventCounts(state, tail, storedTail);

  // The session's fields, from the aggregate and the facts about its events.
  const firstModelInput =
    read.fm !== null
      ? read.anchors.find((a) => a.seq === read.fm)?.input
      : tail.find((e) => e.kind === "model_call")?.input;
  const fields = agentsGroupFields(key, agents, {
    traceIds,
    firstModelInput,
    toolNames: counts.toolCalls.map(([n]) => n),
    synthesizedIds: synthesizedAfter > 0,
  });
  if (from + tail.length === 0) return fallback("no events");
  const agentKey = agentKeyOf(fields);
  return {
    fields,
    counts,
    state: { agents, synthesized: synthesizedAfter, ...counts, agentKey },
    ensure: agentKey !== state.agentKey,
  };
}

/**
 * The state of a session without a well-formed one (written before states existed, or damaged): its
 * rows read and mapped once, checked against its stored events; with its span rows whose columns do
 * not match their items (written with the plan, never before it is known to hold).
 */
function* stateFromRows(session: SessionRow, key: string): Generator<Read, Base | Fallback, unknown> {
  const rows = (yield { kind: "sessionRows", sessionId: session.id }) as ColumnedRow<AgentsItem>[];
  if (rows.length === 0) return fallback("a session without rows");
  if (!rows.every((r) => r.groupKey === AGENTS_PREFIX + key)) return fallback("rows of another group");
  const items = rows.map((r) => r.item());
  const spans = items.filter(isSpan);
  if (!spans.every(inRange)) return fallback("times out of range");
  const { steps, synthesized } = agentsSteps(spans, []);
  const events = assemble(steps);
  if (events.length !== session.eventCount) return fallback("stored events do not match their rows");
  const fixes = rows.flatMap((r) => {
    const c = agentsColumns(r.item());
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
