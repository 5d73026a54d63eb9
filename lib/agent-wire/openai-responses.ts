import { fromChatMessages } from "@/lib/ingest/otlp/messages";
import type { Path } from "@/lib/ingest/otlp/path";
import {
  renderOpenAiError,
  renderResponsesJson,
  renderResponsesStream,
  type ResponsesObject,
} from "./openai-responses-render";
import type { WireFormat, WireRequest } from "./types";
import {
  bodyObject,
  chatTool,
  invalid,
  isObj,
  own,
  readArray,
  readBoolean,
  readNumber,
  readObject,
  readString,
  type Obj,
  wireRequest,
} from "./wire-read";

export { renderOpenAiError, renderResponsesJson, renderResponsesStream, type ResponsesObject };
export { renderModelsList } from "./openai-responses-render";

// ---------------------------------------------------------------------------
// The OpenAI Responses API (`POST /responses`), what the OpenAI Agents SDK
// calls by default. A request is read into the engine's input exactly as the
// Agents SDK importer stores a recorded model call of the same agent:
//
// - the Agents SDK's exporter strips a Responses span's input (its `_input`
//   field is never sent), so a run recorded on the Responses API stores
//   `{ messages: [], responseId }`: nothing to compare with. The same agent
//   recorded on Chat Completions (`setOpenAIAPI("chat_completions")`) stores
//   the messages it sent in its generation spans, read by `fromChatMessages`.
// - so a Responses request is turned into those Chat Completions messages the
//   way the SDK's own converter does (`itemsToMessages`: the instructions as a
//   leading system message, function calls merged into the assistant message
//   of their turn, each function_call_output a tool message) and then read by
//   the importer's own `fromChatMessages`: one normalizer, not two.
// - the stored input is `{ messages, model, temperature? }`; `tools` (in the
//   Chat Completions shape the model executor forwards) are added when the
//   request has any: the importer stores none for Agents SDK generation spans.
// ---------------------------------------------------------------------------

type ChatMessage = Obj & { role: string; content: unknown; tool_calls?: Obj[] };

/** The parts of a message's content as the SDK's Chat Completions converter writes them. */
function chatParts(content: unknown, at: Path): unknown {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) invalid(at, "must be a string or an array of content parts");
  return content.map((part: unknown, i) => {
    const p = readObject(part, [...at, i], "a content part object");
    const type = readString(p, "type", [...at, i], true);
    if (type === "input_text" || type === "output_text" || type === "text")
      return { type: "text", text: readString(p, "text", [...at, i], true) };
    if (type === "refusal") return { type: "refusal", refusal: readString(p, "refusal", [...at, i], true) };
    if (type === "input_image") {
      const url = readString(p, "image_url", [...at, i]);
      const detail = readString(p, "detail", [...at, i]);
      if (url !== undefined)
        return { type: "image_url", image_url: { url, ...(detail !== undefined ? { detail } : {}) } };
    }
    return p;
  });
}

/** A function_call_output's output as Chat Completions tool content: text, or the parts when they are not all text. */
function toolOutput(output: unknown, at: Path): unknown {
  if (typeof output === "string") return output;
  if (!Array.isArray(output)) invalid(at, "must be a string or an array of content parts");
  const texts = output.map((part: unknown, i) => {
    const p = readObject(part, [...at, i], "a content part object");
    return own(p, "type") === "input_text" || own(p, "type") === "output_text"
      ? readString(p, "text", [...at, i], true)
      : null;
  });
  return texts.every((t): t is string => t !== null) && texts.length > 0 ? texts.join("") : output;
}

const MESSAGE_ROLES = new Set(["user", "assistant", "system", "developer"]);

