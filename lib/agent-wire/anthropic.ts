import { fromGenAiMessages, fromGenAiSystemInstructions } from "@/lib/ingest/otlp/messages";
import type { Path } from "@/lib/ingest/otlp/path";
import type { WireAnswer, WireFormat, WireRequest } from "./types";
import {
  answerText,
  argumentsText,
  bodyObject,
  chatTool,
  invalid,
  isObj,
  jsonDeltas,
  own,
  readArray,
  readBoolean,
  readNumber,
  readObject,
  readString,
  sse,
  textDeltas,
  type Obj,
  wireRequest,
} from "./wire-read";

// ---------------------------------------------------------------------------
// Anthropic Messages (`POST /v1/messages`). The `@anthropic-ai/sdk` client has
// no exporter of its own: its runs reach Branchpoint as OTLP spans that follow
// the OpenTelemetry GenAI conventions (`gen_ai.system_instructions`,
// `gen_ai.input.messages` with text / tool_call / tool_call_response parts,
// `gen_ai.tool.definitions`), which the OTLP importer reads with
// `fromGenAiSystemInstructions` and `fromGenAiMessages`. A request is written
// in those conventions' parts and read by the same two functions:
//
// - `system` (a string or text blocks) → the leading system message;
// - a text block → a text part; tool_use → a tool_call part (its `input`
//   object is the arguments); tool_result → a tool_call_response part, in a
//   `tool` message of its own ahead of the user's other blocks (the
//   conventions' role for tool results); thinking → a reasoning part; any
//   other block (image, document) is kept as sent;
// - stored: `{ messages, model, temperature?, tools? }`, function tools in the
//   Chat Completions shape the model executor forwards.
// ---------------------------------------------------------------------------

type GenAiMessage = { role: string; parts: unknown[] };

/** A tool_result's content as the response the conventions record: its text, or its blocks when not all text. */
function toolResponse(content: unknown, at: Path): unknown {
  if (content === undefined || content === null || typeof content === "string") return content ?? null;
  if (!Array.isArray(content)) invalid(at, "must be a string or an array of content blocks");
  const texts = content.map((block: unknown, i) => {
    const b = readObject(block, [...at, i], "a content block object");
    return own(b, "type") === "text" ? readString(b, "text", [...at, i], true) : null;
  });
  return texts.every((t): t is string => t !== null) ? texts.join("") : content;
}

/** One Anthropic message as GenAI-convention messages (tool results first, in a tool message). */
function genAiMessages(raw: unknown, at: Path): GenAiMessage[] {
  const m = readObject(raw, at, "a message object");
  const role = readString(m, "role", at, true);
  if (role !== "user" && role !== "assistant") invalid([...at, "role"], "must be user or assistant");
  const content = own(m, "content");
  if (typeof content === "string") return [{ role, parts: [{ type: "text", content }] }];
  if (!Array.isArray(content)) invalid([...at, "content"], "must be a string or an array of content blocks");
  const results: unknown[] = [];
  const parts: unknown[] = [];
  content.forEach((block: unknown, i) => {
    const bAt: Path = [...at, "content", i];
    const b = readObject(block, bAt, "a content block object");
    const type = readString(b, "type", bAt, true);
    if (type === "text") parts.push({ type: "text", content: readString(b, "text", bAt, true) });
    else if (type === "tool_use") {
      if (role !== "assistant") invalid([...bAt, "type"], "is tool_use, which only an assistant message may hold");
      const input = own(b, "input");
      parts.push({
        type: "tool_call",
        id: readString(b, "id", bAt, true),
        name: readString(b, "name", bAt, true),
        arguments: input === undefined ? {} : input,
      });
    } else if (type === "tool_result") {
      if (role !== "user") invalid([...bAt, "type"], "is tool_result, which only a user message may hold");
      results.push({
        type: "tool_call_response",
        id: readString(b, "tool_use_id", bAt, true),
        response: toolResponse(own(b, "content"), [...bAt, "content"]),
      });
    } else if (type === "thinking") parts.push({ type: "reasoning", content: readString(b, "thinking", bAt, true) });
    else parts.push(b);
  });
  const out: GenAiMessage[] = [];
  if (results.length > 0) out.push({ role: "tool", parts: results });
  if (parts.length > 0 || results.length === 0) out.push({ role, parts });
  return out;
}

/** The system prompt as GenAI system instruction parts (a string stays a string). */
function systemParts(system: unknown): unknown {
  if (typeof system === "string") return system;
  if (!Array.isArray(system)) invalid(["system"], "must be a string or an array of text blocks");
  return system.map((block: unknown, i) => {
    const b = readObject(block, ["system", i], "a text block object");
    if (readString(b, "type", ["system", i], true) !== "text") invalid(["system", i, "type"], 'must be "text"');
    return { type: "text", content: readString(b, "text", ["system", i], true) };
  });
}

function readTools(body: Obj): unknown[] {
  const list = readArray(body, "tools", []) ?? [];
  return list.map((raw: unknown, i) => {
    const at: Path = ["tools", i];
    const tool = readObject(raw, at, "a tool object");
    const type = readString(tool, "type", at);
    if (type !== undefined && type !== "custom") return tool; // a server tool (web search…), as sent
    const schema = own(tool, "input_schema");
    if (!isObj(schema)) invalid([...at, "input_schema"], "must be a JSON Schema object");
    return chatTool({
      name: readString(tool, "name", at, true),
      description: readString(tool, "description", at),
      parameters: schema,
    });
  });
}

