import type { ImportedSession, ImportIssue } from "../types";
import { assemble, type Step } from "./assemble";
import { readSpan, type SpanReading } from "./conventions";
import type { OtlpSpan } from "./decode";
import { digestOf, sessionFields, spanSessionId, type SpanDigest } from "./digest";

// ---------------------------------------------------------------------------
// OTLP spans → Branchpoint sessions. A pure function of the SET of spans:
// batching, order and duplicates do not change the result, so a route can
// store spans idempotently by span id and rebuild a session from all the
// spans of its group after every export.
//
// Grouping: `session.id`, `gen_ai.conversation.id` or
// `ai.telemetry.metadata.sessionId` (span attributes first, then resource
// attributes) names the session; without one, the trace is the session. A
// trace in which any span names a session joins that session as a whole.
//
// Reject vs degrade: the mapper never rejects a group for what one span
// says. A span whose attributes are missing or mistyped (a tool span without
// a tool name, messages that are not JSON, a token count that is text) is read
// as far as it goes, or left out, and each problem is a warning at the
// attribute's exact path. Spans of no known convention (HTTP, DB…) are
// ignored. Only a group that yields no model or tool step at all is refused.
// ---------------------------------------------------------------------------

export { SESSION_ATTRIBUTES, spanSessionId } from "./digest";

/**
 * The group a span is stored under: `session:<id>` when it names a session,
 * else `trace:<traceId>`. Spans of one trace can disagree (AI SDK 7 puts no
 * metadata on child spans): `groupSpans` moves a whole trace into the session
 * any of its spans names, so a route rebuilding a session should load the
 * spans stored under its key plus every span of the traces those belong to.
 */
export function sessionGroupKey(span: Pick<OtlpSpan, "attributes" | "resource" | "traceId">): string {
  const session = spanSessionId(span);
  return session !== null ? `session:${session}` : `trace:${span.traceId}`;
}

/** One span per (trace id, span id): of duplicates, the ended one, then the one with more attributes, then the first in a stable order. */
export function dedupeSpans(spans: readonly OtlpSpan[]): OtlpSpan[] {
  const byId = new Map<string, OtlpSpan>();
  const rank = (s: OtlpSpan) =>
    [s.endTimeUnixNano === null ? 0 : 1, Object.keys(s.attributes).length, s.events.length] as const;
  const fingerprint = (s: OtlpSpan) =>
    JSON.stringify([s.name, s.startTimeUnixNano, s.endTimeUnixNano, s.attributes, s.status, s.events]);
  for (const span of spans) {
    const id = `${span.traceId}:${span.spanId}`;
    const current = byId.get(id);
    if (!current) {
      byId.set(id, span);
      continue;
    }
    const a = rank(span);
    const b = rank(current);
    const better =
      a[0] !== b[0]
        ? a[0] > b[0]
        : a[1] !== b[1]
          ? a[1] > b[1]
          : a[2] !== b[2]
            ? a[2] > b[2]
            : fingerprint(span) < fingerprint(current);
    if (better) byId.set(id, span);
  }
  return [...byId.values()].sort((x, y) => (x.traceId + x.spanId < y.traceId + y.spanId ? -1 : 1));
}

/** Spans by session group (see `sessionGroupKey`), whole traces kept together; deduplicated. */
export function groupSpans(spans: readonly OtlpSpan[]): Map<string, OtlpSpan[]> {
  const unique = dedupeSpans(spans);
  const sessionOfTrace = new Map<string, { id: string; start: bigint; spanId: string }>();
  for (const span of unique) {
    const id = spanSessionId(span);
    if (id === null) continue;
    const start = BigInt(span.startTimeUnixNano);
    const current = sessionOfTrace.get(span.traceId);
    // Should a trace name two sessions, its earliest span decides.
    if (!current || start < current.start || (start === current.start && span.spanId < current.spanId)) {
      sessionOfTrace.set(span.traceId, { id, start, spanId: span.spanId });
    }
  }
  const groups = new Map<string, OtlpSpan[]>();
  for (const span of unique) {
    const session = sessionOfTrace.get(span.traceId);
    const key = session ? `session:${session.id}` : `trace:${span.traceId}`;
    const list = groups.get(key) ?? [];
    list.push(span);
    groups.set(key, list);
  }
  return new Map([...groups.entries()].sort(([a], [b]) => (a < b ? -1 : 1)));
}

export type OtlpFormat = "otlp-json" | "otlp-protobuf";

export type MapOptions = { format?: OtlpFormat };

export type MapResult =
  | { ok: true; format: OtlpFormat; sessions: ImportedSession[]; warnings: ImportIssue[] }
  | { ok: false; format: OtlpFormat; issues: ImportIssue[] };

/** Every session in `spans` (any number of groups), each built from all its spans. */
export function mapOtlpSpans(spans: readonly OtlpSpan[], options: MapOptions = {}): MapResult {
  const format = options.format ?? "otlp-json";
  const sessions: ImportedSession[] = [];
  const warnings: ImportIssue[] = [];
  const issues: ImportIssue[] = [];
  for (const [groupKey, group] of groupSpans(spans)) {
    const result = mapGroup(groupKey, group, format);
    warnings.push(...result.warnings);
    if (result.session) sessions.push(result.session);
    else issues.push(...result.warnings, { path: "", message: `${groupKey}: no model call or tool call in its spans` });
  }
  if (sessions.length === 0) {
    return {
      ok: false,
      format,
      issues: issues.length > 0 ? issues : [{ path: "", message: "the export holds no spans" }],
    };
  }
  return { ok: true, format, sessions, warnings };
}