/** Input items → Chat Completions messages, grouped as the Agents SDK's `itemsToMessages` groups them. */
function itemsToChatMessages(input: unknown): ChatMessage[] {
  if (typeof input === "string") return [{ role: "user", content: input }];
  if (!Array.isArray(input)) invalid(["input"], "must be a string or an array of input items");
  const out: ChatMessage[] = [];
  // The assistant turn being built: its text and the function calls that follow it.
  let current: { message: ChatMessage; calls: Obj[]; reasoningOnly: boolean } | null = null;
  const flush = () => {
    if (!current) return;
    out.push(current.calls.length > 0 ? { ...current.message, tool_calls: current.calls } : current.message);
    current = null;
  };
  const ensure = () => (current ??= { message: { role: "assistant", content: null }, calls: [], reasoningOnly: false });
  input.forEach((raw: unknown, i) => {
    const at: Path = ["input", i];
    const item = readObject(raw, at, "an input item object");
    const type = readString(item, "type", at) ?? "message";
    if (type === "message") {
      const role = readString(item, "role", at, true);
      if (!MESSAGE_ROLES.has(role)) invalid([...at, "role"], "must be user, assistant, system or developer");
      const content = chatParts(own(item, "content"), [...at, "content"]);
      if (role !== "assistant") {
        flush();
        out.push({ role, content });
      } else if (current && current.message.content === null && current.calls.length > 0) {
        // A streamed turn may give its function calls before its text: one assistant message.
        current.message = { ...current.message, content };
      } else {
        if (!current?.reasoningOnly) flush();
        current = { message: { role: "assistant", content }, calls: [], reasoningOnly: false };
      }
    } else if (type === "reasoning") {
      // A reasoning item opens the next assistant turn (the Chat Completions message drops its text).
      if (current === null || current.message.content !== null) flush();
      const turn = ensure();
      turn.reasoningOnly = turn.calls.length === 0 && turn.message.content === null;
    } else if (type === "function_call") {
      const turn = ensure();
      turn.reasoningOnly = false;
      turn.calls.push({
        id: readString(item, "call_id", at, true),
        type: "function",
        function: { name: readString(item, "name", at, true), arguments: readString(item, "arguments", at) ?? "{}" },
      });
    } else if (type === "function_call_output") {
      flush();
      const callId = readString(item, "call_id", at, true);
      out.push({ role: "tool", tool_call_id: callId, content: toolOutput(own(item, "output"), [...at, "output"]) });
    } else {
      invalid(
        [...at, "type"],
        `is "${type}", which Branchpoint does not answer: only message, function_call, function_call_output and reasoning items`,
      );
    }
  });
  flush();
  return out;
}

/** Function tools in the Chat Completions shape; other tool types as sent. */
function readTools(body: Obj): unknown[] {
  const list = readArray(body, "tools", []) ?? [];
  return list.map((raw: unknown, i) => {
    const at: Path = ["tools", i];
    const tool = readObject(raw, at, "a tool object");
    if (readString(tool, "type", at, true) !== "function") return tool;
    const parameters = own(tool, "parameters");
    if (parameters !== undefined && parameters !== null && !isObj(parameters))
      invalid([...at, "parameters"], "must be a JSON Schema object");
    readBoolean(tool, "strict", at); // checked, and not part of what is compared (the importers do not keep it)
    return chatTool({
      name: readString(tool, "name", at, true),
      description: readString(tool, "description", at),
      ...(parameters !== undefined && parameters !== null ? { parameters } : {}),
    });
  });
}

/** Reads a `POST /responses` body. Throws AppError("invalid_input") naming the path of what was wrong. */
export function parseResponsesRequest(body: unknown): WireRequest {
  const b = bodyObject(body);
  const model = readString(b, "model", [], true);
  const stream = readBoolean(b, "stream", []) ?? false;
  const temperature = readNumber(b, "temperature", []);
  for (const key of ["previous_response_id", "conversation"]) {
    const v = own(b, key);
    if (v !== undefined && v !== null)
      invalid(
        [key],
        "is not supported: Branchpoint keeps no conversation state between calls, so send the whole conversation in `input`",
      );
  }
  const instructions = readString(b, "instructions", []);
  if (own(b, "input") === undefined || own(b, "input") === null) invalid(["input"], "is required");
  const chat = itemsToChatMessages(own(b, "input"));
  if (instructions) chat.unshift({ role: "system", content: instructions });
  const problems: string[] = [];
  const messages = fromChatMessages(chat, (problem) => problems.push(problem));
  if (problems.length > 0) invalid(["input"], problems[0]!);
  return wireRequest(messages, { model, temperature, tools: readTools(b), stream });
}

/** The OpenAI Responses wire format. */
export const openAiResponsesWire: WireFormat = {
  parseRequest: parseResponsesRequest,
  renderJson: renderResponsesJson,
  renderStream: renderResponsesStream,
  renderError: renderOpenAiError,
};
