import type { ImportedSession, ImportIssue } from "../types";
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
export const SESSION_ATTRIBUTES = ["session.id", "gen_ai.conversation.id", "ai.telemetry.metadata.sessionId"] as const;

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

/**
 * A session's fields but its events, from the digests of all its spans (in
 * span-id order), or null when it has no model or tool step.
 */
export function sessionFields(
  groupKey: string,
  digests: readonly SpanDigest[],
  facts: EventFacts,
  format: ImportedSession["format"],
  warnings: readonly ImportIssue[] = [],
): Omit<ImportedSession, "events"> | null {
  if (!digests.some((d) => d.role === "model" || d.role === "tool")) return null;
  let earliest = BigInt(digests[0]!.start);
  let latest: bigint | null = null;
  let allEnded = true;
  const toolDefs = new Map<string, ToolDefinition>();
  let telemetryMetadata: Record<string, unknown> = {};
  for (const d of digests) {
    const start = BigInt(d.start);
    if (start < earliest) earliest = start;
    if (d.end === null) allEnded = false;
    else if (latest === null || BigInt(d.end) > latest) latest = BigInt(d.end);
    if (d.role === "model") for (const def of d.tools ?? []) if (!toolDefs.has(def.name)) toolDefs.set(def.name, def);
    if (d.role === "agent") telemetryMetadata = { ...d.metadata, ...telemetryMetadata };
  }
  const ordered = [...digests].sort((a, b) => {
    const sa = BigInt(a.start);
    const sb = BigInt(b.start);
    return sa !== sb ? (sa < sb ? -1 : 1) : a.spanId < b.spanId ? -1 : 1;
  });
  const adapter = digests.some((d) => d.convention === "vercel-ai-sdk")
    ? "vercel-ai-sdk"
    : adapterOf(digests.map((d) => d.adapter));
  const serviceName = ordered.find((d) => d.service !== null)?.service ?? null;
  const agentName =
    ordered.find((d) => d.role === "agent" && d.agentName)?.agentName ??
    ordered.find((d) => d.agentName)?.agentName ??
    serviceName ??
    "unknown agent";
  const version = ordered.find((d) => d.version !== null)?.version ?? "unknown";
  const conventions = [...new Set(digests.flatMap((d) => (d.convention ? [d.convention] : [])))].sort();
  for (const name of facts.toolCallNames) if (!toolDefs.has(name)) toolDefs.set(name, { name });
  return {
    externalId: groupKey,
    title: titleFrom(facts.firstModelInput),
    agent: { name: agentName, adapter },
    agentVersion: { version, capabilities: [] },
    format,
    startedAt: isoFromNanos(earliest),
    endedAt: allEnded && latest !== null ? isoFromNanos(latest) : null,
    metadata: {
      source: "otlp",
      conventions,
      traceIds: [...new Set(digests.map((d) => d.traceId))].sort(),
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
