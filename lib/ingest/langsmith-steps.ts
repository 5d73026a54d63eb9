/**
 * The steps LangSmith runs become (lib/ingest/langsmith.ts maps the trace): an `llm` run's model step with its
 * messages, tool calls, usage and cost; a `tool` (or retriever, embedding, unknown) run's tool step; their timing
 * and errors. A run is held as the same record a Langfuse observation is (id, type, name, times, parent, raw).
 */
import type { Message, Usage } from "@/lib/replay";
import { isObject, parseArgs } from "./otlp/attributes";
import type { ModelStep, ToolStep } from "./otlp/assemble";
import { fromChatMessage, fromProviderAnswer } from "./otlp/messages";
import { providerInputTokens, withCachedTokens, withCacheWrites } from "./cached-tokens";
import { count, money, statusOf, str, timingOf, usageFrom, type LangfuseObservation } from "./langfuse-steps";
import { fromRunMessage, fromRunMessages, messageUsage } from "./langsmith-messages";

export type LangSmithRun = LangfuseObservation;
export type RunWarn = (run: LangSmithRun, key: string) => (message: string) => void;

/** Run types that are steps of their own besides llm and tool, with the operation they record. */
export const RUN_OPERATIONS: Record<string, string> = { retriever: "retrieval", embedding: "embedding" };

function errorOf(run: LangSmithRun, type: string) {
  const error = run.raw.error;
  if (error === undefined || error === null || error === "") return null;
  return { type, message: typeof error === "string" ? error : JSON.stringify(error) };
}

/** A cost LangSmith gives as a number or a decimal string. */
function cost(value: unknown, note: (message: string) => void, what: string): number | undefined {
  if (typeof value === "string" && /^\d+(\.\d+)?([eE][-+]?\d+)?$/.test(value.trim()))
    return money(Number(value), note, what);
  return money(value, note, what);
}

function usageOf(run: LangSmithRun, output: unknown, note: (message: string) => void): Usage | null {
  const raw = run.raw;
  const outputs = isObject(raw.outputs) ? raw.outputs : {};
  const llmOutput = isObject(outputs.llm_output) ? outputs.llm_output : {};
  const tokenUsage = isObject(llmOutput.token_usage) ? llmOutput.token_usage : {};
  const openAi = isObject(outputs.usage) ? outputs.usage : {};
  const meta = isObject(raw.extra) && isObject(raw.extra.metadata) ? raw.extra.metadata : {};
  const usageMeta = isObject(outputs.usage_metadata)
    ? outputs.usage_metadata
    : (messageUsage(output) ?? (isObject(meta.usage_metadata) ? meta.usage_metadata : {}));
  // Cache reads and writes as the run, LangChain's usage_metadata or the provider's own usage count them (all
  // inside input).
  const provider = providerInputTokens(openAi);
  const runDetails = isObject(raw.prompt_token_details) ? raw.prompt_token_details : {};
  const metaDetails = isObject(usageMeta.input_token_details) ? usageMeta.input_token_details : {};
  const cached =
    count(runDetails.cache_read, note, "prompt_token_details.cache_read") ??
    count(metaDetails.cache_read, note, "usage_metadata.input_token_details.cache_read") ??
    providerInputTokens(tokenUsage).cached ??
    provider.cached;
  const written =
    count(runDetails.cache_creation, note, "prompt_token_details.cache_creation") ??
    count(metaDetails.cache_creation, note, "usage_metadata.input_token_details.cache_creation") ??
    providerInputTokens(tokenUsage).written ??
    provider.written;
  const inputTokens =
    count(raw.prompt_tokens, note, "prompt_tokens") ??
    count(usageMeta.input_tokens, note, "usage_metadata.input_tokens") ??
    count(tokenUsage.prompt_tokens, note, "llm_output.token_usage.prompt_tokens") ??
    count(openAi.prompt_tokens, note, "outputs.usage.prompt_tokens") ??
    provider.input;
  const outputTokens =
    count(raw.completion_tokens, note, "completion_tokens") ??
    count(usageMeta.output_tokens, note, "usage_metadata.output_tokens") ??
    count(tokenUsage.completion_tokens, note, "llm_output.token_usage.completion_tokens") ??
    count(openAi.completion_tokens, note, "outputs.usage.completion_tokens");
  const total = cost(raw.total_cost, note, "total_cost");
  const parts =
    total === undefined
      ? [cost(raw.prompt_cost, note, "prompt_cost"), cost(raw.completion_cost, note, "completion_cost")]
      : [];
  return withCacheWrites(
    withCachedTokens(usageFrom(inputTokens, outputTokens, total, parts), cached, note),
    written,
    note,
  );
}

