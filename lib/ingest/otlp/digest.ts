import { metadataTitle } from "../title";
import type { ImportedSession, ImportIssue } from "../types";
import { byCodePoint } from "../order";
import { adapterHints, adapterOf, type AdapterHints } from "./adapter";
import { isoFromNanos } from "./assemble";
import type { Convention, SpanReading, ToolDefinition } from "./conventions";
import type { OtlpSpan } from "./decode";

// ---------------------------------------------------------------------------
// A span's digest: the little a session's own fields (agent, version, adapter,
// tools, title, time range, metadata) and the incremental ingest's checks need
// from it, so that neither has to unpack every stored span of a session. The
// session fields are a function of the digests of ALL its spans (in span-id
// order) plus two facts about its events; `mapGroup` computes them the same
// way from the same digests, so a full rebuild and an incremental one agree by
// construction.
// ---------------------------------------------------------------------------

/** Attributes naming a session, in order of precedence. */
export const SESSION_ATTRIBUTES = [
  "session.id",
  "gen_ai.conversation.id",
  "ai.telemetry.metadata.sessionId",
  "mcp.session.id",
] as const;

/** The session a span names itself (span attributes first, then its resource), or null. */
export function spanSessionId(span: Pick<OtlpSpan, "attributes" | "resource">): string | null {
  for (const source of [span.attributes, span.resource]) {
    for (const key of SESSION_ATTRIBUTES) {
      const value = source[key];
      if (typeof value === "string" && value !== "") return value;
      if (typeof value === "number") return String(value);
    }
  }
  return null;
}

export type SpanDigest = {
  traceId: string;
  spanId: string;
  parentSpanId: string | null;
  /** Nanoseconds since the epoch, as decimal text. */
  start: string;
  end: string | null;
  role: SpanReading["role"];
  convention: Convention | null;
  agentName: string | null;
  /** The session the span names itself (`spanSessionId`), or null. */
  session: string | null;
  /** `service.name` / `service.version` as `stringAttr` reads them (resource first), or null. */
  service: string | null;
  version: string | null;
  adapter: AdapterHints;
  /** A model span's tool definitions. */
  tools?: ToolDefinition[];
  /** An agent span's telemetry metadata. */
  metadata?: Record<string, unknown>;
  /** A tool span's call id. */
  callId?: string | null;
  /** The call ids a model span's output requests. */
  requests?: string[];
};

function stringOf(span: SpanReading["span"], key: string): string | null {
  const value = span.resource[key] ?? span.attributes[key];
  return typeof value === "string" && value !== "" ? value : null;
}

export function digestOf(reading: SpanReading): SpanDigest {
  const { span } = reading;
  const digest: SpanDigest = {
    traceId: span.traceId,
    spanId: span.spanId,
    parentSpanId: span.parentSpanId,
    start: span.startTimeUnixNano,
    end: span.endTimeUnixNano,
    role: reading.role,
    convention: reading.convention,
    agentName: reading.agentName,
    session: spanSessionId(span),
    service: stringOf(span, "service.name"),
    version: stringOf(span, "service.version"),
    adapter: adapterHints(span),
  };
  if (reading.role === "model") {
    digest.tools = reading.tools;
    digest.requests = (reading.step.output?.toolCalls ?? []).map((r) => r.id);
  } else if (reading.role === "tool") digest.callId = reading.step.callId;
  else if (reading.role === "agent") digest.metadata = reading.metadata;
  return digest;
}

/** Span-id order, the order `dedupeSpans` gives (and the mapper's "first" choices follow). */
export function bySpanId(a: { traceId: string; spanId: string }, b: { traceId: string; spanId: string }): number {
  return a.traceId + a.spanId < b.traceId + b.spanId ? -1 : 1;
}

/** What the session fields need from the events: the first model call's input, and every tool call's name. */
export type EventFacts = { firstModelInput: unknown; toolCallNames: Iterable<string> };

/** A value chosen by an order over spans, with the span's place in that order. */
type Ranked<T> = { value: T; start: string; spanId: string; key: string };

