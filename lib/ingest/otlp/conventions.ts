import { parseJsonBounded } from "@/lib/hostile/json";
import type { Message } from "@/lib/replay";
import type { ImportIssue } from "../types";
import { isObject, SpanAttributes } from "./attributes";
import type { OtlpSpan } from "./decode";
import { readGenAi } from "./genai";
import {
  fromAiSdkMessages,
  fromAiSdkPrompt,
  fromAiSdkToolCalls,
  fromChatMessages,
  fromOpenInferenceMessages,
} from "./messages";
import { assistant, modelReading, problemAt, toolReading, toolStep, usageOf, type SpanReading } from "./reading";

export type { AgentReading, Convention, SpanReading, ToolDefinition } from "./reading";
export { outcome, timing } from "./reading";

// ---------------------------------------------------------------------------
// What one span means, in each convention Branchpoint reads:
//   - Vercel AI SDK `ai.*` spans (ai.generateText[.doGenerate],
//     ai.streamText[.doStream], ai.toolCall; AI SDK ≤6, and 7's LegacyOpenTelemetry),
//   - OpenInference (`openinference.span.kind` LLM / TOOL / AGENT / CHAIN),
//   - the OpenTelemetry GenAI semantic conventions (./genai.ts: model, agent,
//     tool, retrieval and memory spans, the MCP conventions, and the older
//     per-message events; AI SDK 7's OpenTelemetry and others).
// The first that claims a span reads it: ai.* spans also carry some gen_ai.*
// attributes, so they are checked first.
// ---------------------------------------------------------------------------
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
      // The AI SDK counts cache reads inside its input tokens.
      attrs.count("ai.usage.cachedInputTokens"),
      (message) => attrs.warn("ai.usage.cachedInputTokens", message),
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
      // `llm.provider` names who hosts the model (OpenInference sets it only for hosts it knows), `llm.system` the API.
      provider: attrs.string("llm.provider") ?? attrs.string("llm.system"),
      // OpenInference counts cache reads and writes inside the prompt's tokens.
      usage: usageOf(
        attrs.count("llm.token_count.prompt"),
        attrs.count("llm.token_count.completion"),
        attrs.count("llm.token_count.prompt_details.cache_read"),
        (message) => attrs.warn("llm.token_count.prompt_details.cache_read", message),
        {
          count: attrs.count("llm.token_count.prompt_details.cache_write"),
          note: (message) => attrs.warn("llm.token_count.prompt_details.cache_write", message),
        },
      ),
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
