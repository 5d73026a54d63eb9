import { parseJsonBounded } from "@/lib/hostile/json";
import type { EventError, EventStatus, Message, ModelCallInput, ToolCallRequest, Usage } from "@/lib/replay";
import type { ImportIssue } from "../types";
import { isObject, parseArgs, SpanAttributes } from "./attributes";
import type { ModelStep, StepTiming, ToolStep } from "./assemble";
import type { OtlpSpan } from "./decode";
import {
  fromAiSdkMessages,
  fromAiSdkPrompt,
  fromAiSdkToolCalls,
  fromChatMessages,
  fromGenAiMessages,
  fromGenAiSystemInstructions,
  fromOpenInferenceMessages,
  type Problem,
} from "./messages";

// ---------------------------------------------------------------------------
// What one span means, in each convention Branchpoint reads:
//   - Vercel AI SDK `ai.*` spans (ai.generateText[.doGenerate],
//     ai.streamText[.doStream], ai.toolCall; AI SDK ≤6, and 7's LegacyOpenTelemetry),
//   - OpenInference (`openinference.span.kind` LLM / TOOL / AGENT / CHAIN),
//   - the OpenTelemetry GenAI semantic conventions (`gen_ai.operation.name`
//     chat / execute_tool / invoke_agent; AI SDK 7's OpenTelemetry and others).
// The first that claims a span reads it: ai.* spans also carry some gen_ai.*
// attributes, so they are checked first.
// ---------------------------------------------------------------------------

export type Convention = "vercel-ai-sdk" | "openinference" | "genai";

export type ToolDefinition = { name: string; schema?: unknown };

export type AgentReading = {
  role: "agent";
  convention: Convention;
  span: OtlpSpan;
  agentName: string | null;
  /** The run's answer, when the span records one. */
  final: { output: unknown } | null;
  metadata: Record<string, unknown>;
};

export type SpanReading =
  | {
      role: "model";
      convention: Convention;
      span: OtlpSpan;
      step: ModelStep;
      tools: ToolDefinition[];
      agentName: string | null;
    }
  | { role: "tool"; convention: Convention; span: OtlpSpan; step: ToolStep; agentName: string | null }
  | AgentReading
  | { role: "other"; convention: Convention | null; span: OtlpSpan; agentName: string | null };

export function timing(span: OtlpSpan): StepTiming {
  return {
    traceId: span.traceId,
    key: `${span.traceId}:${span.spanId}`,
    startNs: BigInt(span.startTimeUnixNano),
    endNs: span.endTimeUnixNano === null ? null : BigInt(span.endTimeUnixNano),
  };
}

const STATUS_ERROR = 2;

/** The span's outcome: no end → incomplete; ERROR status or an `exception` event → failed with that error. */
export function outcome(span: OtlpSpan): { status: EventStatus; error: EventError | null } {
  const exception = span.events.find((e) => e.name === "exception");
  const failed = span.status.code === STATUS_ERROR;
  if (span.endTimeUnixNano === null) return { status: "incomplete", error: null };
  if (!failed) return { status: "completed", error: null };
  const type = exception?.attributes["exception.type"];
  const message = exception?.attributes["exception.message"];
  return {
    status: "failed",
    error: {
      type: typeof type === "string" && type !== "" ? type : "Error",
      message:
        typeof message === "string" && message !== ""
          ? message
          : span.status.message !== ""
            ? span.status.message
            : "the span ended with an error status",
    },
  };
}

function problemAt(attrs: SpanAttributes, key: string): Problem {
  return (message) => attrs.warn(key, message);
}

function usageOf(input: number | undefined, output: number | undefined): Usage | null {
  if (input === undefined && output === undefined) return null;
  return {
    ...(input !== undefined ? { inputTokens: input } : {}),
    ...(output !== undefined ? { outputTokens: output } : {}),
  };
}

