import { parseJsonBounded } from "@/lib/hostile/json";
import type { ToolCallRequest } from "@/lib/replay";
import { formatOutcome, type FormatOutcome, type JsonImporter } from "./importer";
import type { JsonInput } from "./json";
import { isObject } from "./otlp/attributes";
import { assemble, type ModelStep, type Step, type ToolStep } from "./otlp/assemble";
import { fromChatMessage, fromChatMessages } from "./otlp/messages";
import { providerInputTokens } from "./cached-tokens";
import { usageOf } from "./otlp/reading";
import {
  addToAggregate,
  agentsGroupFields,
  compareSpans,
  emptyAggregate,
  type AgentsAggregate,
} from "./openai-agents-aggregate";
import { parseOpenAiAgentsExport, type AgentsItem, type AgentsSpan, type AgentsTrace } from "./openai-agents-parse";
import type { ImportedSession, ImportIssue } from "./types";
import { byCodePoint } from "./order";

// ---------------------------------------------------------------------------
// The OpenAI Agents SDK trace export: the body its OpenAITracingExporter POSTs,
// `{ "data": [trace, span, …] }`, items `object: "trace"` and
// `object: "trace.span"` (span_data.type agent | generation | response |
// function | handoff | guardrail | custom…).
//
// - generation spans (Chat Completions models) carry the messages sent and the
//   completion: model_call events.
// - response spans (the Responses API, the SDK's default) carry only a
//   response id: model_call events with no messages and no output.
// - function spans carry the tool name, arguments, output and error but NO
//   call id: each is tied to the latest earlier generation of its trace, to
//   the first of its requested calls with the same name and arguments (then
//   the same name) not already taken, in start order. Its callId is that
//   request's id; without a generation (Responses API) it is the span's id.
// - Outputs stay the strings the SDK recorded (what the model was shown).
// Sessions: one per trace, or per `group_id` when the trace item gives one.
//
// Reject vs degrade: a body that is not `{ data: [...] }`, an item that is not
// an object, a trace or span without its id, or a span without `trace_id`,
// `started_at` or `span_data.type`, rejects the whole body with every
// problem's exact path. Unknown span types and item objects are ignored.
// ---------------------------------------------------------------------------

/**
 * The group an item is stored under: a trace with a `group_id` →
 * `group:<id>`; every other trace and every span → `trace:<trace id>` (spans
 * do not carry the group). `mapOpenAiAgentsItems` joins the traces of a group,
 * so a route rebuilding a group should load its traces' spans too.
 */
export function openAiAgentsGroupKey(item: AgentsItem): string {
  if (item.object === "trace") return item.groupId ? `group:${item.groupId}` : `trace:${item.id}`;
  return `trace:${item.traceId}`;
}

export type AgentsMapResult =
  | { ok: true; format: "openai-agents"; sessions: ImportedSession[]; warnings: ImportIssue[] }
  | { ok: false; format: "openai-agents"; issues: ImportIssue[] };

/** Parses and maps an export body in one go. */
export function importOpenAiAgents(value: unknown): AgentsMapResult {
  const parsed = parseOpenAiAgentsExport(value);
  if (!parsed.ok) return { ok: false, format: "openai-agents", issues: parsed.issues };
  return mapOpenAiAgentsItems(parsed.items);
}

/** Every session in `items` (traces and spans, any order, duplicates allowed). */
export function mapOpenAiAgentsItems(items: readonly AgentsItem[]): AgentsMapResult {
  const { groups, warnings } = mapOpenAiAgentsGroups(items);
  const sessions: ImportedSession[] = [];
  const issues: ImportIssue[] = [];
  for (const group of groups) {
    if (group.session) sessions.push(group.session);
    else issues.push({ path: "", message: `${group.key}: no generation, response or function span` });
  }
  if (sessions.length === 0) {
    return {
      ok: false,
      format: "openai-agents",
      issues: issues.length > 0 ? issues : [{ path: "data", message: "no spans" }],
    };
  }
  return { ok: true, format: "openai-agents", sessions, warnings };
}