/**
 * What a session's own fields need from ALL its spans, as one small value
 * that a span can be added to in any order (`addDigest`): counts, the time
 * range, and each "first" choice (`sessionFields`' orders: span-id order, or
 * start then span id) kept with the span that made it. A session stores it,
 * so an export that adds spans updates it without reading the others.
 * Maps are kept as entry lists (a tool or key may be named `__proto__`).
 */
export type SpanAggregate = {
  spans: number;
  models: number;
  tools: number;
  /** Spans not ended. */
  open: number;
  earliest: string | null;
  latest: string | null;
  /** Tool definitions by name: the first in span-id order. */
  toolDefs: [string, { def: ToolDefinition; key: string }][];
  /** Agent spans' telemetry metadata by key: the first in span-id order. */
  metadata: [string, { value: unknown; key: string }][];
  explicitAdapter: { value: AdapterHints["explicit"]; key: string } | null;
  found: AdapterHints["found"];
  conventions: Convention[];
  traceIds: string[];
  service: Ranked<string> | null;
  agentOfAgent: Ranked<string> | null;
  agentAny: Ranked<string> | null;
  version: Ranked<string> | null;
};

export function emptyAggregate(): SpanAggregate {
  return {
    spans: 0,
    models: 0,
    tools: 0,
    open: 0,
    earliest: null,
    latest: null,
    toolDefs: [],
    metadata: [],
    explicitAdapter: null,
    found: [],
    conventions: [],
    traceIds: [],
    service: null,
    agentOfAgent: null,
    agentAny: null,
    version: null,
  };
}

/** Start, then span id, then span-id order: `sessionFields`' "ordered". */
function earlier(a: { start: string; spanId: string; key: string }, b: { start: string; spanId: string; key: string }) {
  const sa = BigInt(a.start);
  const sb = BigInt(b.start);
  if (sa !== sb) return sa < sb;
  if (a.spanId !== b.spanId) return a.spanId < b.spanId;
  return a.key < b.key;
}

/** The aggregate with more spans (a span already in it must not be added again). Order does not matter. */
export function addDigests(agg: SpanAggregate, digests: Iterable<SpanDigest>): SpanAggregate {
  const toolDefs = new Map(agg.toolDefs);
  const metadata = new Map(agg.metadata);
  const found = new Set(agg.found);
  const conventions = new Set(agg.conventions);
  const traceIds = new Set(agg.traceIds);
  const out = { ...agg };
  for (const d of digests) {
    const key = d.traceId + d.spanId;
    const at = { start: d.start, spanId: d.spanId, key };
    const rank = <T>(current: Ranked<T> | null, value: T | null): Ranked<T> | null =>
      value === null || (current !== null && !earlier(at, current)) ? current : { value, ...at };
    if (d.role === "model")
      for (const def of d.tools ?? []) {
        const current = toolDefs.get(def.name);
        if (!current || key < current.key) toolDefs.set(def.name, { def, key });
      }
    if (d.role === "agent")
      for (const [k, value] of Object.entries(d.metadata ?? {})) {
        const current = metadata.get(k);
        if (!current || key < current.key) metadata.set(k, { value, key });
      }
    if (d.adapter.explicit !== null && (out.explicitAdapter === null || key < out.explicitAdapter.key))
      out.explicitAdapter = { value: d.adapter.explicit, key };
    for (const f of d.adapter.found) found.add(f);
    if (d.convention) conventions.add(d.convention);
    traceIds.add(d.traceId);
    out.spans++;
    if (d.role === "model") out.models++;
    if (d.role === "tool") out.tools++;
    if (d.end === null) out.open++;
    else if (out.latest === null || BigInt(d.end) > BigInt(out.latest)) out.latest = d.end;
    if (out.earliest === null || BigInt(d.start) < BigInt(out.earliest)) out.earliest = d.start;
    out.service = rank(out.service, d.service);
    out.agentOfAgent = rank(out.agentOfAgent, d.role === "agent" && d.agentName ? d.agentName : null);
    out.agentAny = rank(out.agentAny, d.agentName ? d.agentName : null);
    out.version = rank(out.version, d.version);
  }
  const byName = <V>([a]: [string, V], [b]: [string, V]) => (a < b ? -1 : a > b ? 1 : 0);
  return {
    ...out,
    toolDefs: [...toolDefs].sort(byName),
    metadata: [...metadata].sort(byName),
    found: [...found].sort(),
    conventions: [...conventions].sort(),
    traceIds: [...traceIds].sort(byCodePoint),
  };
}