function modelInput(
  messages: Message[],
  model: string | undefined,
  temperature: number | undefined,
  tools: ToolDefinition[],
  toolsRaw: unknown[] | undefined,
): ModelCallInput {
  return {
    messages,
    ...(model !== undefined ? { model } : {}),
    ...(temperature !== undefined ? { temperature } : {}),
    ...(toolsRaw !== undefined && toolsRaw.length > 0 ? { tools: toolsRaw } : tools.length > 0 ? { tools } : {}),
  };
}

/** A model call, read the same way whichever convention the span follows; only where each keeps its fields differs. */
function modelReading(
  span: OtlpSpan,
  convention: Convention,
  agentName: string | null,
  call: {
    model: string | undefined;
    messages: Message[];
    temperature: number | undefined;
    toolsRaw: unknown[] | undefined;
    output: Message | null;
    usage: Usage | null;
  },
): SpanReading {
  const tools = toolDefinitions(call.toolsRaw ?? []);
  return {
    role: "model",
    convention,
    span,
    agentName,
    tools,
    step: {
      ...timing(span),
      kind: "model_call",
      name: call.model ?? "unknown-model",
      input: modelInput(call.messages, call.model, call.temperature, tools, call.toolsRaw),
      output: call.output,
      usage: call.usage,
      ...outcome(span),
    },
  };
}

/** Tool definitions in the shapes SDKs write: `{ name, parameters | inputSchema }` or `{ function: { name, parameters } }`. */
function toolDefinitions(list: unknown[]): ToolDefinition[] {
  const out: ToolDefinition[] = [];
  for (const raw of list) {
    const def = isObject(raw) && isObject(raw.function) ? raw.function : raw;
    if (!isObject(def) || typeof def.name !== "string" || def.name === "") continue;
    const schema = def.parameters ?? def.inputSchema ?? def.input_schema;
    out.push({ name: def.name, ...(schema !== undefined ? { schema } : {}) });
  }
  return out;
}

function assistant(content: unknown, calls: ToolCallRequest[]): Message {
  return { role: "assistant", content, ...(calls.length > 0 ? { toolCalls: calls } : {}) };
}

// ---------------------------------------------------------------------------

export function readSpan(span: OtlpSpan, warnings: ImportIssue[]): SpanReading {
  const attrs = new SpanAttributes(span, warnings);
  const operationId = attrs.has("ai.operationId") ? attrs.string("ai.operationId") : undefined;
  if (operationId?.startsWith("ai.") || (operationId === undefined && span.name.startsWith("ai."))) {
    return readAiSdk(attrs, operationId ?? span.name);
  }
  if (attrs.has("openinference.span.kind")) return readOpenInference(attrs);
  return readGenAi(attrs);
}

// --- Vercel AI SDK ---------------------------------------------------------