/** One group of items mapped, with what the incremental ingest keeps of it. */
export type AgentsGroup = {
  key: string;
  /** The group's items, one copy of each (the richest). */
  items: AgentsItem[];
  /** Null: no generation, response or function span. */
  session: ImportedSession | null;
  aggregate: AgentsAggregate;
  /** Traces where a function span matched no generation tool call. */
  synthesized: number;
};

/**
 * Every group in `items` (sorted by key), mapped. A span is one per (trace id, span id): the same
 * span id in two traces is two spans.
 */
export function mapOpenAiAgentsGroups(items: readonly AgentsItem[]): {
  groups: AgentsGroup[];
  warnings: ImportIssue[];
} {
  const traces = new Map<string, AgentsTrace>();
  const spans = new Map<string, AgentsSpan>();
  for (const item of items) {
    if (item.object === "trace") {
      const current = traces.get(item.id);
      if (!current || richer(item, current)) traces.set(item.id, item);
    } else {
      const key = spanKey(item);
      const current = spans.get(key);
      if (!current || richer(item, current)) spans.set(key, item);
    }
  }
  const groups = new Map<string, { traces: AgentsTrace[]; spans: AgentsSpan[] }>();
  const groupOf = (traceId: string) => {
    const trace = traces.get(traceId);
    return trace?.groupId ? `group:${trace.groupId}` : `trace:${traceId}`;
  };
  for (const trace of traces.values()) {
    const key = groupOf(trace.id);
    const g = groups.get(key) ?? { traces: [], spans: [] };
    g.traces.push(trace);
    groups.set(key, g);
  }
  for (const span of spans.values()) {
    const key = groupOf(span.traceId);
    const g = groups.get(key) ?? { traces: [], spans: [] };
    g.spans.push(span);
    groups.set(key, g);
  }
  const warnings: ImportIssue[] = [];
  const mapped = [...groups.entries()]
    .sort(([a], [b]) => (a < b ? -1 : 1))
    .map(([key, group]) => mapGroup(key, group.traces, group.spans, warnings));
  return { groups: mapped, warnings };
}

/**
 * A span's key among its group's steps: one per (trace id, span id), the trace id length-prefixed so
 * that no two pairs give one key. Within a trace, keys order as span ids do.
 */
export const spanKey = (span: { traceId: string; id: string }) => `${span.traceId.length}:${span.traceId}:${span.id}`;

/** Of two copies of one item: the ended one, then the larger, then a stable order. True when `a` is preferred. */
export function richer(a: AgentsItem, b: AgentsItem): boolean {
  const endA = a.object === "trace.span" && a.endedAt !== null ? 1 : 0;
  const endB = b.object === "trace.span" && b.endedAt !== null ? 1 : 0;
  if (endA !== endB) return endA > endB;
  const ja = JSON.stringify({ ...a, path: "" });
  const jb = JSON.stringify({ ...b, path: "" });
  return ja.length !== jb.length ? ja.length > jb.length : ja < jb;
}

export function nanos(iso: string): bigint {
  return BigInt(Date.parse(iso)) * 1_000_000n;
}

/** Where a span's step stands: its trace, its key, and when it started and ended (null: it never ended). */
function spanPlace(span: AgentsSpan) {
  return {
    traceId: span.traceId,
    key: spanKey(span),
    startNs: nanos(span.startedAt),
    endNs: span.endedAt ? nanos(span.endedAt) : null,
  };
}

function warnAt(warnings: ImportIssue[], span: AgentsSpan, key: string, message: string): void {
  warnings.push({ path: `${span.path}.span_data.${key}`, message: `span ${span.id}: ${message}` });
}

