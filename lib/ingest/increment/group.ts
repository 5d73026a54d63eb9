import { storableSessions } from "@/lib/hostile/storable";
import type { Message, SessionEvent } from "@/lib/replay";
import { assemble, type Step } from "../otlp/assemble";
import type { ImportedSession } from "../types";
import { fallback, idOf, isFallback, windowFigures, type TraceState } from "./state";
import type {
  CreatedGroup,
  Fallback,
  GroupPlan,
  GroupWrite,
  IncrementPlan,
  NewSpanRow,
  Read,
  RowReplacement,
  SessionRow,
  StoredRow,
  WindowRead,
} from "./types";

// ---------------------------------------------------------------------------
// The group planner both trace sources share: an export that adds to a group
// with a session re-maps only the WINDOW it touches and rewrites only the
// events from where the window starts.
//
// The window is a set of whole traces: the traces the export changes, plus
// every trace of the session with a span ending at or after the earliest
// start C among them (repeated until nothing new joins). The events before
// it (the prefix) stay; the window's events are mapped with the prefix's last
// model call as the conversation they continue and the prefix's occurrence
// counts. What differs between the sources (what a span is, how C and the
// state are found, the session's fields) is the `GroupFormat` strategy.
//
// A planner is a generator: it yields the reads it needs (`Read`) and gets
// their rows back, so it stays pure; lib/server/ingest runs the reads.
// ---------------------------------------------------------------------------

/** One group an export changes: its session and the export's traces in it. */
export type GroupInput<T> = {
  key: string;
  session: SessionRow;
  traces: readonly string[];
  rowsOfTrace: ReadonlyMap<string, StoredRow<T>[]>;
};

/** The window so far: its traces and their stored rows. */
export type Window<T> = { rows: Map<string, StoredRow<T>>; traces: Set<string> };

/** What the window's read needs of its composition: C, its call ids (OTLP) and its calls' cache keys. */
export type Composition = { c: bigint; ids: string[]; keys: string[]; steps: Step[] };

/** What a format's fields step returns: the session's fields and the state it keeps after the request. */
export type Finished<S> = {
  fields: Omit<ImportedSession, "events">;
  counts: Pick<TraceState, "toolCalls" | "incomplete">;
  state: S;
  ensure: boolean;
};

/** Everything a format's later steps see. */
export type Context<T, B, C extends Composition> = {
  group: GroupInput<T>;
  base: B;
  window: Window<T>;
  comp: C;
  read: WindowRead<T>;
};

type Steps<R> = Generator<Read, R | Fallback, unknown>;

/** The per-format strategy (`B`: what the increment starts from; `C`: a window's composition; `S`: the kept state). */
export type GroupFormat<T, B, C extends Composition, S> = {
  /** Checks and reads before the window: what the session's increment starts from. */
  begin(group: GroupInput<T>): Steps<B>;
  /** The window's composition as it stands. */
  compose(window: Window<T>, group: GroupInput<T>): C;
  /** Why the traces reaching the window cannot join it (null: they can). */
  reaching?(read: WindowRead<T>, c: bigint): string | null;
  /** Why rows read for joining traces cannot join (null: they can). */
  joining(rows: readonly StoredRow<T>[], sessionId: string): string | null;
  /** After traces join, the rows reaching the new C join too before the window is read again. */
  growsInside: boolean;
  /** The checks once the window is whole; what the state was before the request. */
  settle(ctx: Context<T, B, C>): Steps<B>;
  /** The conversation the window continues: the prefix's last model call, read from its span. */
  previous(read: WindowRead<T>): { messages: Message[]; model: { seq: number; input: unknown } } | null | string;
  /** The session's fields and its state after the request. */
  finish(ctx: Context<T, B, C>, tail: SessionEvent[], storedTail: WindowRead<T>["tail"]): Steps<Finished<S>>;
};

/** One group's plan, or a fallback. */
export function* planGroup<T, B, C extends Composition, S>(
  format: GroupFormat<T, B, C, S>,
  group: GroupInput<T>,
): Steps<GroupPlan<S>> {
  const { session } = group;
  if (session.replays > 0) return fallback("a session with replays");
  const meta = session.metadata as Record<string, unknown> | null;
  if (meta && typeof meta === "object" && "repairedCharacters" in meta) return fallback("repaired characters");
  const begun = yield* format.begin(group);
  if (isFallback(begun)) return begun;

  const grown = yield* growWindow(format, group);
  if (isFallback(grown)) return grown;
  const ctx: Context<T, B, C> = { group, base: begun, ...grown };
  const base = yield* format.settle(ctx);
  if (isFallback(base)) return base;
  ctx.base = base;
  const { read } = ctx;

  const previous = format.previous(read);
  if (typeof previous === "string") return fallback(previous);
  const from = read.from;
  const tail = windowEvents(ctx.comp.steps, previous?.messages ?? null, read, from);

  const finished = yield* format.finish(ctx, tail, read.tail);
  if (isFallback(finished)) return finished;
  const { fields, counts } = finished;
  const checked = storedAsIs([{ ...fields, events: tail }]);
  if (isFallback(checked)) return checked;
  const figures = windowFigures(session, from, tail, read.tail, read.anchors, counts, [read.fm, read.fu, read.lf]);
  if (typeof figures === "string") return fallback(figures);
  return {
    key: group.key,
    session,
    from,
    previousModel: previous?.model ?? null,
    tail,
    storedTail: read.tail,
    fields,
    summary: figures.summary,
    searchEvents: figures.searchEvents,
    eventCount: from + tail.length,
    state: finished.state,
    ensure: finished.ensure,
  };
}

