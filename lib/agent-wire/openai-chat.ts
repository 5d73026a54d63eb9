/**
 * OpenAI Chat Completions as a wire format: a request an unmodified client sends to
 * `{openaiBaseUrl}/chat/completions` read into the engine's shape (messages normalized by the same code the
 * chat-log importer stores a recorded model call with), and an assistant turn written back as a
 * `chat.completion` (JSON) or `chat.completion.chunk` events (SSE).
 */
import { z } from "zod";
import { AppError, issuesFromZod } from "@/lib/errors";
import { chatToolSchemas, normalizeChatMessage } from "@/lib/ingest/openai-chat-convert";
import { ChatMessage, ChatTool } from "@/lib/ingest/openai-chat-shapes";
import type { Message, ModelCallInput } from "@/lib/replay";
import type { WireAnswer, WireFormat, WireRequest } from "./types";

/** The fields of a request the engine compares; the rest (stream options, tool_choice, max_tokens…) are read and left. */
const ChatRequest = z
  .object({
    model: z.string().min(1, "name the model"),
    messages: z.array(ChatMessage).min(1, "send at least one message"),
    temperature: z.number().min(0).max(2).nullable().optional(),
    tools: z.array(ChatTool).nullable().optional(),
    stream: z.boolean().nullable().optional(),
  })
  .passthrough();

function parseRequest(body: unknown): WireRequest {
  const parsed = ChatRequest.safeParse(body);
  if (!parsed.success) {
    const issues = issuesFromZod(parsed.error);
    throw new AppError(
      "invalid_input",
      `The chat completion request is not valid: ${issues.map((i) => `${i.path || "(body)"}: ${i.message}`).join("; ")}.`,
      issues,
    );
  }
  const r = parsed.data;
  // The key order and the fields of the importer's model-call input, so equal requests compare equal.
  const input: ModelCallInput = {
    messages: r.messages.map(normalizeChatMessage),
    model: r.model,
    ...(typeof r.temperature === "number" ? { temperature: r.temperature } : {}),
    ...(r.tools && r.tools.length > 0 ? { tools: chatToolSchemas(r.tools) } : {}),
  };
  return { input, stream: r.stream === true, model: r.model };
}

/** Message content as Chat Completions returns it: a string (text parts joined) or null. */
function contentText(content: unknown): string | null {
  if (content === null || content === undefined) return null;
  if (typeof content === "string") return content;
  if (Array.isArray(content)) {
    const texts = content.map((part) =>
      typeof part === "string"
        ? part
        : part !== null && typeof part === "object" && typeof (part as { text?: unknown }).text === "string"
          ? (part as { text: string }).text
          : "",
    );
    return texts.join("");
  }
  return JSON.stringify(content);
}

function toolCallsOf(message: Message) {
  return (message.toolCalls ?? []).map((call) => ({
    id: call.id,
    type: "function" as const,
    function: {
      name: call.name,
      arguments: call.argsUnparsed && typeof call.args === "string" ? call.args : JSON.stringify(call.args ?? {}),
    },
  }));
}

function usageOf(answer: WireAnswer) {
  const prompt = answer.usage?.inputTokens ?? 0;
  const completion = answer.usage?.outputTokens ?? 0;
  return { prompt_tokens: prompt, completion_tokens: completion, total_tokens: prompt + completion };
}

function finishReason(message: Message): "tool_calls" | "stop" {
  return (message.toolCalls ?? []).length > 0 ? "tool_calls" : "stop";
}

function renderJson(answer: WireAnswer): unknown {
  const calls = toolCallsOf(answer.message);
  return {
    id: answer.id,
    object: "chat.completion",
    created: answer.created,
    model: answer.model,
    choices: [
      {
        index: 0,
        message: {
          role: "assistant",
          content: contentText(answer.message.content),
          refusal: null,
          ...(calls.length > 0 ? { tool_calls: calls } : {}),
        },
        logprobs: null,
        finish_reason: finishReason(answer.message),
      },
    ],
    usage: usageOf(answer),
  };
}

function renderStream(answer: WireAnswer): string[] {
  const chunk = (choices: unknown[], extra: Record<string, unknown> = {}) =>
    `data: ${JSON.stringify({ id: answer.id, object: "chat.completion.chunk", created: answer.created, model: answer.model, choices, ...extra })}\n\n`;
  const text = contentText(answer.message.content);
  // As OpenAI streams: an answer with text opens with "" (its text follows), one with only tool calls with null.
  const events = [
    chunk([{ index: 0, delta: { role: "assistant", content: text ? "" : null }, logprobs: null, finish_reason: null }]),
  ];
  if (text) events.push(chunk([{ index: 0, delta: { content: text }, logprobs: null, finish_reason: null }]));
  toolCallsOf(answer.message).forEach((call, index) => {
    events.push(
      chunk([
        {
          index: 0,
          delta: { tool_calls: [{ index, id: call.id, type: "function", function: call.function }] },
          logprobs: null,
          finish_reason: null,
        },
      ]),
    );
  });
  events.push(chunk([{ index: 0, delta: {}, logprobs: null, finish_reason: finishReason(answer.message) }]));
  events.push(chunk([], { usage: usageOf(answer) }));
  events.push("data: [DONE]\n\n");
  return events;
}

function renderError(status: number, code: string, message: string): unknown {
  const type = status === 401 ? "authentication_error" : status === 403 ? "permission_error" : "invalid_request_error";
  return { error: { message, type, param: null, code } };
}

export const openAiChat: WireFormat = { parseRequest, renderJson, renderStream, renderError };
