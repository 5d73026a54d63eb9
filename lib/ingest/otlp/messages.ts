import type { Message, ToolCallRequest } from "@/lib/replay";
import { isUnsafeKey, setOwn } from "@/lib/hostile/objects";
import { isObject, parseArgs } from "./attributes";

// Every source's message shape, normalized to our one Message (the engine
// rebuilds a live model step's conversation from these):
// `{ role, content, toolCalls?: [{ id, name, args }], toolCallId?, name? }`.
// A message that cannot be read is reported through `problem` and left out.

export type Problem = (message: string) => void;

type Role = Message["role"];

function role(value: unknown): Role | null {
  if (value === "system" || value === "user" || value === "assistant" || value === "tool") return value;
  if (value === "developer") return "system";
  if (value === "model") return "assistant";
  if (value === "function") return "tool";
  return null;
}

function toolCall(id: unknown, name: unknown, rawArgs: unknown): ToolCallRequest | null {
  if (typeof name !== "string" || name === "") return null;
  return { id: typeof id === "string" ? id : "", name, ...parseArgs(rawArgs) };
}

/** Text parts joined when a message is text only; the parts themselves otherwise. */
function contentOf(parts: unknown[], textOf: (part: Record<string, unknown>) => string | null): unknown {
  if (parts.length === 0) return null;
  const texts = parts.map((part) => (isObject(part) ? textOf(part) : null));
  if (texts.every((text): text is string => text !== null)) return texts.join("");
  return parts;
}

function withCalls(message: Message, calls: ToolCallRequest[]): Message {
  return calls.length > 0 ? { ...message, toolCalls: calls } : message;
}

/** A message as every source writes it: an object with a role we know, or a problem naming it and nothing. */
function readable(raw: unknown, index: number, problem: Problem): { raw: Record<string, unknown>; r: Role } | null {
  if (!isObject(raw)) {
    problem(`message ${index} is not an object`);
    return null;
  }
  const r = role(raw.role);
  if (r === null) {
    problem(`message ${index} has an unknown role ${JSON.stringify(raw.role)}`);
    return null;
  }
  return { raw, r };
}

/** Reads each readable message of a list in turn; a value that is not a list is a problem and no messages. */
function eachMessage(
  value: unknown,
  problem: Problem,
  read: (raw: Record<string, unknown>, r: Role, index: number) => void,
): void {
  if (!Array.isArray(value)) return problem("expected an array of messages");
  value.forEach((item, index) => {
    const message = readable(item, index, problem);
    if (message) read(message.raw, message.r, index);
  });
}

// ---------------------------------------------------------------------------
// OpenTelemetry GenAI semantic conventions: gen_ai.input.messages,
// gen_ai.output.messages, gen_ai.system_instructions (parts-based JSON).

export function fromGenAiMessages(value: unknown, problem: Problem): Message[] {
  const out: Message[] = [];
  eachMessage(value, problem, (raw, r, index) => {
    const parts = Array.isArray(raw.parts)
      ? raw.parts
      : typeof raw.content === "string"
        ? [{ type: "text", content: raw.content }]
        : [];
    const calls: ToolCallRequest[] = [];
    const rest: unknown[] = [];
    for (const part of parts) {
      if (isObject(part) && part.type === "tool_call") {
        const call = toolCall(part.id, part.name, part.arguments);
        if (call) calls.push(call);
        else problem(`message ${index} has a tool_call part without a name`);
      } else if (isObject(part) && part.type === "tool_call_response") {
        out.push({
          role: "tool",
          content: part.response ?? null,
          toolCallId: typeof part.id === "string" ? part.id : "",
        });
      } else rest.push(part);
    }
    if (r === "tool" && rest.length === 0 && calls.length === 0) return; // answered above, one message per response
    const content = contentOf(rest, (part) =>
      part.type === "text" && typeof part.content === "string" ? part.content : null,
    );
    out.push(withCalls({ role: r, content, ...(typeof raw.name === "string" ? { name: raw.name } : {}) }, calls));
  });
  return out;
}

/** gen_ai.system_instructions: parts (or, from older instrumentations, a plain string). */
export function fromGenAiSystemInstructions(value: unknown, problem: Problem): Message[] {
  if (typeof value === "string") return [{ role: "system", content: value }];
  if (!Array.isArray(value)) {
    problem("expected an array of parts");
    return [];
  }
  const content = contentOf(value, (part) =>
    part.type === "text" && typeof part.content === "string" ? part.content : null,
  );
  return content === null ? [] : [{ role: "system", content }];
}

// ---------------------------------------------------------------------------
// Vercel AI SDK: ai.prompt.messages (ModelMessage[]), ai.prompt (the call's
// prompt), ai.response.toolCalls.

