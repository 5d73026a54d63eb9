/**
 * The steps Braintrust spans become (lib/ingest/braintrust.ts maps the trace): an `llm` span's model step with its
 * messages, the tool calls it requested, usage and cost; a `tool` span's (or an unknown type's) tool step; their
 * timing and errors. A span is held as the same record a Langfuse observation is (id, type, name, times, parent,
 * raw), so the shared timing and usage helpers read it.
 */
import type { Message } from "@/lib/replay";
import { isObject, parseArgs } from "./otlp/attributes";
import type { ModelStep, ToolStep } from "./otlp/assemble";
import { fromChatMessage, fromChatMessages, fromProviderAnswer } from "./otlp/messages";
import { withCachedTokens, withCacheWrites } from "./cached-tokens";
import {
  callIdOf,
  count,
  money,
  statusOf,
  str,
  timingOf,
  usageFrom,
  type LangfuseObservation,
  type Warn,
} from "./langfuse-steps";

export type BraintrustSpan = LangfuseObservation;

/** A span's `error`: Braintrust keeps the text (often `Name: message`) or an object with a message. */
export function errorOf(span: BraintrustSpan, type: string) {
  const error = span.raw.error;
  if (error === undefined || error === null || error === "") return null;
  if (typeof error === "string") {
    const named = /^([A-Z][A-Za-z0-9_.]*(?:Error|Exception)): (.+)$/s.exec(error);
    return named ? { type: named[1]!, message: named[2]! } : { type, message: error };
  }
  if (isObject(error))
    return { type: str(error.name) ?? str(error.type) ?? type, message: str(error.message) ?? JSON.stringify(error) };
  return { type, message: JSON.stringify(error) };
}

function metricsOf(span: BraintrustSpan): Record<string, unknown> {
  return isObject(span.raw.metrics) ? span.raw.metrics : {};
}

/** An llm span's answer: the response's first choice (`[{ message }]` or `{ choices }`), a message, or text. */
function outputMessage(span: BraintrustSpan, warn: Warn, notes: string[]): Message | null {
  const value = span.raw.output;
  if (value === undefined || value === null) return null;
  if (typeof value === "string") return { role: "assistant", content: value };
  const native = fromProviderAnswer(value, warn(span, "output"));
  if (native) return native;
  let candidate: unknown = value;
  if (Array.isArray(value) && isObject(value[0]) && "message" in value[0]) candidate = value[0].message;
  else if (isObject(value) && Array.isArray(value.choices) && isObject(value.choices[0]))
    candidate = value.choices[0].message;
  else if (Array.isArray(value) && isObject(value[value.length - 1])) candidate = value[value.length - 1];
  if (isObject(candidate) && candidate.role === undefined && ("content" in candidate || "tool_calls" in candidate))
    candidate = { ...candidate, role: "assistant" };
  if (isObject(candidate) && typeof candidate.role === "string") {
    const assistant = fromChatMessage(candidate, 0, warn(span, "output")).find((m) => m.role === "assistant");
    if (assistant) return assistant;
  }
  notes.push(`llm span ${span.id}: its output is not an assistant message; kept as the message's content`);
  return { role: "assistant", content: value };
}

export function llmStep(traceId: string, span: BraintrustSpan, warn: Warn, notes: string[]): ModelStep {
  const raw = span.raw;
  const input = raw.input;
  const meta = isObject(raw.metadata) ? raw.metadata : {};
  let messages: Message[] = [];
  let rawInput: unknown;
  if (Array.isArray(input)) messages = fromChatMessages(input, warn(span, "input"));
  else if (isObject(input) && Array.isArray(input.messages))
    messages = fromChatMessages(input.messages, warn(span, "input"));
  else if (typeof input === "string") messages = [{ role: "user", content: input }];
  else if (input !== undefined && input !== null) {
    rawInput = input;
    notes.push(`llm span ${span.id}: its input is not a list of messages; kept as it came (input.rawInput)`);
  }
  const request = isObject(input) ? input : {};
  const model = str(meta.model) ?? str(request.model);
  const temperature = [meta.temperature, request.temperature].find(
    (t): t is number => typeof t === "number" && Number.isFinite(t),
  );
  const tools = [meta.tools, request.tools].find((t): t is unknown[] => Array.isArray(t));
  const metrics = metricsOf(span);
  const note = warn(span, "metrics");
  const error = errorOf(span, "ModelError");
  return {
    kind: "model_call",
    ...timingOf(traceId, span),
    name: model ?? span.name ?? "unknown-model",
    input: {
      messages,
      ...(model !== null ? { model } : {}),
      ...(temperature !== undefined ? { temperature } : {}),
      ...(tools ? { tools } : {}),
      ...(Object.keys(meta).length > 0 ? { metadata: meta } : {}),
      ...(rawInput !== undefined ? { rawInput } : {}),
      spanId: span.id,
    },
    output: outputMessage(span, warn, notes),
    // Braintrust counts cache reads and writes inside prompt_tokens.
    usage: withCacheWrites(
      withCachedTokens(
        usageFrom(
          count(metrics.prompt_tokens, note, "metrics.prompt_tokens"),
          count(metrics.completion_tokens, note, "metrics.completion_tokens"),
          money(metrics.estimated_cost, note, "metrics.estimated_cost"),
          [],
        ),
        count(metrics.prompt_cached_tokens, note, "metrics.prompt_cached_tokens"),
        note,
      ),
      count(metrics.prompt_cache_creation_tokens, note, "metrics.prompt_cache_creation_tokens"),
      note,
    ),
    error,
    status: statusOf(span, error !== null),
  };
}

/** A tool span's step (or, `unknown`, a span of a type Branchpoint does not know, kept as a marked step). */
export function toolSpanStep(traceId: string, span: BraintrustSpan, unknown: boolean, warn: Warn): ToolStep {
  const raw = span.raw;
  const { args, argsUnparsed } = parseArgs(raw.input ?? {});
  if (argsUnparsed && !unknown) warn(span, "input")("is not valid JSON: kept as text (argsUnparsed)");
  const error = errorOf(span, "ToolError");
  return {
    kind: "tool_call",
    ...timingOf(traceId, span),
    name: span.name ?? (span.type || "tool"),
    callId: callIdOf(raw),
    args,
    ...(argsUnparsed ? { argsUnparsed: true as const } : {}),
    output: raw.output ?? null,
    error,
    status: statusOf(span, error !== null),
    ...(unknown ? { operation: span.type || "unknown", unrecognized: true as const } : {}),
  };
}
