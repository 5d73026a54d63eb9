import type { Message } from "@/lib/replay";
import { isObject, parseJson, type SpanAttributes } from "./attributes";
import type { OtlpSpanEvent } from "./decode";
import { fromChatMessage, fromChatMessages, fromGenAiMessages, fromGenAiSystemInstructions } from "./messages";

// ---------------------------------------------------------------------------
// A GenAI model span's messages when its attributes do not hold them but its
// events do, as the conventions before `gen_ai.input.messages` had it:
//   - `gen_ai.client.inference.operation.details`: the same `gen_ai.input.messages`,
//     `gen_ai.output.messages` and `gen_ai.system_instructions` on an event;
//   - one event per message: `gen_ai.system.message`, `gen_ai.user.message`,
//     `gen_ai.assistant.message` (`tool_calls`), `gen_ai.tool.message` (`id` of the
//     call it answers) and `gen_ai.choice` (`message`, `index`, `finish_reason`),
//     their body as attributes or as JSON in `gen_ai.event.content`;
//   - the oldest: `gen_ai.content.prompt` / `gen_ai.content.completion` with
//     `gen_ai.prompt` / `gen_ai.completion` (Chat Completions messages as JSON, or text).
// A message that cannot be read is a warning at its event, as for attributes.
// ---------------------------------------------------------------------------

export type EventMessages = { input: Message[]; output: Message | null; found: boolean };

const ROLE_OF_EVENT: Record<string, Message["role"]> = {
  "gen_ai.system.message": "system",
  "gen_ai.user.message": "user",
  "gen_ai.assistant.message": "assistant",
  "gen_ai.tool.message": "tool",
};

/** Every event name read here: what a log export's records must be named to be kept (./logs.ts). */
export const GENAI_MESSAGE_EVENTS: ReadonlySet<string> = new Set([
  ...Object.keys(ROLE_OF_EVENT),
  "gen_ai.choice",
  "gen_ai.client.inference.operation.details",
  "gen_ai.content.prompt",
  "gen_ai.content.completion",
]);

/** A value written as JSON text or as a structured AnyValue: the value, or undefined (and a warning) when the text does not parse. */
function jsonValue(value: unknown, warn: (message: string) => void): unknown {
  if (typeof value !== "string") return value ?? undefined;
  const parsed = parseJson(value);
  if (parsed.ok) return parsed.value;
  warn(`is not valid JSON (${parsed.error})`);
  return undefined;
}

/** An event's body: `gen_ai.event.content` (JSON) when it has one, else its attributes. */
function bodyOf(event: OtlpSpanEvent, warn: (message: string) => void): Record<string, unknown> | null {
  const content = event.attributes["gen_ai.event.content"];
  if (content === undefined || content === null) return event.attributes;
  const value = jsonValue(content, (m) => warn(`gen_ai.event.content ${m}`));
  if (isObject(value)) return value;
  if (value !== undefined) warn("gen_ai.event.content is not an object");
  return null;
}

/** One per-message event as a Chat Completions message (the shape these events' bodies follow). */
function chatMessageOf(role: Message["role"], body: Record<string, unknown>): Record<string, unknown> {
  return {
    role: typeof body.role === "string" ? body.role : role,
    content: body.content ?? null,
    ...(Array.isArray(body.tool_calls) ? { tool_calls: body.tool_calls } : {}),
    ...(role === "tool" && typeof body.id === "string" ? { tool_call_id: body.id } : {}),
  };
}

/** The messages a span's events carry (see above); `found` is false when none of its events is one of these. */
export function messagesFromEvents(attrs: SpanAttributes): EventMessages {
  const input: Message[] = [];
  const choices: { index: number; message: Message }[] = [];
  let output: Message | null = null;
  let found = false;
  attrs.span.events.forEach((event, i) => {
    const warn = (message: string) => attrs.warn(null, `event ${i} (${event.name}): ${message}`);
    const problem = (message: string) => warn(message);
    if (event.name === "gen_ai.client.inference.operation.details") {
      found = true;
      const a = event.attributes;
      const system = jsonValue(a["gen_ai.system_instructions"], (m) => warn(`gen_ai.system_instructions ${m}`));
      if (system !== undefined) input.push(...fromGenAiSystemInstructions(system, problem));
      const messages = jsonValue(a["gen_ai.input.messages"], (m) => warn(`gen_ai.input.messages ${m}`));
      if (messages !== undefined) input.push(...fromGenAiMessages(messages, problem));
      const out = jsonValue(a["gen_ai.output.messages"], (m) => warn(`gen_ai.output.messages ${m}`));
      if (out !== undefined) {
        const list = fromGenAiMessages(out, problem);
        output = list.find((m) => m.role === "assistant") ?? list[0] ?? output;
      }
      return;
    }
    if (event.name === "gen_ai.content.prompt" || event.name === "gen_ai.content.completion") {
      found = true;
      const key = event.name === "gen_ai.content.prompt" ? "gen_ai.prompt" : "gen_ai.completion";
      // JSON messages, or (from some instrumentations) the text itself.
      const raw = event.attributes[key];
      const parsed = typeof raw === "string" ? parseJson(raw) : null;
      const value = parsed === null ? raw : parsed.ok ? parsed.value : raw;
      if (value === undefined || value === null) return;
      const list =
        typeof value === "string"
          ? [{ role: key === "gen_ai.prompt" ? "user" : "assistant", content: value } as Message]
          : fromChatMessages(Array.isArray(value) ? value : [value], problem);
      if (key === "gen_ai.prompt") input.push(...list);
      else output = list.find((m) => m.role === "assistant") ?? list[0] ?? output;
      return;
    }
    const role = ROLE_OF_EVENT[event.name];
    if (role === undefined && event.name !== "gen_ai.choice") return;
    found = true;
    const body = bodyOf(event, warn);
    if (body === null) return;
    if (role !== undefined) {
      input.push(...fromChatMessage(chatMessageOf(role, body), i, problem));
      return;
    }
    const message = isObject(body.message) ? body.message : body;
    const read = fromChatMessage(chatMessageOf("assistant", message), i, problem)[0];
    if (read) choices.push({ index: typeof body.index === "number" ? body.index : choices.length, message: read });
  });
  if (choices.length > 0) output = [...choices].sort((a, b) => a.index - b.index)[0]!.message;
  return { input, output, found };
}