export function aggregateOf(digests: Iterable<SpanDigest>): SpanAggregate {
  return addDigests(emptyAggregate(), digests);
}

/** A stored aggregate, or null when it is not one (a session stored before aggregates). */
export function asAggregate(value: unknown): SpanAggregate | null {
  return value !== null && typeof value === "object" && !Array.isArray(value) && "toolDefs" in value
    ? (value as SpanAggregate)
    : null;
}

/**
 * A session's fields but its events, from the digests of all its spans (in
 * any order) or their aggregate, or null when it has no model or tool step.
 */
export function sessionFields(
  groupKey: string,
  digests: readonly SpanDigest[] | SpanAggregate,
  facts: EventFacts,
  format: ImportedSession["format"],
  warnings: readonly ImportIssue[] = [],
): Omit<ImportedSession, "events"> | null {
  const agg = Array.isArray(digests) ? aggregateOf(digests) : (digests as SpanAggregate);
  if (agg.models + agg.tools === 0 || agg.earliest === null) return null;
  const toolDefs = new Map(agg.toolDefs.map(([name, { def }]) => [name, def]));
  const telemetryMetadata = Object.fromEntries(agg.metadata.map(([k, { value }]) => [k, value]));
  const adapter = agg.conventions.includes("vercel-ai-sdk")
    ? "vercel-ai-sdk"
    : adapterOf([
        ...(agg.explicitAdapter ? [{ explicit: agg.explicitAdapter.value, found: [] }] : []),
        { explicit: null, found: agg.found },
      ]);
  const serviceName = agg.service?.value ?? null;
  const agentName = agg.agentOfAgent?.value ?? agg.agentAny?.value ?? serviceName ?? "unknown agent";
  const version = agg.version?.value ?? "unknown";
  for (const name of facts.toolCallNames) if (!toolDefs.has(name)) toolDefs.set(name, { name });
  return {
    externalId: groupKey,
    title: metadataTitle(telemetryMetadata) ?? titleFrom(facts.firstModelInput),
    agent: { name: agentName, adapter },
    agentVersion: { version, capabilities: [] },
    format,
    startedAt: isoFromNanos(BigInt(agg.earliest)),
    endedAt: agg.open === 0 && agg.latest !== null ? isoFromNanos(BigInt(agg.latest)) : null,
    metadata: {
      source: "otlp",
      conventions: [...agg.conventions],
      traceIds: [...agg.traceIds],
      ...(serviceName ? { serviceName } : {}),
      ...(Object.keys(telemetryMetadata).length > 0 ? { telemetryMetadata } : {}),
      ...(warnings.length > 0 ? { importWarnings: warnings } : {}),
    },
    tools: [...toolDefs.values()]
      .sort((a, b) => (a.name < b.name ? -1 : 1))
      .map((t) => ({ name: t.name, ...(t.schema !== undefined ? { schema: t.schema } : {}) })),
  };
}

function titleFrom(input: unknown): string | null {
  if (input === null || typeof input !== "object" || !("messages" in input)) return null;
  const messages = (input as { messages: { role: string; content: unknown }[] }).messages;
  const user = messages.find((m) => m.role === "user");
  if (!user || typeof user.content !== "string") return null;
  const text = user.content.replace(/\s+/g, " ").trim();
  return text === "" ? null : text.length > 80 ? `${text.slice(0, 79)}…` : text;
}
