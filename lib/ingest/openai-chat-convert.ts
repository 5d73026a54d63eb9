import { parseJsonBounded } from "@/lib/hostile/json";
import type { Message, SessionEvent, ToolCallRequest } from "@/lib/replay";
import { at, issueAt, type Location } from "./issues";
import { providerInputTokens } from "./cached-tokens";
import type { ChatMessage, ChatTool, ChatUsage, Conversation } from "./openai-chat-shapes";
import { usageOf } from "./otlp/reading";
import type { z } from "zod";
import type { ImportIssue } from "./types";

// ---------------------------------------------------------------------------
// Conversion
// ---------------------------------------------------------------------------

function parseArgs(raw: string | Record<string, unknown>): Pick<ToolCallRequest, "args" | "argsUnparsed"> {
  if (typeof raw !== "string") return { args: raw };
  try {
    return { args: parseJsonBounded(raw) };
  } catch {
    return { args: raw, argsUnparsed: true };
  }
}

/** A Chat Completions message as every recorded model call stores it (the agent endpoints read live requests with it too). */
export function normalizeChatMessage(message: ChatMessage): Message {
  switch (message.role) {
    case "system":
    case "developer":
      return {
        role: "system",
        content: message.content,
        ...(message.name ? { name: message.name } : {}),
      };
    case "user":
      return {
        role: "user",
        content: message.content,
        ...(message.name ? { name: message.name } : {}),
      };
    case "assistant": {
      const calls = message.tool_calls ?? [];
      return {
        role: "assistant",
        content: message.content ?? null,
        ...(calls.length > 0
          ? {
              toolCalls: calls.map((call) => ({
                id: call.id ?? "",
                name: call.function.name,
                ...parseArgs(call.function.arguments),
              })),
            }
          : {}),
      };
    }
    case "tool":
      return {
        role: "tool",
        content: message.content,
        ...(message.tool_call_id !== undefined ? { toolCallId: message.tool_call_id } : {}),
        ...(message.name ? { name: message.name } : {}),
      };
  }
}

/** Chat Completions tool declarations as a recorded model call's input stores them. */
export function chatToolSchemas(
  tools: readonly ChatTool[],
): { name: string; description?: string; parameters?: unknown }[] {
  return tools.map((tool) => ({
    name: tool.function.name,
    ...(tool.function.description !== undefined ? { description: tool.function.description } : {}),
    ...(tool.function.parameters !== undefined ? { parameters: tool.function.parameters } : {}),
  }));
}

/** How a tool result says it failed ("Error: …"). */
export const ERROR_PREFIX = /^Error:\s?/;

export type Draft = Omit<SessionEvent, "cacheKey" | "occurrence">;

/** A user turn after the first assistant message, as event `seq`. */
export function userTurn(seq: number, content: unknown): Draft {
  return draft({
    seq,
    kind: "user_message",
    name: "user",
    input: null,
    output: content,
    status: "completed",
    parentSeq: null,
  });
}

/** The final answer (the last assistant message, when it calls no tool) as event `seq`, after its model call. */
export function finalOutput(seq: number, content: unknown, modelSeq: number): Draft {
  return draft({
    seq,
    kind: "final_output",
    name: "final_output",
    input: null,
    output: content,
    status: "completed",
    parentSeq: modelSeq,
  });
}

/**
 * A tool call's event given its result message: the output, and failed when the result says "Error: …"; an
 * issue when the result names another tool than the call.
 */
export function settleToolCall(
  event: Draft,
  message: { name?: string; content: unknown },
  location: Location,
  issues: ImportIssue[],
): void {
  if (message.name !== undefined && message.name !== event.name) {
    issues.push(
      issueAt(
        at(location, "name"),
        `the result names ${JSON.stringify(message.name)}, but the call was ${JSON.stringify(event.name)}`,
      ),
    );
  }
  // Tool results stay exactly as the source wrote them, so a replay shows the agent the same text.
  event.output = message.content;
  if (typeof message.content === "string" && ERROR_PREFIX.test(message.content)) {
    event.status = "failed";
    event.error = { type: "ToolError", message: message.content.replace(ERROR_PREFIX, "") };
  } else {
    event.status = "completed";
  }
}