function aiToolResultContent(part: Record<string, unknown>): unknown {
  // AI SDK 5+: output { type: "json" | "text" | "error-text" | "error-json" | "content", value }; 4: result.
  if (isObject(part.output) && "value" in part.output) return part.output.value;
  if ("output" in part) return part.output;
  return part.result ?? null;
}

export function fromAiSdkMessages(value: unknown, problem: Problem): Message[] {
  const out: Message[] = [];
  eachMessage(value, problem, (raw, r, index) => {
    if (typeof raw.content === "string" || raw.content === null || raw.content === undefined) {
      out.push({ role: r, content: raw.content ?? null });
      return;
    }
    if (!Array.isArray(raw.content)) return problem(`message ${index} has content that is neither text nor parts`);
    const calls: ToolCallRequest[] = [];
    const rest: unknown[] = [];
    for (const part of raw.content as unknown[]) {
      if (isObject(part) && part.type === "tool-call") {
        const call = toolCall(part.toolCallId, part.toolName, part.input ?? part.args);
        if (call) calls.push(call);
        else problem(`message ${index} has a tool-call part without a toolName`);
      } else if (isObject(part) && part.type === "tool-result") {
        out.push({
          role: "tool",
          content: aiToolResultContent(part),
          toolCallId: typeof part.toolCallId === "string" ? part.toolCallId : "",
          ...(typeof part.toolName === "string" ? { name: part.toolName } : {}),
        });
      } else rest.push(part);
    }
    if (r === "tool" && rest.length === 0) return;
    const content = contentOf(rest, (part) =>
      part.type === "text" && typeof part.text === "string" ? part.text : null,
    );
    out.push(withCalls({ role: r, content }, calls));
  });
  return out;
}

/** ai.prompt of an outer ai.generateText/streamText span: `{ system?, prompt?, messages? }`. */
export function fromAiSdkPrompt(value: unknown, problem: Problem): Message[] {
  if (!isObject(value)) {
    problem("expected an object with `system`, `prompt` or `messages`");
    return [];
  }
  const out: Message[] = [];
  if (typeof value.system === "string") out.push({ role: "system", content: value.system });
  if (typeof value.prompt === "string") out.push({ role: "user", content: value.prompt });
  else if (Array.isArray(value.prompt)) out.push(...fromAiSdkMessages(value.prompt, problem));
  if (Array.isArray(value.messages)) out.push(...fromAiSdkMessages(value.messages, problem));
  return out;
}

export function fromAiSdkToolCalls(value: unknown, problem: Problem): ToolCallRequest[] {
  if (!Array.isArray(value)) {
    problem("expected an array of tool calls");
    return [];
  }
  const calls: ToolCallRequest[] = [];
  value.forEach((raw, index) => {
    const call = isObject(raw) ? toolCall(raw.toolCallId, raw.toolName, raw.input ?? raw.args) : null;
    if (call) calls.push(call);
    else problem(`tool call ${index} has no toolName`);
  });
  return calls;
}

// ---------------------------------------------------------------------------
// OpenAI Chat Completions messages (OpenInference input.value, the Agents SDK's
// generation spans, the platforms' generations), and the providers' own shapes
// a platform records as they came: Anthropic content blocks (tool_use,
// tool_result), OpenAI Responses items (function_call, function_call_output)
// and Gemini parts (functionCall, functionResponse).

/** Content parts read: tool calls out, tool results as messages of their own, the rest as the content. */
function readParts(parts: unknown[], index: number, problem: Problem) {
  const calls: ToolCallRequest[] = [];
  const results: Message[] = [];
  const rest: unknown[] = [];
  for (const part of parts) {
    if (isObject(part) && part.type === "tool_use") {
      const call = toolCall(part.id, part.name, part.input ?? {});
      if (call) calls.push(call);
      else problem(`message ${index} has a tool_use block without a name`);
    } else if (isObject(part) && part.type === "tool_result") {
      results.push({
        role: "tool",
        content: toolResultContent(part.content),
        toolCallId: typeof part.tool_use_id === "string" ? part.tool_use_id : "",
      });
    } else if (isObject(part) && isObject(part.functionCall)) {
      const fc = part.functionCall;
      const call = toolCall(fc.id, fc.name, fc.args ?? {});
      if (call) calls.push(call);
      else problem(`message ${index} has a functionCall part without a name`);
    } else if (isObject(part) && isObject(part.functionResponse)) {
      const fr = part.functionResponse;
      results.push({
        role: "tool",
        content: fr.response ?? null,
        toolCallId: typeof fr.id === "string" ? fr.id : "",
        ...(typeof fr.name === "string" ? { name: fr.name } : {}),
      });
    } else rest.push(part);
  }
  const content = contentOf(rest, (part) =>
    (part.type === "text" || part.type === "output_text" || part.type === "input_text" || part.type === undefined) &&
    typeof part.text === "string"
      ? part.text
      : null,
  );
  return { calls, results, content, parts: rest.length };
}

