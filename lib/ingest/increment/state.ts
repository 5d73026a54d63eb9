import { createHash } from "node:crypto";
import { canonicalJson, type SessionEvent } from "@/lib/replay";
import { aggregateOf, asAggregate, type SpanAggregate, type SpanDigest } from "../otlp";
import type { ImportedSession } from "../types";
import type { Anchor, Fallback, SessionRow, SpanColumns, StoredEvent, Summary } from "./types";

// What a session keeps for its next export, and the figures a window's plan derives from the stored
// ones: pure functions shared by the OTLP and the Agents SDK planners.

export const idOf = (traceId: string, spanId: string) => `${traceId}\u0000${spanId}`;

export const fallback = (reason: string): Fallback => ({ fallback: reason });
export const isFallback = (v: unknown): v is Fallback =>
  v !== null && typeof v === "object" && "fallback" in v && typeof v.fallback === "string";

export const isDigest = (v: unknown): v is SpanDigest =>
  v !== null && typeof v === "object" && !Array.isArray(v) && "traceId" in v;

/** The columns a span row carries beside its digest, for the indexed reads. */
export function digestColumns(d: SpanDigest): Required<SpanColumns> {
  const start = BigInt(d.start);
  const end = d.end === null ? start : BigInt(d.end);
  return {
    startNs: start,
    lastNs: end > start ? end : start,
    role: d.role,
    callIds: d.role === "model" ? [...(d.requests ?? [])] : d.role === "tool" && d.callId ? [d.callId] : [],
  };
}

/** What an OTLP session keeps for its next export (`Session.traceState`). */
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
export function withoutTraceIds(spans: SpanAggregate): SpanAggregate {
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

export function asTraceState(value: unknown): TraceState | null {
  if (value === null || typeof value !== "object" || Array.isArray(value)) return null;
  const v = value as Partial<TraceState>;
  return asAggregate(v.spans) && Array.isArray(v.toolCalls) && typeof v.incomplete === "number"
    ? (value as TraceState)
    : null;
}

const INT_MAX = 2_147_483_647;

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
): { summary: Summary; searchEvents: SessionEvent[] } | string {
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