function generationStep(span: AgentsSpan, warnings: ImportIssue[]): ModelStep {
  const data = span.spanData;
  const problem = (key: string) => (message: string) => warnAt(warnings, span, key, message);
  const messages =
    data.input === undefined || data.input === null ? [] : fromChatMessages(data.input, problem("input"));
  let output: ModelStep["output"] = null;
  if (Array.isArray(data.output)) {
    for (const item of data.output as unknown[]) {
      // Chat Completions: the completion object; other models: the assistant message itself.
      const message =
        isObject(item) && Array.isArray(item.choices) && isObject(item.choices[0]) ? item.choices[0].message : item;
      const read = fromChatMessage(message, 0, problem("output"));
      const assistant = read.find((m) => m.role === "assistant");
      if (assistant) {
        output = assistant;
        break;
      }
    }
  } else if (data.output !== undefined && data.output !== null) problem("output")("expected an array");
  const model = typeof data.model === "string" ? data.model : undefined;
  const config = isObject(data.model_config) ? data.model_config : {};
  // The span's usage, else the completion's own (Chat Completions models record it only there).
  const completion = Array.isArray(data.output)
    ? (data.output as unknown[]).find((o) => isObject(o) && isObject(o.usage))
    : undefined;
  const usage = isObject(data.usage)
    ? data.usage
    : isObject(completion) && isObject(completion.usage)
      ? completion.usage
      : null;
  const count = (v: unknown) => (typeof v === "number" && Number.isInteger(v) && v >= 0 ? v : undefined);
  const { input: inputTokens, cached, written } = providerInputTokens(usage);
  const outputTokens = usage ? (count(usage.output_tokens) ?? count(usage.completion_tokens)) : undefined;
  return {
    kind: "model_call",
    ...spanPlace(span),
    name: model ?? "unknown-model",
    input: {
      messages,
      ...(model !== undefined ? { model } : {}),
      ...(typeof config.temperature === "number" ? { temperature: config.temperature } : {}),
    },
    output,
    usage: usageOf(inputTokens, outputTokens, cached, undefined, { count: written }),
    error: span.error ? { type: "ModelError", message: span.error.message } : null,
    status: span.endedAt === null ? "incomplete" : span.error ? "failed" : "completed",
    toolsTraced: true,
  };
}

function responseStep(span: AgentsSpan): ModelStep {
  const responseId = typeof span.spanData.response_id === "string" ? span.spanData.response_id : undefined;
  return {
    kind: "model_call",
    ...spanPlace(span),
    name: "unknown-model",
    input: { messages: [], ...(responseId !== undefined ? { responseId } : {}) },
    output: null,
    usage: null,
    error: span.error ? { type: "ModelError", message: span.error.message } : null,
    status: span.endedAt === null ? "incomplete" : span.error ? "failed" : "completed",
    toolsTraced: true,
  };
}

function parseArgsText(value: unknown): { args: unknown; argsUnparsed?: true } {
  if (typeof value !== "string") return { args: value ?? {} };
  if (value.trim() === "") return { args: {} };
  try {
    return { args: parseJsonBounded(value) };
  } catch {
    return { args: value, argsUnparsed: true };
  }
}

function sameArgs(a: unknown, b: unknown): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

/**
 * The steps of some spans. A function span is tied only to a generation of its own trace, so the
 * spans of any set of whole traces map on their own: a group's steps are the union of its traces'.
 * `synthesized`: the traces where a function span matched no generation tool call.
 */