/** An Anthropic tool_result's content: its text when all text, else as it came. */
function toolResultContent(content: unknown): unknown {
  if (!Array.isArray(content)) return content ?? null;
  const texts = content.map((b) => (isObject(b) && b.type === "text" && typeof b.text === "string" ? b.text : null));
  return texts.every((t): t is string => t !== null) ? texts.join("") : content;
}

/** An OpenAI Responses function_call or function_call_output item, as a message; null for any other value. */
function fromResponsesItem(item: unknown): Message | null {
  if (!isObject(item) || item.role !== undefined) return null;
  if (item.type === "function_call") {
    const call = toolCall(item.call_id, item.name, item.arguments);
    return call ? { role: "assistant", content: null, toolCalls: [call] } : null;
  }
  if (item.type === "function_call_output")
    return {
      role: "tool",
      content: item.output ?? null,
      toolCallId: typeof item.call_id === "string" ? item.call_id : "",
    };
  return null;
}

export function fromChatMessage(item: unknown, index: number, problem: Problem): Message[] {
  const responsesItem = fromResponsesItem(item);
  if (responsesItem) return [responsesItem];
  const message = readable(item, index, problem);
  if (!message) return [];
  const { raw, r } = message;
  const calls: ToolCallRequest[] = [];
  if (Array.isArray(raw.tool_calls)) {
    raw.tool_calls.forEach((c: unknown, i) => {
      const fn = isObject(c) && isObject(c.function) ? c.function : null;
      const call = fn && isObject(c) ? toolCall(c.id, fn.name, fn.arguments) : null;
      if (call) calls.push(call);
      else problem(`message ${index} tool call ${i} has no function name`);
    });
  }
  let content: unknown = raw.content ?? null;
  let results: Message[] = [];
  const parts = Array.isArray(raw.content)
    ? raw.content
    : raw.content === undefined && Array.isArray(raw.parts)
      ? raw.parts
      : null;
  if (parts) {
    const read = readParts(parts as unknown[], index, problem);
    calls.push(...read.calls);
    results = read.results;
    content = read.content;
    // A user (or Gemini function) message that only carried tool results is those results.
    if (results.length > 0 && read.parts === 0 && read.calls.length === 0) return results;
  }
  return [
    ...results,
    withCalls(
      {
        role: results.length > 0 && r === "tool" ? "user" : r,
        content,
        ...(typeof raw.tool_call_id === "string" ? { toolCallId: raw.tool_call_id } : {}),
        ...(typeof raw.name === "string" ? { name: raw.name } : {}),
      },
      calls,
    ),
  ];
}

export function fromChatMessages(value: unknown, problem: Problem): Message[] {
  if (!Array.isArray(value)) {
    problem("expected an array of messages");
    return [];
  }
  const out: Message[] = [];
  value.forEach((raw, index) => {
    const read = fromChatMessage(raw, index, problem);
    const last = out[out.length - 1];
    // Responses items: a turn's function calls follow its message (or each other) as items of their own.
    if (isObject(raw) && raw.type === "function_call" && read.length === 1 && last?.role === "assistant")
      out[out.length - 1] = { ...last, toolCalls: [...(last.toolCalls ?? []), ...(read[0]!.toolCalls ?? [])] };
    else out.push(...read);
  });
  return tieResponsesByName(out);
}

/**
 * Tool results that name their call only by the tool's name (Gemini functionResponse parts without an id): the
 * n-th result of name X answers the n-th call of X still unanswered before it, and takes that call's id.
 */
function tieResponsesByName(messages: Message[]): Message[] {
  const open = new Map<string, ToolCallRequest[]>();
  const answered = new Set<string>();
  return messages.map((message) => {
    if (message.role === "assistant")
      for (const call of message.toolCalls ?? []) open.set(call.name, [...(open.get(call.name) ?? []), call]);
    if (message.role !== "tool") return message;
    if (message.toolCallId) {
      answered.add(message.toolCallId);
      return message;
    }
    if (typeof message.name !== "string") return message;
    const queue = open.get(message.name) ?? [];
    let call = queue.shift();
    while (call?.id && answered.has(call.id)) call = queue.shift();
    if (!call?.id) return message;
    answered.add(call.id);
    return { ...message, toolCallId: call.id };
  });
}

/**
 * A provider's whole answer as one assistant message, when it is one of the shapes a platform keeps as it came:
 * a Responses response (`{ output: [items] }`) or its output items, or a Gemini response (`{ candidates }`).
 * Null for anything else (the caller reads it as before).
 */