function readAiSdk(attrs: SpanAttributes, operationId: string): SpanReading {
  const span = attrs.span;
  const agentName = attrs.string("ai.telemetry.functionId") ?? null;
  const convention = "vercel-ai-sdk" as const;
  if (/\.do(Generate|Stream)$/.test(operationId)) {
    const model = attrs.string("ai.model.id") ?? attrs.string("gen_ai.request.model");
    const messagesJson = attrs.json("ai.prompt.messages");
    const messages =
      messagesJson === undefined ? [] : fromAiSdkMessages(messagesJson, problemAt(attrs, "ai.prompt.messages"));
    const toolsRaw = readAiSdkTools(attrs);
    const text = attrs.string("ai.response.text");
    const objectJson = attrs.has("ai.response.object") ? attrs.jsonOrText("ai.response.object") : undefined;
    const callsJson = attrs.json("ai.response.toolCalls");
    const calls =
      callsJson === undefined ? [] : fromAiSdkToolCalls(callsJson, problemAt(attrs, "ai.response.toolCalls"));
    const hasOutput = text !== undefined || objectJson !== undefined || callsJson !== undefined;
    const content = text !== undefined && !(text === "" && calls.length > 0) ? text : (objectJson ?? null);
    const usage = usageOf(
      attrs.count("ai.usage.inputTokens") ?? attrs.count("ai.usage.promptTokens"),
      attrs.count("ai.usage.outputTokens") ?? attrs.count("ai.usage.completionTokens"),
    );
    return modelReading(span, convention, agentName, {
      model,
      messages,
      temperature: attrs.number("ai.settings.temperature"),
      toolsRaw,
      output: hasOutput ? assistant(content, calls) : null,
      usage,
    });
  }
  if (operationId === "ai.toolCall") {
    return toolReading(attrs, convention, agentName, attrs.string("ai.toolCall.name"), {
      nameKey: "ai.toolCall.name",
      what: "an ai.toolCall span",
      step: (name) =>
        toolStep(attrs, name, attrs.string("ai.toolCall.id") ?? null, "ai.toolCall.args", "ai.toolCall.result"),
    });
  }
  if (/^ai\.(generateText|streamText|generateObject|streamObject)$/.test(operationId)) {
    const text = attrs.string("ai.response.text");
    const object = attrs.has("ai.response.object") ? attrs.jsonOrText("ai.response.object") : undefined;
    const final =
      text !== undefined && text !== "" ? { output: text } : object !== undefined ? { output: object } : null;
    const metadata = attrs.prefixed("ai.telemetry.metadata");
    if (attrs.has("ai.prompt")) {
      const prompt = attrs.json("ai.prompt");
      if (prompt !== undefined) fromAiSdkPrompt(prompt, problemAt(attrs, "ai.prompt")); // checked, for its warnings
    }
    return { role: "agent", convention, span, agentName, final, metadata };
  }
  return { role: "other", convention, span, agentName };
}

function readAiSdkTools(attrs: SpanAttributes): unknown[] | undefined {
  const raw = attrs.raw("ai.prompt.tools");
  if (raw === undefined || raw === null) return undefined;
  const list = Array.isArray(raw) ? raw : [raw];
  const out: unknown[] = [];
  list.forEach((item, index) => {
    if (typeof item !== "string") return out.push(item);
    try {
      out.push(parseJsonBounded(item));
    } catch {
      attrs.warn("ai.prompt.tools", `tool ${index} is not valid JSON`);
    }
  });
  return out;
}

/** A tool call, read the same way whichever convention the span follows: without a tool name it is left out, with a warning. */
function toolReading(
  attrs: SpanAttributes,
  convention: Convention,
  agentName: string | null,
  name: string | undefined,
  how: { nameKey: string; what: string; step: (name: string) => ToolStep },
): SpanReading {
  const span = attrs.span;
  if (!name) {
    attrs.warn(how.nameKey, `${how.what} without a tool name is left out`);
    return { role: "other", convention, span, agentName };
  }
  return { role: "tool", convention, span, agentName, step: how.step(name) };
}

function toolStep(
  attrs: SpanAttributes,
  name: string,
  callId: string | null,
  argsKey: string,
  resultKey: string,
): ToolStep {
  const span = attrs.span;
  const { status, error } = outcome(span);
  const rawArgs = attrs.raw(argsKey);
  const parsed = rawArgs === undefined || rawArgs === null ? null : parseArgs(rawArgs);
  if (parsed?.argsUnparsed) attrs.warn(argsKey, "is not valid JSON: kept as text (argsUnparsed)");
  const result = attrs.has(resultKey) ? attrs.jsonOrText(resultKey) : null;
  return {
    ...timing(span),
    kind: "tool_call",
    name,
    callId: callId === "" ? null : callId,
    args: parsed ? parsed.args : undefined,
    ...(parsed?.argsUnparsed ? { argsUnparsed: true as const } : {}),
    output: status === "completed" ? result : (result ?? null),
    error,
    status,
  };
}

// --- OpenInference ---------------------------------------------------------

