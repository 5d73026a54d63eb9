/**
 * The steps a Langfuse trace's observations become (lib/ingest/langfuse.ts maps the trace): a GENERATION's model
 * step with its messages, tool calls, usage and cost, a tool observation's tool step, and their timing and errors.
 */
import type { Message, Usage } from "@/lib/replay";
import { isObject, parseArgs } from "./otlp/attributes";
import type { ModelStep, ToolStep } from "./otlp/assemble";
import { fromChatMessage, fromChatMessages, fromProviderAnswer } from "./otlp/messages";
import { withCachedTokens, withCacheWrites } from "./cached-tokens";

export type LangfuseObservation = {
  id: string;
  type: string;
  name: string | null;
  startTime: string;
  endTime: string | null;
  parentId: string | null;
  raw: Record<string, unknown>;
};

/** Observation types that are steps of their own, with the operation they record. */
export const OPERATIONS: Record<string, string> = { RETRIEVER: "retrieval", EMBEDDING: "embedding" };

export const nanos = (iso: string) => BigInt(Date.parse(iso)) * 1_000_000n;
export const str = (v: unknown): string | null => (typeof v === "string" && v !== "" ? v : null);

export type Warn = (o: LangfuseObservation, key: string) => (message: string) => void;

export function timingOf(traceId: string, o: LangfuseObservation) {
  return {
    traceId,
    key: o.id,
    startNs: nanos(o.startTime),
    endNs: o.endTime ? nanos(o.endTime) : null,
  };
}

export function errorOf(o: LangfuseObservation, type: string) {
  if (o.raw.level !== "ERROR") return null;
  const message = str(o.raw.statusMessage) ?? "the observation's level is ERROR (no status message)";
  return { type, message };
}

export function statusOf(o: LangfuseObservation, failed: boolean): ModelStep["status"] {
  if (failed) return "failed";
  return o.endTime === null ? "incomplete" : "completed";
}

/** A whole, non-negative count, or undefined (noted). Too-large counts pass: the storage check names them. */
export function count(value: unknown, note: (message: string) => void, what: string): number | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value === "number" && Number.isInteger(value) && value >= 0) return value;
  note(`${what} ${JSON.stringify(value)} is not a whole number of tokens: left out`);
  return undefined;
}

export function money(value: unknown, note: (message: string) => void, what: string): number | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value === "number" && Number.isFinite(value) && value >= 0 && value < 1e12) return value;
  note(`${what} ${JSON.stringify(value)} is not a cost in USD: left out`);
  return undefined;
}

export function usageOf(raw: Record<string, unknown>, note: (message: string) => void): Usage | null {
  const details = isObject(raw.usageDetails) ? raw.usageDetails : {};
  const legacy = isObject(raw.usage) ? raw.usage : {};
  const costs = isObject(raw.costDetails) ? raw.costDetails : {};
  const cache = langfuseCache(details, note);
  const baseInput =
    count(details.input, note, "usageDetails.input") ??
    count(legacy.input, note, "usage.input") ??
    count(raw.promptTokens, note, "promptTokens");
  // Langfuse's usage keys are disjoint (its total is their sum): cache reads and writes are not in `input`.
  const inputTokens = baseInput === undefined ? undefined : baseInput + cache.read + cache.written;
  const outputTokens =
    count(details.output, note, "usageDetails.output") ??
    count(legacy.output, note, "usage.output") ??
    count(raw.completionTokens, note, "completionTokens");
  const costUsd =
    money(costs.total, note, "costDetails.total") ??
    money(raw.calculatedTotalCost, note, "calculatedTotalCost") ??
    money(raw.totalCost, note, "totalCost") ??
    money(legacy.totalCost, note, "usage.totalCost");
  const parts = costUsd === undefined ? [costs.input, costs.output].map((v) => money(v, note, "costDetails")) : [];
  return withCacheWrites(
    withCachedTokens(usageFrom(inputTokens, outputTokens, costUsd, parts), cache.read || undefined, note),
    cache.written || undefined,
    note,
  );
}

/** The usageDetails keys Langfuse's integrations write for prompt-cache reads and writes (OpenAI's, Anthropic's, its own). */
const CACHE_READ_KEYS = ["input_cached_tokens", "cache_read_input_tokens", "input_cache_read"] as const;
const CACHE_WRITE_KEYS = ["cache_creation_input_tokens", "input_cache_creation"] as const;

function langfuseCache(
  details: Record<string, unknown>,
  note: (message: string) => void,
): { read: number; written: number } {
  const sum = (keys: readonly string[]) =>
    keys.reduce((total, k) => total + (count(details[k], note, `usageDetails.${k}`) ?? 0), 0);
  return { read: sum(CACHE_READ_KEYS), written: sum(CACHE_WRITE_KEYS) };
}