export function fromProviderAnswer(value: unknown, problem: Problem): Message | null {
  if (isObject(value) && Array.isArray(value.output) && value.object === "response")
    return fromProviderAnswer(value.output, problem);
  if (isObject(value) && Array.isArray(value.candidates) && isObject(value.candidates[0])) {
    const content = value.candidates[0].content;
    return isObject(content) ? (fromChatMessage({ role: "model", ...content }, 0, problem)[0] ?? null) : null;
  }
  const isItem = (v: unknown) =>
    isObject(v) &&
    (v.type === "function_call" || (v.type === "message" && v.role === "assistant") || v.type === "reasoning");
  if (!Array.isArray(value) || value.length === 0 || !value.every(isItem)) return null;
  if (!value.some((v) => isObject(v) && v.type === "function_call")) return null;
  const read = fromChatMessages(
    value.filter((v) => isObject(v) && v.type !== "reasoning"),
    problem,
  ).filter((m) => m.role === "assistant");
  const calls = read.flatMap((m) => m.toolCalls ?? []);
  const texts = read.map((m) => m.content).filter((c) => c !== null);
  const content = texts.length === 0 ? null : texts.every((t) => typeof t === "string") ? texts.join("") : texts;
  return withCalls({ role: "assistant", content }, calls);
}

// ---------------------------------------------------------------------------
// OpenInference flattened messages: llm.input_messages.N.message.role, …

type Tree = { [key: string]: unknown };

/**
 * `{ "0.message.role": "user", … }` → nested objects (numeric keys stay keys).
 * Keys come from the sender: every node has no prototype, and a key with a
 * `__proto__`, `constructor` or `prototype` segment is left out (reported
 * through `problem`), so no key can reach a shared prototype.
 */
export function unflatten(flat: Record<string, unknown>, problem?: Problem): Tree {
  const root: Tree = Object.create(null) as Tree;
  for (const [key, value] of Object.entries(flat)) {
    const parts = key.split(".");
    if (parts.some(isUnsafeKey)) {
      problem?.(
        `the attribute key ${JSON.stringify(key)} has a reserved segment (__proto__, constructor or prototype) and was left out`,
      );
      continue;
    }
    let node: Tree = root;
    parts.forEach((part, i) => {
      if (i === parts.length - 1) setOwn(node, part, value);
      else {
        const next = Object.hasOwn(node, part) ? node[part] : undefined;
        if (!isObject(next)) setOwn(node, part, Object.create(null));
        node = node[part] as Tree;
      }
    });
  }
  return root;
}

function indexed(tree: unknown): unknown[] {
  if (!isObject(tree)) return [];
  return Object.keys(tree)
    .filter((key) => /^\d+$/.test(key))
    .sort((a, b) => Number(a) - Number(b))
    .map((key) => tree[key]);
}

/** `llm.input_messages.*` (already stripped of the prefix) → messages. */
export function fromOpenInferenceMessages(flat: Record<string, unknown>, problem: Problem): Message[] {
  return indexed(unflatten(flat, problem)).flatMap((entry, index) => {
    const m = isObject(entry) && isObject(entry.message) ? entry.message : null;
    if (!m) {
      problem(`message ${index} has no \`message\` fields`);
      return [];
    }
    const r = role(m.role);
    if (r === null) {
      problem(`message ${index} has an unknown role ${JSON.stringify(m.role)}`);
      return [];
    }
    const calls: ToolCallRequest[] = [];
    indexed(m.tool_calls).forEach((entryCall, i) => {
      const c = isObject(entryCall) && isObject(entryCall.tool_call) ? entryCall.tool_call : null;
      const fn = c && isObject(c.function) ? c.function : null;
      const call = c && fn ? toolCall(c.id, fn.name, fn.arguments) : null;
      if (call) calls.push(call);
      else problem(`message ${index} tool call ${i} has no function name`);
    });
    let content: unknown = m.content ?? null;
    const contents = indexed(m.contents);
    if (content === null && contents.length > 0) {
      const parts = contents.map((c) => (isObject(c) && isObject(c.message_content) ? c.message_content : c));
      content = contentOf(parts, (part) => (part.type === "text" && typeof part.text === "string" ? part.text : null));
    }
    return [
      withCalls(
        {
          role: r,
          content,
          ...(typeof m.tool_call_id === "string" ? { toolCallId: m.tool_call_id } : {}),
          ...(typeof m.name === "string" ? { name: m.name } : {}),
        },
        calls,
      ),
    ];
  });
}

/** The text of an assistant message (for final outputs). */
export function textOf(message: Message | null | undefined): unknown {
  return message ? message.content : null;
}