/** The generation an llm run's outputs hold: LangChain's `generations` ([[gen]] or [gen]), else the outputs. */
function generationOf(outputs: Record<string, unknown>): unknown {
  const gens = outputs.generations;
  if (!Array.isArray(gens) || gens.length === 0) return undefined;
  const first: unknown = Array.isArray(gens[0]) ? gens[0][0] : gens[0];
  if (!isObject(first)) return undefined;
  if (first.message !== undefined) return first.message;
  return typeof first.text === "string" ? { role: "assistant", content: first.text } : undefined;
}

/** An llm run's answer as the assistant message it was (LangChain generations, OpenAI choices, a message). */
function outputMessage(run: LangSmithRun, warn: RunWarn, notes: string[]): { message: Message | null; raw: unknown } {
  const outputs = run.raw.outputs;
  if (outputs === undefined || outputs === null) return { message: null, raw: undefined };
  const native = fromProviderAnswer(
    isObject(outputs) && outputs.output !== undefined ? outputs.output : outputs,
    warn(run, "outputs"),
  );
  if (native) return { message: native, raw: outputs };
  let candidate: unknown = outputs;
  if (isObject(outputs)) {
    const gen = generationOf(outputs);
    if (gen !== undefined) candidate = gen;
    else if (Array.isArray(outputs.choices) && isObject(outputs.choices[0])) candidate = outputs.choices[0].message;
    else if (isObject(outputs.output)) candidate = outputs.output;
    else if (typeof outputs.output === "string")
      return { message: { role: "assistant", content: outputs.output }, raw: outputs };
  }
  if (isObject(candidate) && candidate.role === undefined && candidate.type === undefined && "content" in candidate)
    candidate = { ...candidate, role: "assistant" };
  const read = isObject(candidate) ? fromRunMessage(candidate, 0, warn(run, "outputs")) : [];
  const assistant = read.find((m) => m.role === "assistant");
  if (assistant) return { message: assistant, raw: candidate };
  notes.push(`llm run ${run.id}: its outputs are not an assistant message; kept as the message's content`);
  return { message: { role: "assistant", content: outputs }, raw: candidate };
}

function inputMessages(run: LangSmithRun, warn: RunWarn, notes: string[]) {
  const inputs = run.raw.inputs;
  const problem = warn(run, "inputs");
  if (isObject(inputs)) {
    if (Array.isArray(inputs.messages)) return { messages: fromRunMessages(inputs.messages, problem) };
    if (Array.isArray(inputs.prompts) && inputs.prompts.every((p) => typeof p === "string"))
      return { messages: inputs.prompts.map((p): Message => ({ role: "user", content: p })) };
    if (typeof inputs.prompt === "string") return { messages: [{ role: "user", content: inputs.prompt } as Message] };
    if (typeof inputs.input === "string") return { messages: [{ role: "user", content: inputs.input } as Message] };
  }
  if (Array.isArray(inputs)) return { messages: inputs.flatMap((m, i) => fromChatMessage(m, i, problem)) };
  if (inputs !== undefined && inputs !== null && !(isObject(inputs) && Object.keys(inputs).length === 0))
    notes.push(`llm run ${run.id}: its inputs are not a list of messages; kept as they came (input.rawInput)`);
  return { messages: [] as Message[], rawInput: inputs };
}

