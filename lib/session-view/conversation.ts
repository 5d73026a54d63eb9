import type { SessionEvent } from "@/lib/replay";

/**
 * A session read as a chat: every message once, at the step where it first
 * appears. A model call's input repeats the whole conversation so far; only
 * what is new in it is kept, so the view's size is linear in the session,
 * never a prefix per step. Tool calls are shown inline under the assistant
 * message that asked for them, with their recorded results.
 */

export interface ChatToolCall {
  id: string;
  name: string;
  args: string;
  /** The tool_call step that ran it, when recorded. */
  seq: number | null;
  result: string | null;
  error: string | null;
  durationMs: number | null;
}

export type ChatItem =
  | {
      type: "message";
      key: string;
      /** The step where the message first appears. */
      seq: number;
      role: "system" | "user" | "assistant";
      text: string;
      /** For an assistant message: the model that wrote it, its tokens and cost. */
      model: string | null;
      tokens: number | null;
      costUsd: number | null;
      toolCalls: ChatToolCall[];
    }
  | { type: "tool_result"; key: string; seq: number; toolCallId: string | null; name: string | null; text: string }
  | { type: "final"; key: string; seq: number; text: string };

type Msg = { role?: unknown; content?: unknown; toolCalls?: unknown; toolCallId?: unknown; name?: unknown };
type Call = { id?: unknown; name?: unknown; args?: unknown };

/** Content as readable text: strings as they are, text parts joined, other JSON pretty-printed. */
export function contentText(content: unknown): string {
  if (content === null || content === undefined) return "";
  if (typeof content === "string") return content;
  if (Array.isArray(content) && content.every((p) => p && typeof p === "object" && "text" in p)) {
    return content.map((p) => String((p as { text: unknown }).text)).join("\n");
  }
  return JSON.stringify(content, null, 2);
}

const callsOf = (m: Msg): Call[] => (Array.isArray(m.toolCalls) ? (m.toolCalls as Call[]) : []);

function keyOf(m: Msg): string {
  return JSON.stringify([
    m.role,
    m.content ?? null,
    m.toolCallId ?? null,
    callsOf(m).map((c) => [c.id ?? null, c.name ?? null]),
  ]);
}

const messagesOf = (e: SessionEvent): Msg[] => {
  const messages = (e.input as { messages?: unknown } | null)?.messages;
  return Array.isArray(messages) ? (messages as Msg[]) : [];
};

/**
 * A step as the conversation reads it: with its full input, or as stored, a
 * model call's input holding only the messages it adds after a prefix of
 * model call `inputPrefixSeq`'s input.
 */
export type ConversationEvent = SessionEvent & { inputPrefixSeq?: number | null };

/**
 * A stretch of the conversation (a window of steps in stored form) is read
 * with the outputs of the earlier model calls its calls extend (`before`):
 * the first message a call adds is that output again, shown once already.
 */
export type ConversationContext = { before?: ReadonlyMap<number, unknown> };

const outputMessage = (output: unknown): Msg | null =>
  output && typeof output === "object" && !Array.isArray(output)
    ? { ...(output as Msg), role: (output as Msg).role ?? "assistant" }
    : null;