/**
 * The window: whole traces, from the earliest start C of the window's spans (before and after the request)
 * on. Read with it: what the plan needs of the rest of the session (see `WindowRead`). Traces with a span
 * reaching C join (C may move earlier as they do) until none does.
 */
function* growWindow<T, B, C extends Composition, S>(
  format: GroupFormat<T, B, C, S>,
  group: GroupInput<T>,
): Steps<{ window: Window<T>; comp: C; read: WindowRead<T> }> {
  const sessionId = group.session.id;
  const window: Window<T> = { rows: new Map(), traces: new Set(group.traces) };
  for (const t of group.traces)
    for (const r of group.rowsOfTrace.get(t) ?? []) window.rows.set(idOf(r.traceId, r.spanId), r);
  let comp = format.compose(window, group);
  const readWindow = (): Read => ({
    kind: "window",
    sessionId,
    eventCount: group.session.eventCount,
    c: comp.c,
    window: [...window.traces],
    ids: comp.ids,
    keys: comp.keys,
  });
  let read = (yield readWindow()) as WindowRead<T>;
  while (read.reaching.length > 0) {
    const refused = format.reaching?.(read, comp.c);
    if (refused) return fallback(refused);
    const traceIds = read.reaching.map((r) => r.traceId);
    let joining = (yield { kind: "traces", traceIds }) as StoredRow<T>[];
    for (const t of traceIds) window.traces.add(t);
    while (joining.length > 0) {
      const why = format.joining(joining, sessionId);
      if (why) return fallback(why);
      for (const r of joining) {
        window.rows.set(idOf(r.traceId, r.spanId), r);
        window.traces.add(r.traceId);
      }
      comp = format.compose(window, group);
      joining = format.growsInside
        ? ((yield { kind: "reaching", sessionId, c: comp.c, window: [...window.traces] }) as StoredRow<T>[])
        : [];
    }
    read = (yield readWindow()) as WindowRead<T>;
  }
  return { window, comp, read };
}

/** The window's events, numbered after the prefix, occurrences counted on from the prefix's. */
function windowEvents<T>(
  steps: readonly Step[],
  previous: Message[] | null,
  read: WindowRead<T>,
  from: number,
): SessionEvent[] {
  const seen = new Map<string, number>();
  for (const r of read.occurrences) if (r.occurrence !== null) seen.set(r.k, r.occurrence + 1);
  return assemble(steps, previous).map((e) => ({
    ...e,
    seq: e.seq + from,
    parentSeq: e.parentSeq === null ? null : e.parentSeq + from,
    occurrence:
      e.occurrence === null || e.cacheKey === null ? e.occurrence : e.occurrence + (seen.get(e.cacheKey) ?? 0),
  }));
}

/**
 * A plan for every group a request changes, in key order: each group's session must exist and hold all of
 * its touched traces' stored rows; `write` adds the group's new rows to its plan.
 */
export function* planTouchedGroups<T, B, C extends Composition, S>(
  format: GroupFormat<T, B, C, S>,
  touched: {
    traces: ReadonlySet<string>;
    groupAfter: ReadonlyMap<string, string>;
    sessionOfKey: ReadonlyMap<string, SessionRow>;
    rowsOfTrace: ReadonlyMap<string, StoredRow<T>[]>;
  },
  write: (plan: GroupPlan<S>, key: string, session: SessionRow) => GroupWrite<S>,
): Steps<GroupWrite<S>[]> {
  const { groupAfter, rowsOfTrace } = touched;
  const keys = [...new Set([...touched.traces].map((t) => groupAfter.get(t)!))].sort();
  const groups: GroupWrite<S>[] = [];
  for (const key of keys) {
    const session = touched.sessionOfKey.get(key);
    if (!session) return fallback("a group without a session yet");
    const traces = [...touched.traces].filter((t) => groupAfter.get(t) === key);
    if (traces.some((t) => (rowsOfTrace.get(t) ?? []).some((r) => r.sessionId !== session.id)))
      return fallback("rows of another session");
    const plan = yield* planGroup(format, { key, session, traces, rowsOfTrace });
    if (isFallback(plan)) return plan;
    groups.push(write(plan, key, session));
  }
  return groups;
}