export function agentsSteps(
  spans: readonly AgentsSpan[],
  warnings: ImportIssue[],
): { steps: Step[]; synthesized: Set<string> } {
  const ordered = [...spans].sort(compareSpans);
  const steps: Step[] = [];
  const models: { span: AgentsSpan; step: ModelStep; requests: ToolCallRequest[] }[] = [];
  const claimed = new Set<ToolCallRequest>();
  const synthesized = new Set<string>();

  for (const span of ordered) {
    const type = span.spanData.type;
    if (type === "generation" || type === "response") {
      const step = type === "generation" ? generationStep(span, warnings) : responseStep(span);
      steps.push(step);
      models.push({ span, step, requests: step.output?.toolCalls ?? [] });
      continue;
    }
    if (type !== "function") continue;
    const name = span.spanData.name;
    if (typeof name !== "string" || name === "") {
      warnAt(warnings, span, "name", "a function span without a name is left out");
      continue;
    }
    const { args, argsUnparsed } = parseArgsText(span.spanData.input);
    if (argsUnparsed) warnAt(warnings, span, "input", "is not valid JSON: kept as text (argsUnparsed)");
    const earlier = models.filter((m) => m.span.traceId === span.traceId && compareSpans(m.span, span) <= 0);
    const model = earlier[earlier.length - 1] ?? null;
    let request: ToolCallRequest | null = null;
    if (model) {
      request =
        model.requests.find((r) => !claimed.has(r) && r.name === name && sameArgs(r.args, args)) ??
        model.requests.find((r) => !claimed.has(r) && r.name === name) ??
        null;
      if (request) claimed.add(request);
    }
    if (!request) synthesized.add(span.traceId);
    const failed = span.error !== null;
    const detail =
      span.error && isObject(span.error.data) && typeof span.error.data.error === "string"
        ? span.error.data.error
        : null;
    const tool: ToolStep = {
      kind: "tool_call",
      ...spanPlace(span),
      name,
      callId: request?.id ?? span.id,
      args,
      ...(argsUnparsed ? { argsUnparsed: true as const } : {}),
      output: span.spanData.output ?? null,
      error: span.error
        ? { type: "ToolError", message: detail ? `${span.error.message}: ${detail}` : span.error.message }
        : null,
      status: span.endedAt === null ? "incomplete" : failed ? "failed" : "completed",
      parent: { modelKey: model?.step.key ?? null, request },
    };
    steps.push(tool);
  }
  return { steps, synthesized };
}

function mapGroup(key: string, traces: AgentsTrace[], spans: AgentsSpan[], warnings: ImportIssue[]): AgentsGroup {
  const items = [...traces, ...spans];
  const aggregate = addToAggregate(emptyAggregate(), items);
  const { steps, synthesized } = agentsSteps(spans, warnings);
  if (steps.length === 0) return { key, items, session: null, aggregate, synthesized: synthesized.size };
  const events = assemble(steps);
  const toolNames = [...new Set(events.flatMap((e) => (e.kind === "tool_call" ? [e.name] : [])))];
  const fields = agentsGroupFields(key, aggregate, {
    traceIds: [...new Set(spans.map((s) => s.traceId))].sort(byCodePoint),
    firstModelInput: events.find((e) => e.kind === "model_call")?.input,
    toolNames,
    synthesizedIds: synthesized.size > 0,
  });
  return { key, items, session: { ...fields, events }, aggregate, synthesized: synthesized.size };
}

// ---------------------------------------------------------------------------

function looksLikeAgentsExport(value: unknown): boolean {
  if (!isObject(value) || !Array.isArray(value.data)) return false;
  const first: unknown = value.data[0];
  return isObject(first) && (first.object === "trace" || first.object === "trace.span");
}

/** The registry entry for `openai-agents` documents (a saved export body). */
export const openAiAgentsImporter: JsonImporter = {
  format: "openai-agents",
  label: 'openai-agents (the OpenAI Agents SDK trace export, { "data": [trace, span, …] })',
  accepts: "json",
  detect: (input: JsonInput) => input.shape === "document" && looksLikeAgentsExport(input.value),
  import: (input: JsonInput): FormatOutcome => {
    if (input.shape !== "document")
      return { ok: false, issues: [{ path: "", message: "expected one JSON document, not JSON Lines" }] };
    return formatOutcome(importOpenAiAgents(input.value));
  },
};