/** Reads a `POST /v1/messages` body. Throws AppError("invalid_input") naming the path of what was wrong. */
export function parseAnthropicRequest(body: unknown): WireRequest {
  const b = bodyObject(body);
  const model = readString(b, "model", [], true);
  const stream = readBoolean(b, "stream", []) ?? false;
  const temperature = readNumber(b, "temperature", []);
  const maxTokens = readNumber(b, "max_tokens", []);
  if (maxTokens !== undefined && (!Number.isInteger(maxTokens) || maxTokens < 1))
    invalid(["max_tokens"], "must be a whole number of at least 1");
  const list = readArray(b, "messages", []);
  if (!list) invalid(["messages"], "is required");
  const problems: string[] = [];
  const problem = (p: string) => problems.push(p);
  const system = own(b, "system");
  const messages = [
    ...(system === undefined || system === null ? [] : fromGenAiSystemInstructions(systemParts(system), problem)),
    ...fromGenAiMessages(
      list.flatMap((m, i) => genAiMessages(m, ["messages", i])),
      problem,
    ),
  ];
  if (problems.length > 0) invalid(["messages"], problems[0]!);
  return wireRequest(messages, { model, temperature, tools: readTools(b), stream });
}

// ---------------------------------------------------------------------------
// Answers.

type Block =
  { type: "text"; text: string } | { type: "tool_use"; id: string; name: string; input: unknown; partialJson: string };

function blocksOf(answer: WireAnswer): Block[] {
  const calls = answer.message.toolCalls ?? [];
  const text = answerText(answer.message);
  const blocks: Block[] = [];
  if ((text !== null && text !== "") || calls.length === 0) blocks.push({ type: "text", text: text ?? "" });
  calls.forEach((call, i) =>
    blocks.push({
      type: "tool_use",
      // A recording without a call id still needs one the client can answer.
      id: call.id !== "" ? call.id : `toolu_${answer.id}_${i}`,
      name: call.name,
      input: call.args ?? {},
      partialJson: argumentsText(call),
    }),
  );
  return blocks;
}

const stopReason = (answer: WireAnswer) =>
  (answer.message.toolCalls ?? []).length > 0 ? ("tool_use" as const) : ("end_turn" as const);

const usageOf = (answer: WireAnswer) => ({
  input_tokens: answer.usage?.inputTokens ?? 0,
  output_tokens: answer.usage?.outputTokens ?? 0,
});

const wireBlock = (b: Block) =>
  b.type === "text" ? { type: "text", text: b.text } : { type: "tool_use", id: b.id, name: b.name, input: b.input };

/** The non-streaming body of `POST /v1/messages` (token counts 0 when the answer has none). */
export function renderAnthropicJson(answer: WireAnswer) {
  return {
    id: answer.id,
    type: "message" as const,
    role: "assistant" as const,
    model: answer.model,
    content: blocksOf(answer).map(wireBlock),
    stop_reason: stopReason(answer),
    stop_sequence: null,
    usage: usageOf(answer),
  };
}

/** The streaming body of `POST /v1/messages` as complete SSE events, message_start to message_stop. */
export function renderAnthropicStream(answer: WireAnswer): string[] {
  const usage = usageOf(answer);
  const events = [
    sse("message_start", {
      type: "message_start",
      message: {
        ...renderAnthropicJson(answer),
        content: [],
        stop_reason: null,
        usage: { input_tokens: usage.input_tokens, output_tokens: 0 },
      },
    }),
  ];
  blocksOf(answer).forEach((block, index) => {
    const start = block.type === "text" ? { type: "text", text: "" } : { ...wireBlock(block), input: {} };
    events.push(sse("content_block_start", { type: "content_block_start", index, content_block: start }));
    const deltas =
      block.type === "text"
        ? textDeltas(block.text).map((text) => ({ type: "text_delta", text }))
        : jsonDeltas(block.partialJson).map((partial_json) => ({ type: "input_json_delta", partial_json }));
    for (const delta of deltas) events.push(sse("content_block_delta", { type: "content_block_delta", index, delta }));
    events.push(sse("content_block_stop", { type: "content_block_stop", index }));
  });
  events.push(
    sse("message_delta", {
      type: "message_delta",
      delta: { stop_reason: stopReason(answer), stop_sequence: null },
      usage: { output_tokens: usage.output_tokens },
    }),
    sse("message_stop", { type: "message_stop" }),
  );
  return events;
}

/** Anthropic's error type for a status (what its client raises the error as). */
function errorType(status: number): string {
  if (status === 401) return "authentication_error";
  if (status === 403) return "permission_error";
  if (status === 404) return "not_found_error";
  if (status === 413) return "request_too_large";
  if (status === 429) return "rate_limit_error";
  if (status >= 500) return "api_error";
  return "invalid_request_error";
}

/** An error body in Anthropic's shape, `{ type: "error", error: { type, message } }`. */
export function renderAnthropicError(status: number, _code: string, message: string) {
  return { type: "error" as const, error: { type: errorType(status), message } };
}

/** The Anthropic Messages wire format. */
export const anthropicWire: WireFormat = {
  parseRequest: parseAnthropicRequest,
  renderJson: renderAnthropicJson,
  renderStream: renderAnthropicStream,
  renderError: renderAnthropicError,
};
