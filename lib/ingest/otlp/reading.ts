import type { EventError, EventStatus, Message, ModelCallInput, ToolCallRequest, Usage } from "@/lib/replay";
import { isObject, parseArgs, type SpanAttributes } from "./attributes";
import type { ModelStep, StepTiming, ToolStep } from "./assemble";
import type { OtlpSpan } from "./decode";
import type { Problem } from "./messages";
import { withCachedTokens, withCacheWrites } from "../cached-tokens";

// ---------------------------------------------------------------------------
// What every convention's reading of a span comes to (a model call, a tool
// call, an agent run, or nothing of ours), and the helpers each convention's
// reader shares: where a convention keeps a field differs, what it means does
// not.
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

export function problemAt(attrs: SpanAttributes, key: string): Problem {
  return (message) => attrs.warn(key, message);
}

/**
 * A span's usage; `cached` is the part of `input` read from a prompt cache and `written` the part written
 * to one (each left out, with a note, when the input cannot hold it).
 */
export function usageOf(
  input: number | undefined,
  output: number | undefined,
  cached?: number,
  note?: (message: string) => void,
  written?: { count: number | undefined; note?: (message: string) => void },
): Usage | null {
  if (input === undefined && output === undefined) return null;
  return withCacheWrites(
    withCachedTokens(
      {
        ...(input !== undefined ? { inputTokens: input } : {}),
        ...(output !== undefined ? { outputTokens: output } : {}),
      },
      cached,
      note,
    ),
    written?.count,
    written?.note,
  );
}

function modelInput(
  messages: Message[],
  model: string | undefined,
  temperature: number | undefined,
  tools: ToolDefinition[],
  toolsRaw: unknown[] | undefined,
  provider: string | undefined,
): ModelCallInput {
  return {
    messages,
    ...(model !== undefined ? { model } : {}),
    ...(temperature !== undefined ? { temperature } : {}),
    ...(toolsRaw !== undefined && toolsRaw.length > 0 ? { tools: toolsRaw } : tools.length > 0 ? { tools } : {}),
    ...(provider !== undefined && provider !== "" ? { provider } : {}),
  };
}

/** A model call, read the same way whichever convention the span follows; only where each keeps its fields differs. */
export function modelReading(
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
    /** The provider a GenAI span names (`gen_ai.provider.name`, or the older `gen_ai.system`). */
    provider?: string;
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
      input: modelInput(call.messages, call.model, call.temperature, tools, call.toolsRaw, call.provider),
      output: call.output,
      usage: call.usage,
      ...outcome(span),
    },
  };
}

/** Tool definitions in the shapes SDKs write: `{ name, parameters | inputSchema }` or `{ function: { name, parameters } }`. */
export function toolDefinitions(list: unknown[]): ToolDefinition[] {
  const out: ToolDefinition[] = [];
  for (const raw of list) {
    const def = isObject(raw) && isObject(raw.function) ? raw.function : raw;
    if (!isObject(def) || typeof def.name !== "string" || def.name === "") continue;
    const schema = def.parameters ?? def.inputSchema ?? def.input_schema;
    out.push({ name: def.name, ...(schema !== undefined ? { schema } : {}) });
  }
  return out;
}

export function assistant(content: unknown, calls: ToolCallRequest[]): Message {
  return { role: "assistant", content, ...(calls.length > 0 ? { toolCalls: calls } : {}) };
}

/** A tool call, read the same way whichever convention the span follows: without a tool name it is left out, with a warning. */
export function toolReading(
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

export function toolStep(
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