export function buildConversation(events: readonly ConversationEvent[], context: ConversationContext = {}): ChatItem[] {
  const items: ChatItem[] = [];
  const seen = new Set<string>();
  // Model outputs by step, for the calls that extend them.
  const outputs = new Map<number, Msg>();
  for (const [seq, output] of context.before ?? []) {
    const m = outputMessage(output);
    if (m) outputs.set(seq, m);
  }
  // The conversation as the last model call left it (its input plus its output), for the prefix check.
  let prev: Msg[] = [];
  // Tool calls shown inline, by id: a tool message answering one of them is not shown again.
  const shownCalls = new Set<string>();
  const toolEvents = events.filter((e) => e.kind === "tool_call");
  const toolsByParent = new Map<number, SessionEvent[]>();
  for (const t of toolEvents) {
    if (t.parentSeq === null) continue;
    toolsByParent.set(t.parentSeq, [...(toolsByParent.get(t.parentSeq) ?? []), t]);
  }
  let lastAssistantText: string | null = null;
  // Calls of the outputs before the window: their answers were shown there, inline.
  for (const m of outputs.values()) for (const c of callsOf(m)) if (typeof c.id === "string") shownCalls.add(c.id);

  const push = (m: Msg, seq: number, from: SessionEvent | null) => {
    const key = keyOf(m);
    seen.add(key);
    const role = m.role;
    if (role === "tool") {
      const id = typeof m.toolCallId === "string" ? m.toolCallId : null;
      if (id !== null && shownCalls.has(id)) return;
      items.push({
        type: "tool_result",
        key: `t${seq}-${items.length}`,
        seq,
        toolCallId: id,
        name: typeof m.name === "string" ? m.name : null,
        text: contentText(m.content),
      });
      return;
    }
    if (role !== "system" && role !== "user" && role !== "assistant") return;
    const children = from ? [...(toolsByParent.get(from.seq) ?? [])] : [];
    const toolCalls: ChatToolCall[] = callsOf(m).map((c, k) => {
      const id = typeof c.id === "string" ? c.id : `#${k}`;
      shownCalls.add(id);
      // Recorded ids repeat in real logs: take this model call's own tool steps, by id, else in order.
      const byId = children.findIndex((t) => (t.input as { callId?: unknown } | null)?.callId === id);
      const index = byId >= 0 ? byId : children.findIndex((t) => t.name === c.name);
      const step = index >= 0 ? children.splice(index, 1)[0]! : null;
      return {
        id,
        name: typeof c.name === "string" ? c.name : "?",
        args: typeof c.args === "string" ? c.args : JSON.stringify(c.args ?? null, null, 2),
        seq: step?.seq ?? null,
        result: step && !step.error ? contentText(step.output) : null,
        error: step?.error ? `${step.error.type}: ${step.error.message}` : null,
        durationMs: step?.durationMs ?? null,
      };
    });
    const text = contentText(m.content);
    if (role === "assistant") lastAssistantText = text;
    const usage = from?.usage;
    items.push({
      type: "message",
      key: `m${seq}-${items.length}`,
      seq,
      role,
      text,
      model: from ? from.name : null,
      tokens: usage ? (usage.inputTokens ?? 0) + (usage.outputTokens ?? 0) : null,
      costUsd: usage?.costUsd ?? null,
      toolCalls,
    });
  };

  for (const e of events) {
    if (e.kind === "model_call" && e.inputPrefixSeq !== undefined && e.inputPrefixSeq !== null) {
      // Stored form: the messages this call adds; the first is usually the output it extends, shown there.
      const added = messagesOf(e);
      const echo = outputs.get(e.inputPrefixSeq);
      const fresh = added.length > 0 && echo && keyOf(added[0]!) === keyOf(echo) ? added.slice(1) : added;
      for (const m of fresh) if (!seen.has(keyOf(m))) push(m, e.seq, null);
      const output = outputMessage(e.output);
      if (output) {
        push(output, e.seq, e);
        outputs.set(e.seq, output);
      }
      prev = [];
    } else if (e.kind === "model_call") {
      const input = messagesOf(e);
      // The usual case, checked in constant time: this input extends the last one.
      const extends_ =
        prev.length > 0 &&
        input.length >= prev.length &&
        keyOf(input[0]!) === keyOf(prev[0]!) &&
        keyOf(input[prev.length - 1]!) === keyOf(prev[prev.length - 1]!);
      const fresh = extends_ ? input.slice(prev.length) : input.filter((m) => !seen.has(keyOf(m)));
      for (const m of fresh) if (!seen.has(keyOf(m))) push(m, e.seq, null);
      const output = e.output as Msg | null;
      if (output && typeof output === "object") {
        push({ ...output, role: output.role ?? "assistant" }, e.seq, e);
        outputs.set(e.seq, { ...output, role: output.role ?? "assistant" });
      }
      prev = output && typeof output === "object" ? [...input, output] : input;
    } else if (e.kind === "user_message") {
      const value = e.output ?? e.input;
      // Either the turn's content, or (as some sources store it) the whole message.
      const m: Msg =
        value && typeof value === "object" && !Array.isArray(value) && "role" in value && "content" in value
          ? { role: "user", content: (value as Msg).content }
          : { role: "user", content: value };
      if (!seen.has(keyOf(m))) push(m, e.seq, null);
    } else if (e.kind === "final_output") {
      const text = contentText(e.output);
      if (text !== lastAssistantText) items.push({ type: "final", key: `f${e.seq}`, seq: e.seq, text });
    }
  }
  return items;
}

/** The words a search looks in, lower-cased. */
export function chatSearchText(item: ChatItem): string {
  if (item.type !== "message") return item.text.toLowerCase();
  return [item.text, ...item.toolCalls.flatMap((c) => [c.name, c.args, c.result ?? "", c.error ?? ""])]
    .join("\n")
    .toLowerCase();
}
