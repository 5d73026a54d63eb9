/**
 * LangChain's message shapes as LangSmith records them on a run, read as our one Message shape:
 * - the serialized constructor `{ lc: 1, type: "constructor", id: [..., "HumanMessage"], kwargs: { content, … } }`,
 * - `message_to_dict`'s `{ type: "human", data: { content, … } }`,
 * - the plain `{ type: "ai", content, tool_calls }` of newer SDKs and LangGraph state,
 * - and OpenAI chat messages `{ role, content, tool_calls }` (the OpenAI wrapper, `traceable` runs).
 * LangChain's tool calls (`tool_calls: [{ id, name, args }]`) win over `additional_kwargs.tool_calls` (OpenAI's).
 */
import type { Message } from "@/lib/replay";
import { isObject } from "./otlp/attributes";
import { fromChatMessage, type Problem } from "./otlp/messages";

const ROLES: Record<string, Message["role"]> = {
  human: "user",
  HumanMessage: "user",
  HumanMessageChunk: "user",
  ai: "assistant",
  AIMessage: "assistant",
  AIMessageChunk: "assistant",
  system: "system",
  SystemMessage: "system",
  SystemMessageChunk: "system",
  tool: "tool",
  ToolMessage: "tool",
  ToolMessageChunk: "tool",
  function: "tool",
  FunctionMessage: "tool",
};

/** The kind and fields of a LangChain message, or null when it is not one. */
function langChainFields(item: Record<string, unknown>): { kind: string; fields: Record<string, unknown> } | null {
  if (item.lc === 1 && item.type === "constructor" && Array.isArray(item.id) && isObject(item.kwargs)) {
    const kind: unknown = item.id[item.id.length - 1];
    return typeof kind === "string" ? { kind, fields: item.kwargs } : null;
  }
  if (typeof item.type === "string" && isObject(item.data)) return { kind: item.type, fields: item.data };
  if (typeof item.type === "string" && item.role === undefined) return { kind: item.type, fields: item };
  return null;
}

/** A LangChain message as an OpenAI chat message (what fromChatMessage reads), or the item as it came. */
function asChatMessage(item: unknown): unknown {
  if (!isObject(item)) return item;
  const lc = langChainFields(item);
  if (!lc) return item;
  const role = ROLES[lc.kind] ?? (lc.kind === "chat" && typeof lc.fields.role === "string" ? lc.fields.role : null);
  if (role === null) return { role: lc.kind };
  const f = lc.fields;
  const extra = isObject(f.additional_kwargs) ? f.additional_kwargs : {};
  const calls = Array.isArray(f.tool_calls) && f.tool_calls.length > 0 ? f.tool_calls : null;
  const toolCalls = calls
    ? calls.map((c: unknown) =>
        isObject(c) ? { id: c.id, type: "function", function: { name: c.name, arguments: c.args ?? {} } } : c,
      )
    : Array.isArray(extra.tool_calls)
      ? extra.tool_calls
      : undefined;
  return {
    role,
    content: f.content ?? null,
    ...(toolCalls ? { tool_calls: toolCalls } : {}),
    ...(typeof f.tool_call_id === "string" ? { tool_call_id: f.tool_call_id } : {}),
    ...(typeof f.name === "string" ? { name: f.name } : {}),
  };
}

/** One message of a run, in any of the shapes above. */
export function fromRunMessage(item: unknown, index: number, problem: Problem): Message[] {
  return fromChatMessage(asChatMessage(item), index, problem);
}

/**
 * A run's message list: flat, or LangChain's batch of lists (`[[…]]`, a chat model's `inputs.messages`), whose
 * first list is the call's (more than one batch is noted).
 */
export function fromRunMessages(value: unknown, problem: Problem): Message[] {
  if (!Array.isArray(value)) {
    problem("expected an array of messages");
    return [];
  }
  let list: unknown[] = value;
  if (value.length > 0 && Array.isArray(value[0])) {
    if (value.length > 1) problem(`holds ${value.length} batches of messages; the first is imported`);
    list = value[0] as unknown[];
  }
  return list.flatMap((item, index) => fromRunMessage(item, index, problem));
}

/** The usage LangChain puts on an AI message (`usage_metadata: { input_tokens, output_tokens }`), if any. */
export function messageUsage(item: unknown): Record<string, unknown> | null {
  if (!isObject(item)) return null;
  const lc = langChainFields(item);
  const fields = lc ? lc.fields : item;
  return isObject(fields.usage_metadata) ? fields.usage_metadata : null;
}