/** A step's usage from what was found (a total cost, else the sum of its parts), or null when nothing was. */
export function usageFrom(
  inputTokens: number | undefined,
  outputTokens: number | undefined,
  total: number | undefined,
  costParts: readonly (number | undefined)[],
): Usage | null {
  const costUsd =
    total ??
    (costParts.some((v) => v !== undefined) ? costParts.reduce<number>((sum, v) => sum + (v ?? 0), 0) : undefined);
  if (inputTokens === undefined && outputTokens === undefined && costUsd === undefined) return null;
  return {
    ...(inputTokens !== undefined ? { inputTokens } : {}),
    ...(outputTokens !== undefined ? { outputTokens } : {}),
    ...(costUsd !== undefined ? { costUsd } : {}),
  };
}

export function generationStep(traceId: string, o: LangfuseObservation, warn: Warn, notes: string[]): ModelStep {
  const raw = o.raw;
  const input = raw.input;
  let messages: Message[] = [];
  let tools: unknown[] | undefined;
  let rawInput: unknown;
  if (Array.isArray(input)) messages = fromChatMessages(input, warn(o, "input"));
  else if (isObject(input) && Array.isArray(input.messages)) {
    messages = fromChatMessages(input.messages, warn(o, "input"));
    if (Array.isArray(input.tools)) tools = input.tools as unknown[];
  } else if (typeof input === "string") messages = [{ role: "user", content: input }];
  else if (input !== undefined && input !== null) {
    rawInput = input;
    notes.push(`generation ${o.id}: its input is not a list of messages; kept as it came (input.rawInput)`);
  }
  const output = outputMessage(raw.output, o, warn, notes);
  const params =
    isObject(raw.modelParameters) && Object.keys(raw.modelParameters).length > 0 ? raw.modelParameters : null;
  const temperature =
    params && typeof params.temperature === "number"
      ? params.temperature
      : params && typeof params.temperature === "string" && Number.isFinite(Number(params.temperature))
        ? Number(params.temperature)
        : undefined;
  if (!tools && params && Array.isArray(params.tools)) tools = params.tools as unknown[];
  const model = str(raw.model);
  const error = errorOf(o, "ModelError");
  return {
    kind: "model_call",
    ...timingOf(traceId, o),
    name: model ?? o.name ?? "unknown-model",
    input: {
      messages,
      ...(model !== null ? { model } : {}),
      ...(temperature !== undefined ? { temperature } : {}),
      ...(tools ? { tools } : {}),
      ...(params ? { modelParameters: params } : {}),
      ...(rawInput !== undefined ? { rawInput } : {}),
      observationId: o.id,
    },
    output,
    usage: usageOf(raw, warn(o, "usage")),
    error,
    status: statusOf(o, error !== null),
  };
}

/** A generation's output as the assistant message it was. */
export function outputMessage(value: unknown, o: LangfuseObservation, warn: Warn, notes: string[]): Message | null {
  if (value === undefined || value === null) return null;
  if (typeof value === "string") return { role: "assistant", content: value };
  const native = fromProviderAnswer(value, warn(o, "output"));
  if (native) return native;
  let candidate: unknown = value;
  if (isObject(value) && Array.isArray(value.choices) && isObject(value.choices[0]))
    candidate = value.choices[0].message;
  else if (Array.isArray(value) && value.length > 0 && isObject(value[value.length - 1]))
    candidate = value[value.length - 1];
  if (isObject(candidate) && candidate.role === undefined && ("content" in candidate || "tool_calls" in candidate))
    candidate = { ...candidate, role: "assistant" };
  if (isObject(candidate) && typeof candidate.role === "string") {
    const read = fromChatMessage(candidate, 0, warn(o, "output"));
    const assistant = read.find((m) => m.role === "assistant");
    if (assistant) return assistant;
  }
  notes.push(`generation ${o.id}: its output is not an assistant message; kept as the message's content`);
  return { role: "assistant", content: value };
}

export function callIdOf(raw: Record<string, unknown>): string | null {
  for (const holder of [raw.metadata, raw.input]) {
    if (!isObject(holder)) continue;
    for (const key of ["tool_call_id", "toolCallId", "call_id", "callId"]) {
      const v = str(holder[key]);
      if (v) return v;
    }
  }
  return null;
}

export function toolStepOf(traceId: string, o: LangfuseObservation, unknown: boolean, warn: Warn): ToolStep {
  const raw = o.raw;
  const { args, argsUnparsed } = parseArgs(raw.input);
  if (argsUnparsed) warn(o, "input")("is not valid JSON: kept as text (argsUnparsed)");
  const error = errorOf(o, "ToolError");
  const operation = unknown ? o.type.toLowerCase() : OPERATIONS[o.type];
  return {
    kind: "tool_call",
    ...timingOf(traceId, o),
    name: o.name ?? o.type.toLowerCase(),
    callId: callIdOf(raw),
    args,
    ...(argsUnparsed ? { argsUnparsed: true as const } : {}),
    output: raw.output ?? null,
    error,
    status: statusOf(o, error !== null),
    ...(operation !== undefined ? { operation } : {}),
    ...(unknown ? { unrecognized: true as const } : {}),
  };
}