function readOpenInference(attrs: SpanAttributes): SpanReading {
  const span = attrs.span;
  const convention = "openinference" as const;
  const kind = (attrs.string("openinference.span.kind") ?? "").toUpperCase();
  const agentName = attrs.string("agent.name") ?? null;
  if (kind === "LLM") {
    const model = attrs.string("llm.model_name");
    const flatInput = attrs.prefixed("llm.input_messages");
    let messages: Message[] = [];
    if (Object.keys(flatInput).length > 0)
      messages = fromOpenInferenceMessages(flatInput, problemAt(attrs, "llm.input_messages"));
    else if (attrs.has("input.value")) messages = messagesFromValue(attrs, "input.value");
    const flatOutput = attrs.prefixed("llm.output_messages");
    let output: Message | null = null;
    if (Object.keys(flatOutput).length > 0) {
      const out = fromOpenInferenceMessages(flatOutput, problemAt(attrs, "llm.output_messages"));
      output = out.find((m) => m.role === "assistant") ?? out[0] ?? null;
    } else if (attrs.has("output.value")) output = outputFromValue(attrs, "output.value");
    const params = attrs.has("llm.invocation_parameters") ? attrs.json("llm.invocation_parameters") : undefined;
    const temperature = isObject(params) && typeof params.temperature === "number" ? params.temperature : undefined;
    return modelReading(span, convention, agentName, {
      model,
      messages,
      temperature,
      toolsRaw: readOpenInferenceTools(attrs),
      output,
      usage: usageOf(attrs.count("llm.token_count.prompt"), attrs.count("llm.token_count.completion")),
    });
  }
  if (kind === "TOOL") {
    const name = attrs.string("tool.name") ?? attrs.string("tool_call.function.name") ?? (span.name || undefined);
    return toolReading(attrs, convention, agentName, name, {
      nameKey: "tool.name",
      what: "a TOOL span",
      step: (name) => {
        // input.value holds the call's arguments; tool.parameters is the tool's parameter schema.
        const argsKey = attrs.has("input.value")
          ? "input.value"
          : attrs.has("tool_call.function.arguments")
            ? "tool_call.function.arguments"
            : "tool.parameters";
        return toolStep(attrs, name, attrs.string("tool_call.id") ?? null, argsKey, "output.value");
      },
    });
  }
  if (kind === "AGENT" || kind === "CHAIN") {
    const output = attrs.has("output.value") ? attrs.jsonOrText("output.value") : undefined;
    return {
      role: "agent",
      convention,
      span,
      agentName: agentName ?? (kind === "AGENT" && span.name ? span.name : null),
      final: output === undefined ? null : { output },
      metadata:
        attrs.has("metadata") && isObject(attrs.json("metadata"))
          ? (attrs.json("metadata") as Record<string, unknown>)
          : {},
    };
  }
  return { role: "other", convention, span, agentName };
}

function messagesFromValue(attrs: SpanAttributes, key: string): Message[] {
  const value = attrs.jsonOrText(key);
  if (typeof value === "string") return [{ role: "user", content: value }];
  if (isObject(value) && Array.isArray(value.messages)) return fromChatMessages(value.messages, problemAt(attrs, key));
  if (Array.isArray(value)) return fromChatMessages(value, problemAt(attrs, key));
  return [{ role: "user", content: value }];
}

function outputFromValue(attrs: SpanAttributes, key: string): Message | null {
  const value = attrs.jsonOrText(key);
  if (isObject(value) && Array.isArray(value.choices)) {
    const first: unknown = value.choices[0];
    if (isObject(first) && isObject(first.message)) {
      return fromChatMessages([first.message], problemAt(attrs, key))[0] ?? null;
    }
  }
  return assistant(value ?? null, []);
}

function readOpenInferenceTools(attrs: SpanAttributes): unknown[] {
  const flat = attrs.prefixed("llm.tools");
  const out: unknown[] = [];
  const indices = new Set(
    Object.keys(flat)
      .map((k) => k.split(".")[0]!)
      .filter((k) => /^\d+$/.test(k)),
  );
  for (const index of [...indices].sort((a, b) => Number(a) - Number(b))) {
    const key = `llm.tools.${index}.tool.json_schema`;
    if (!attrs.has(key)) continue;
    const schema = attrs.json(key);
    if (schema !== undefined) out.push(schema);
  }
  return out;
}