/** The session of one group's spans (all of them: as stored so far), or null with the reasons. */
export function mapSessionGroup(
  groupKey: string,
  spans: readonly OtlpSpan[],
  options: MapOptions = {},
): { session: ImportedSession | null; warnings: ImportIssue[]; digests: SpanDigest[] } {
  return mapGroup(groupKey, dedupeSpans(spans), options.format ?? "otlp-json");
}

function mapGroup(
  groupKey: string,
  spans: OtlpSpan[],
  format: OtlpFormat,
): { session: ImportedSession | null; warnings: ImportIssue[]; digests: SpanDigest[] } {
  const warnings: ImportIssue[] = [];
  const readings = spans.map((span) => readSpan(span, warnings));
  const digests = readings.map(digestOf);
  const steps = stepsOf(readings);
  if (!steps.some((s) => s.kind !== "final_output")) return { session: null, warnings, digests };
  const events = assemble(steps);
  const fields = sessionFields(groupKey, digests, factsOf(events), format, warnings);
  return { session: fields && { ...fields, events }, warnings, digests };
}

/** The facts about a session's events its fields depend on (see `sessionFields`). */
export function factsOf(events: readonly ImportedSession["events"][number][]) {
  return {
    firstModelInput: events.find((e) => e.kind === "model_call")?.input,
    toolCallNames: events.flatMap((e) => (e.kind === "tool_call" ? [e.name] : [])),
  };
}

/** The conventions whose agent spans name the agent of the steps under them: GenAI's invoke_agent (`gen_ai.agent.name`) and OpenInference's AGENT spans (`agent.name`, else the span's name). */
const NAMES_ITS_AGENT: ReadonlySet<SpanReading["convention"]> = new Set(["genai", "openinference"]);

/** `gen_ai.agent.id` and `gen_ai.agent.description` of a step's agent: its own span's, else its agent span's. */
function agentDetails(reading: SpanReading, source: SpanReading): { agentId?: string; agentDescription?: string } {
  const read = (key: string) => {
    for (const span of [reading.span, source.span]) {
      const value = span.attributes[key];
      if (typeof value === "string" && value !== "") return value;
    }
    return undefined;
  };
  const agentId = read("gen_ai.agent.id");
  const agentDescription = read("gen_ai.agent.description");
  return {
    ...(agentId !== undefined ? { agentId } : {}),
    ...(agentDescription !== undefined ? { agentDescription } : {}),
  };
}

/**
 * The steps of some spans' readings, in span-id order. An agent span's answer
 * is a step when no agent span above it is among the readings: the readings of
 * whole traces give the steps those traces give in any larger set.
 *
 * A GenAI or OpenInference step names the agent that made it: its span's `gen_ai.agent.name` (`agent.name`),
 * else the nearest agent span's above it (multi-agent handoffs: each agent's
 * steps under its own invoke_agent span). An MCP `tools/call` span under a
 * tool span of the same tool (the MCP client's or server's view of a call the
 * framework's execute_tool span already records) is that call, not another.
 */
export function stepsOf(readings: readonly SpanReading[]): Step[] {
  const byId = new Map(readings.map((r) => [`${r.span.traceId}:${r.span.spanId}`, r]));
  function* ancestors(reading: SpanReading): Generator<SpanReading> {
    const seen = new Set<string>();
    let parent = reading.span.parentSpanId;
    while (parent !== null) {
      const id = `${reading.span.traceId}:${parent}`;
      if (seen.has(id)) return;
      seen.add(id);
      const next = byId.get(id);
      if (!next) return;
      yield next;
      parent = next.span.parentSpanId;
    }
  }
  const find = (reading: SpanReading, test: (r: SpanReading) => boolean): SpanReading | null => {
    for (const r of ancestors(reading)) if (test(r)) return r;
    return null;
  };
  const steps: Step[] = [];
  for (const reading of readings) {
    if (reading.role === "model" || reading.role === "tool") {
      if (
        reading.role === "tool" &&
        reading.span.attributes["mcp.method.name"] === "tools/call" &&
        find(reading, (r) => r.role === "tool" && r.step.name === reading.step.name)
      )
        continue;
      const source = !NAMES_ITS_AGENT.has(reading.convention)
        ? null
        : reading.agentName !== null
          ? reading
          : find(reading, (r) => r.role === "agent" && r.agentName !== null);
      const agent = source?.agentName ?? null;
      steps.push(agent ? { ...reading.step, agent, ...agentDetails(reading, source!) } : reading.step);
    } else if (reading.role === "agent") {
      if (reading.final && !find(reading, (r) => r.role === "agent") && reading.span.endTimeUnixNano !== null) {
        steps.push({
          kind: "final_output",
          traceId: reading.span.traceId,
          key: `${reading.span.traceId}:${reading.span.spanId}`,
          atNs: BigInt(reading.span.endTimeUnixNano),
          output: reading.final.output,
        });
      }
    }
  }
  return steps;
}