/** An event with the fields a chat log never records (times, usage) left empty, keys in the stored order. */
export function draft(
  fields: Pick<Draft, "seq" | "kind" | "name" | "input" | "output" | "status" | "parentSeq">,
): Draft {
  const { seq, kind, name, input, output, status, parentSeq } = fields;
  return {
    seq,
    kind,
    name,
    input,
    output,
    error: null,
    status,
    startedAt: null,
    durationMs: null,
    usage: null,
    parentSeq,
  };
}

/** A completion's usage as a step's: input (with its cached part) and output tokens, as the OTLP path reads them. */
function chatUsage(usage: z.infer<typeof ChatUsage> | undefined): Draft["usage"] {
  if (usage === undefined) return null;
  const { input, cached, written } = providerInputTokens(usage);
  return usageOf(input, usage.completion_tokens, cached, undefined, { count: written });
}

/**
 * The events of one conversation. Each assistant message is a model_call
 * whose input is every message before it; its tool calls follow it in request
 * order. Tool results are matched to the calls of the latest assistant message
 * by order (a `tool_call_id` only picks among those: real logs reuse ids across
 * calls). Messages before the first assistant message are the prompt; user
 * turns after it are user_message events. When the last assistant message
 * requested no tools, its content is also the session's final_output.
 */
export function convert(conversation: Conversation): {
  events: Draft[];
  issues: ImportIssue[];
} {
  const normalized = conversation.messages.map(normalizeChatMessage);
  const events: Draft[] = [];
  const issues: ImportIssue[] = [];
  const model = conversation.model ?? "unknown";
  const toolSchemas = conversation.tools ? chatToolSchemas(conversation.tools) : undefined;
  let pending: { event: Draft; id: string }[] = [];
  let lastAssistant: { seq: number; message: Message } | null = null;
  let seenAssistant = false;

  normalized.forEach((message, index) => {
    const location = at(conversation.location, index);
    if (message.role === "assistant") {
      seenAssistant = true;
      const seq = events.length;
      events.push(
        draft({
          seq,
          kind: "model_call",
          name: model,
          input: {
            messages: normalized.slice(0, index),
            ...(conversation.model !== undefined ? { model: conversation.model } : {}),
            ...(conversation.temperature !== undefined ? { temperature: conversation.temperature } : {}),
            ...(toolSchemas !== undefined ? { tools: toolSchemas } : {}),
          },
          output: message,
          status: "completed",
          parentSeq: null,
        }),
      );
      const raw = conversation.messages[index]!;
      if (raw.role === "assistant") events[seq]!.usage = chatUsage(raw.usage);
      lastAssistant = { seq, message };
      pending = (message.toolCalls ?? []).map((call) => {
        const event: Draft = draft({
          seq: events.length,
          kind: "tool_call",
          name: call.name,
          input: {
            callId: call.id,
            args: call.args,
            ...(call.argsUnparsed ? { argsUnparsed: true } : {}),
          },
          output: null,
          // Until its result arrives: a call whose result never came never finished.
          status: "incomplete",
          parentSeq: seq,
        });
        events.push(event);
        return { event, id: call.id };
      });
      return;
    }
    if (message.role === "tool") {
      const id = message.toolCallId;
      const match = id === undefined ? 0 : pending.findIndex((call) => call.id === id);
      if (pending.length === 0) {
        issues.push(issueAt(location, "a tool result with no pending tool call before it"));
        return;
      }
      if (match < 0) {
        const ids = pending.map((call) => JSON.stringify(call.id)).join(", ");
        issues.push(
          issueAt(at(location, "tool_call_id"), `answers ${JSON.stringify(id)}, but the pending calls are ${ids}`),
        );
        return;
      }
      const [call] = pending.splice(match, 1);
      const event = call!.event;
      settleToolCall(event, message, location, issues);
      return;
    }
    if (message.role === "user" && seenAssistant) {
      events.push(userTurn(events.length, message.content));
    }
  });

  const final = lastAssistant as { seq: number; message: Message } | null;
  // A logged completion's usage is its answer's: the last model step's (unless its message kept its own).
  if (final && conversation.usage !== undefined && events[final.seq]!.usage === null)
    events[final.seq]!.usage = chatUsage(conversation.usage);
  if (!seenAssistant) {
    issues.push(issueAt(conversation.location, "no assistant message: there is no model step to import"));
  } else if (final && !final.message.toolCalls?.length) {
    events.push(finalOutput(events.length, final.message.content, final.seq));
  }
  return { events, issues };
}