// --- OpenTelemetry GenAI semantic conventions --------------------------------

const CHAT_OPERATIONS = new Set(["chat", "text_completion", "generate_content"]);

function readGenAi(attrs: SpanAttributes): SpanReading {
  const span = attrs.span;
  const convention = "genai" as const;
  const declared = attrs.string("gen_ai.operation.name");
  const operation = declared ?? span.name.split(" ")[0] ?? "";
  const agentName = attrs.string("gen_ai.agent.name") ?? null;
  if (
    CHAT_OPERATIONS.has(operation) &&
    (declared !== undefined || attrs.has("gen_ai.request.model") || attrs.has("gen_ai.input.messages"))
  ) {
    const model = attrs.string("gen_ai.request.model") ?? attrs.string("gen_ai.response.model");
    const messages: Message[] = [];
    if (attrs.has("gen_ai.system_instructions")) {
      const system = attrs.json("gen_ai.system_instructions");
      if (system !== undefined)
        messages.push(...fromGenAiSystemInstructions(system, problemAt(attrs, "gen_ai.system_instructions")));
    }
    if (attrs.has("gen_ai.input.messages")) {
      const input = attrs.json("gen_ai.input.messages");
      if (input !== undefined) messages.push(...fromGenAiMessages(input, problemAt(attrs, "gen_ai.input.messages")));
    }
    let output: Message | null = null;
    if (attrs.has("gen_ai.output.messages")) {
      const out = attrs.json("gen_ai.output.messages");
      const list = out === undefined ? [] : fromGenAiMessages(out, problemAt(attrs, "gen_ai.output.messages"));
      output = list.find((m) => m.role === "assistant") ?? list[0] ?? null;
    }
    const toolsJson = attrs.has("gen_ai.tool.definitions") ? attrs.json("gen_ai.tool.definitions") : undefined;
    const toolsRaw = Array.isArray(toolsJson) ? toolsJson : undefined;
    if (toolsJson !== undefined && !Array.isArray(toolsJson))
      attrs.warn("gen_ai.tool.definitions", "expected an array of tool definitions");
    return modelReading(span, convention, agentName, {
      model,
      messages,
      temperature: attrs.number("gen_ai.request.temperature"),
      toolsRaw,
      output,
      usage: usageOf(attrs.count("gen_ai.usage.input_tokens"), attrs.count("gen_ai.usage.output_tokens")),
    });
  }
  if (operation === "execute_tool") {
    const fromName = span.name.startsWith("execute_tool ") ? span.name.slice("execute_tool ".length).trim() : "";
    return toolReading(attrs, convention, agentName, attrs.string("gen_ai.tool.name") ?? (fromName || undefined), {
      nameKey: "gen_ai.tool.name",
      what: "an execute_tool span",
      step: (name) =>
        toolStep(
          attrs,
          name,
          attrs.string("gen_ai.tool.call.id") ?? null,
          "gen_ai.tool.call.arguments",
          "gen_ai.tool.call.result",
        ),
    });
  }
  if (operation === "invoke_agent" || operation === "create_agent") {
    let final: AgentReading["final"] = null;
    if (attrs.has("gen_ai.output.messages")) {
      const out = attrs.json("gen_ai.output.messages");
      const list = out === undefined ? [] : fromGenAiMessages(out, problemAt(attrs, "gen_ai.output.messages"));
      const last = [...list].reverse().find((m) => m.role === "assistant");
      if (last && last.content !== null && last.content !== "") final = { output: last.content };
    }
    // `invoke_agent {name}`; AI SDK 7 names it after the model by default, which is no agent name.
    let fromName = span.name.startsWith("invoke_agent ") ? span.name.slice("invoke_agent ".length).trim() : "";
    if (fromName === attrs.string("gen_ai.request.model")) fromName = "";
    return { role: "agent", convention, span, agentName: agentName ?? (fromName || null), final, metadata: {} };
  }
  return { role: "other", convention: declared !== undefined ? convention : null, span, agentName };
}
