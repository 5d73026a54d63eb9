import { metadataTitle } from "./title";
import type { AgentsItem, AgentsSpan, AgentsTrace } from "./openai-agents-parse";
import type { ImportedSession } from "./types";

// What an OpenAI Agents group's own fields need from all its items, kept item by item (./openai-agents.ts maps the events).

export function compareSpans(a: SpanTiming, b: SpanTiming): number {
  const sa = Date.parse(a.startedAt);
  const sb = Date.parse(b.startedAt);
  if (sa !== sb) return sa - sb;
  const ea = a.endedAt ? Date.parse(a.endedAt) : Number.MAX_SAFE_INTEGER;
  const eb = b.endedAt ? Date.parse(b.endedAt) : Number.MAX_SAFE_INTEGER;
  if (ea !== eb) return ea - eb;
  if (a.id !== b.id) return a.id < b.id ? -1 : 1;
  return a.traceId < b.traceId ? -1 : a.traceId > b.traceId ? 1 : 0;
}

/** A span as the group's fields compare it (`compareSpans`). */
type SpanTiming = Pick<AgentsSpan, "id" | "traceId" | "startedAt" | "endedAt">;

/**
 * What a group's own fields need from ALL its items, small and kept up to date item by item (the
 * incremental ingest stores it with the session): the spans' time range, the first named agent
 * span, the trace item that names the group. (The traces its spans belong to are the session's
 * `metadata.traceIds`.)
 */
export type AgentsAggregate = {
  spans: number;
  /** Spans not ended yet (the group has no end while any is open). */
  open: number;
  /** Epoch milliseconds. */
  minStart: number | null;
  maxEnd: number | null;
  agent: (SpanTiming & { name: string }) | null;
  trace: Omit<AgentsTrace, "object" | "path"> | null;
  /** Response spans (the model content was not exported). */
  responses: number;
};

export const emptyAggregate = (): AgentsAggregate => ({
  spans: 0,
  open: 0,
  minStart: null,
  maxEnd: null,
  agent: null,
  trace: null,
  responses: 0,
});

const namedAgent = (s: AgentsSpan): (SpanTiming & { name: string }) | null =>
  s.spanData.type === "agent" && typeof s.spanData.name === "string"
    ? { id: s.id, traceId: s.traceId, startedAt: s.startedAt, endedAt: s.endedAt, name: s.spanData.name }
    : null;

/** The aggregate with new items added (items it does not hold yet: a better copy of a held one is `replaceInAggregate`'s). */
export function addToAggregate(base: AgentsAggregate, items: readonly AgentsItem[]): AgentsAggregate {
  const a = { ...base };
  for (const item of items) {
    if (item.object === "trace") {
      if (!a.trace || item.id < a.trace.id) a.trace = traceFields(item);
      continue;
    }
    a.spans++;
    if (item.endedAt === null) a.open++;
    const start = Date.parse(item.startedAt);
    if (a.minStart === null || start < a.minStart) a.minStart = start;
    if (item.endedAt !== null) {
      const end = Date.parse(item.endedAt);
      if (a.maxEnd === null || end > a.maxEnd) a.maxEnd = end;
    }
    const agent = namedAgent(item);
    if (agent && (!a.agent || compareSpans(agent, a.agent) < 0)) a.agent = agent;
    if (item.spanData.type === "response") a.responses++;
  }
  return a;
}

/**
 * The aggregate with a held item swapped for a better copy of it, or null when that cannot be told
 * without the other items (the copy held the earliest start or the latest end, or was the agent
 * span, and the better copy moves it).
 */
export function replaceInAggregate(
  base: AgentsAggregate,
  before: AgentsItem,
  after: AgentsItem,
): AgentsAggregate | null {
  if (before.object !== after.object) return null;
  const a = { ...base };
  if (before.object === "trace" || after.object === "trace") {
    if (after.object === "trace" && a.trace && (a.trace.id === after.id || after.id < a.trace.id))
      a.trace = traceFields(after);
    return a;
  }
  if (before.traceId !== after.traceId) return null;
  a.open += (after.endedAt === null ? 1 : 0) - (before.endedAt === null ? 1 : 0);
  const [s0, s1] = [Date.parse(before.startedAt), Date.parse(after.startedAt)];
  if (s1 !== s0 && s0 === a.minStart) return null;
  if (a.minStart === null || s1 < a.minStart) a.minStart = s1;
  const e0 = before.endedAt === null ? null : Date.parse(before.endedAt);
  const e1 = after.endedAt === null ? null : Date.parse(after.endedAt);
  if (e0 !== null && e0 === a.maxEnd && (e1 === null || e1 < e0)) return null;
  if (e1 !== null && (a.maxEnd === null || e1 > a.maxEnd)) a.maxEnd = e1;
  const agent = namedAgent(after);
  if (a.agent?.id === before.id && a.agent.traceId === before.traceId) {
    if (!agent || compareSpans(agent, a.agent) > 0) return null;
    a.agent = agent;
  } else if (agent && (!a.agent || compareSpans(agent, a.agent) < 0)) a.agent = agent;
  a.responses += (after.spanData.type === "response" ? 1 : 0) - (before.spanData.type === "response" ? 1 : 0);
  return a;
}

function traceFields(t: AgentsTrace): NonNullable<AgentsAggregate["trace"]> {
  return { id: t.id, workflowName: t.workflowName, groupId: t.groupId, metadata: t.metadata };
}

/**
 * A group's own fields (all but its events), from its aggregate, its spans' trace ids (sorted) and three
 * facts about its events: the first model call's input, the names of the tools called, and whether a
 * call id was synthesized.
 */
export function agentsGroupFields(
  key: string,
  a: AgentsAggregate,
  facts: {
    traceIds: readonly string[];
    firstModelInput: unknown;
    toolNames: readonly string[];
    synthesizedIds: boolean;
  },
): Omit<ImportedSession, "events"> {
  const trace = a.trace;
  const firstUser = (
    facts.firstModelInput as { messages?: { role: string; content: unknown }[] } | undefined
  )?.messages?.find((m) => m.role === "user");
  const title =
    metadataTitle(trace?.metadata) ??
    (typeof firstUser?.content === "string" ? firstUser.content.slice(0, 80) : (trace?.workflowName ?? null));
  return {
    externalId: key,
    title,
    agent: {
      name: a.agent?.name ?? trace?.workflowName ?? "unknown agent",
      adapter: "openai-agents",
    },
    agentVersion: { version: "unknown", capabilities: [] },
    format: "openai-agents",
    startedAt: a.minStart !== null ? new Date(a.minStart).toISOString() : null,
    endedAt: a.spans > 0 && a.open === 0 && a.maxEnd !== null ? new Date(a.maxEnd).toISOString() : null,
    metadata: {
      source: "openai-agents",
      traceIds: [...facts.traceIds],
      ...(trace?.workflowName ? { workflowName: trace.workflowName } : {}),
      ...(trace?.groupId ? { groupId: trace.groupId } : {}),
      ...(trace && Object.keys(trace.metadata).length > 0 ? { traceMetadata: trace.metadata } : {}),
      ...(facts.synthesizedIds
        ? { note: "some function spans matched no generation tool call: their callId is the span id" }
        : {}),
      ...(a.responses > 0
        ? { modelContent: "response spans carry only a response id: model inputs and outputs were not exported" }
        : {}),
    },
    tools: [...facts.toolNames].sort((x, y) => (x < y ? -1 : 1)).map((name) => ({ name })),
  };
}