/** The cache keys of a window's calls (the same whatever conversation it continues). */
/**
 * The sessions as the store would keep them, in order, or the full rebuild's fallback: an increment writes only
 * what needs neither a refusal nor a repair (the full rebuild reports both).
 */
export function storedAsIs(sessions: readonly ImportedSession[]): readonly ImportedSession[] | Fallback {
  const checked = storableSessions(sessions);
  if (!checked.ok || checked.sessions.some((s) => "repairedCharacters" in s.metadata))
    return fallback("unstorable or repaired values");
  return checked.sessions;
}

/** A new group's session as stored (null for a group without one), each by its group, or the fallback. */
function newGroupSessions(
  groups: readonly { session: ImportedSession | null }[],
): (ImportedSession | null)[] | Fallback {
  const stored = storedAsIs(groups.flatMap((g) => (g.session ? [g.session] : [])));
  if (isFallback(stored)) return stored;
  let next = 0;
  return groups.map((g) => (g.session ? stored[next++]! : null));
}

/**
 * The plan of a request none of whose traces is stored and none of whose groups has a session, as both trace
 * sources make it from their mapping of the request alone (`mapped`): when no row is stored under `storedKeys`
 * either (an earlier export without a model or tool step), every group is new, which is what the full rebuild
 * would read, and the request is written on the increment's transaction. Anything the full rebuild would refuse
 * or repair (attribute warnings, a group the request's `members` do not name, unstorable values) falls back to it.
 */
export function* planCreatedGroups<G extends { key: string; session: ImportedSession | null }>(
  mapped: { groups: readonly G[]; warnings: readonly unknown[] },
  request: { ownKeys: readonly string[]; members: "items" | "spans"; storedKeys: string[]; size: number },
  created: { state: (group: G, session: ImportedSession) => unknown; spans: (group: G) => NewSpanRow[] },
): Generator<Read, IncrementPlan<never> | Fallback, unknown> {
  if (mapped.warnings.length > 0) return fallback("attribute warnings");
  if (mapped.groups.some((g) => !request.ownKeys.includes(g.key)))
    return fallback(`a group its ${request.members} do not name`);
  if (((yield { kind: "keyed", keys: request.storedKeys }) as number) > 0)
    return fallback("a group without a session yet");
  const sessions = newGroupSessions(mapped.groups);
  if (isFallback(sessions)) return sessions;
  const groups: CreatedGroup[] = mapped.groups.map((g, i) => {
    const session = sessions[i] ?? null;
    return { key: g.key, session, state: session ? created.state(g, session) : undefined, spans: created.spans(g) };
  });
  return { groups: [], created: groups, replacements: [], sessions: [], inserted: request.size, updated: 0 };
}

export function cacheKeysOf(steps: readonly Step[]): string[] {
  return [
    ...new Set(assemble(steps).flatMap((e) => (e.cacheKey !== null && e.occurrence !== null ? [e.cacheKey] : []))),
  ];
}

/** Every stored row of a group's traces, grouped by trace. */
export function rowsByTrace<T>(rows: readonly StoredRow<T>[]): Map<string, StoredRow<T>[]> {
  const byTrace = new Map<string, StoredRow<T>[]>();
  for (const r of rows) {
    const list = byTrace.get(r.traceId);
    if (list) list.push(r);
    else byTrace.set(r.traceId, [r]);
  }
  return byTrace;
}

/**
 * A request's plan, as both trace sources return it: the groups it writes, the rows it replaces, and the
 * sessions it reaches as the full rebuild reports them (those it changed with their new counts).
 */
export function planResult<S>(
  groups: GroupWrite<S>[],
  replacements: RowReplacement[],
  reach: { sessionRows: readonly SessionRow[]; reached: ReadonlySet<string>; inserted: number; updated: number },
): IncrementPlan<S> {
  return {
    groups,
    created: [],
    replacements,
    sessions: reachedSessions(
      reach.sessionRows,
      reach.reached,
      groups.map((g) => g.plan),
    ),
    inserted: reach.inserted,
    updated: reach.updated,
  };
}

/** The sessions a request reaches, as the full rebuild reports them (those it changed with their new counts). */
function reachedSessions(
  sessionRows: readonly SessionRow[],
  reached: ReadonlySet<string>,
  plans: readonly { session: SessionRow; eventCount: number }[],
): { id: string; eventCount: number; externalId: string }[] {
  const touched = new Map(plans.map((p) => [p.session.id, p]));
  return sessionRows
    .filter((s) => reached.has(s.externalId ?? ""))
    .map((s) => ({
      id: s.id,
      eventCount: touched.get(s.id)?.eventCount ?? s.eventCount,
      externalId: s.externalId ?? "",
    }))
    .sort((a, b) => (a.externalId < b.externalId ? -1 : 1));
}