export function llmStep(traceId: string, run: LangSmithRun, warn: RunWarn, notes: string[]): ModelStep {
  const raw = run.raw;
  const inputs = isObject(raw.inputs) ? raw.inputs : {};
  const extra = isObject(raw.extra) ? raw.extra : {};
  const params = isObject(extra.invocation_params) ? extra.invocation_params : {};
  const meta = isObject(extra.metadata) ? extra.metadata : {};
  const outputs = isObject(raw.outputs) ? raw.outputs : {};
  const llmOutput = isObject(outputs.llm_output) ? outputs.llm_output : {};
  const { messages, rawInput } = inputMessages(run, warn, notes);
  const output = outputMessage(run, warn, notes);
  const model =
    str(inputs.model) ??
    str(params.model) ??
    str(params.model_name) ??
    str(meta.ls_model_name) ??
    str(llmOutput.model_name) ??
    str(outputs.model);
  const temperature = [inputs.temperature, params.temperature, meta.ls_temperature].find(
    (t): t is number => typeof t === "number" && Number.isFinite(t),
  );
  const tools = [inputs.tools, params.tools].find((t): t is unknown[] => Array.isArray(t));
  const error = errorOf(run, "ModelError");
  return {
    kind: "model_call",
    ...timingOf(traceId, run),
    name: model ?? run.name ?? "unknown-model",
    input: {
      messages,
      ...(model !== null ? { model } : {}),
      ...(temperature !== undefined ? { temperature } : {}),
      ...(tools ? { tools } : {}),
      ...(Object.keys(params).length > 0 ? { invocationParams: params } : {}),
      ...(rawInput !== undefined && rawInput !== null ? { rawInput } : {}),
      runId: run.id,
    },
    output: output.message,
    usage: usageOf(run, output.raw, warn(run, "usage")),
    error,
    status: statusOf(run, error !== null),
  };
}

/** The call id a tool run answers: on its inputs or metadata, else on the ToolMessage it returned. */
function callIdOf(raw: Record<string, unknown>): string | null {
  const outputs = isObject(raw.outputs) ? raw.outputs : {};
  const out = isObject(outputs.output) ? outputs.output : {};
  const holders = [
    raw.inputs,
    isObject(raw.extra) ? raw.extra.metadata : null,
    outputs,
    isObject(out.kwargs) ? out.kwargs : out,
  ];
  for (const holder of holders) {
    if (!isObject(holder)) continue;
    for (const key of ["tool_call_id", "toolCallId", "call_id"]) {
      const v = str(holder[key]);
      if (v) return v;
    }
  }
  return null;
}

/** A tool's arguments: `inputs.input` (LangChain's one string argument, JSON or text) or the inputs as they came. */
function argsOf(inputs: unknown): { args: unknown; argsUnparsed?: true } {
  if (!isObject(inputs)) return { args: inputs ?? {} };
  const keys = Object.keys(inputs).filter((k) => k !== "tool_call_id" && k !== "callbacks");
  if (keys.length === 1 && keys[0] === "input") {
    const parsed = parseArgs(inputs.input);
    // LangChain's string argument that is not JSON is the argument itself, not a broken one.
    return parsed.argsUnparsed ? { args: { input: inputs.input } } : parsed;
  }
  return { args: Object.fromEntries(keys.map((k) => [k, inputs[k]])) };
}

/** A tool's result: a ToolMessage's content, else `outputs.output`, else the outputs. */
function toolOutput(outputs: unknown): unknown {
  if (!isObject(outputs)) return outputs ?? null;
  const out = outputs.output;
  if (out === undefined) return outputs;
  if (isObject(out)) {
    const [message] = fromRunMessage(out, 0, () => undefined);
    if (message?.role === "tool") return message.content;
  }
  return out;
}

export function toolRunStep(traceId: string, run: LangSmithRun, unknown: boolean): ToolStep {
  const raw = run.raw;
  const error = errorOf(run, "ToolError");
  const operation = unknown ? run.type : RUN_OPERATIONS[run.type];
  return {
    kind: "tool_call",
    ...timingOf(traceId, run),
    name: run.name ?? run.type,
    callId: callIdOf(raw),
    ...argsOf(raw.inputs),
    output: toolOutput(raw.outputs),
    error,
    status: statusOf(run, error !== null),
    ...(operation !== undefined ? { operation } : {}),
    ...(unknown ? { unrecognized: true as const } : {}),
  };
}
