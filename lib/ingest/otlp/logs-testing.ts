// Test helpers for /v1/logs: a conversation whose GenAI messages are log records, as an OpenTelemetry log
// exporter sends them (the SDK's own serializers), beside the spans they name.
import type { ProtobufLogsSerializer } from "@opentelemetry/otlp-transformer";
import { resourceFromAttributes } from "@opentelemetry/resources";
import { BASE_NS, type SpanSpec } from "./genai-testing";

/** What a log exporter serializes: the SDK's ReadableLogRecord. */
export type LogRecordInput = Parameters<typeof ProtobufLogsSerializer.serializeRequest>[0][number];

export const CONCIERGE_TRACE = "ab".repeat(16);
export const FIRST_CHAT = "1000000000000001";
export const BOOKING = "1000000000000002";
export const SECOND_CHAT = "1000000000000003";

/** The spans: two chat calls with no messages of their own, and the tool call between them. */
export function conciergeSpans(trace = CONCIERGE_TRACE, conversation = "conv-logs"): SpanSpec[] {
  const common = { "gen_ai.system": "openai", "gen_ai.conversation.id": conversation };
  const chatAttrs = { ...common, "gen_ai.operation.name": "chat", "gen_ai.request.model": "gpt-4o-mini" };
  return [
    { trace, id: FIRST_CHAT, name: "chat gpt-4o-mini", kind: 3, start: 0, end: 10, attrs: chatAttrs },
    {
      trace,
      id: BOOKING,
      parent: FIRST_CHAT,
      name: "execute_tool book_table",
      start: 11,
      end: 12,
      attrs: {
        ...common,
        "gen_ai.operation.name": "execute_tool",
        "gen_ai.tool.name": "book_table",
        "gen_ai.tool.call.id": "call_9",
        "gen_ai.tool.call.arguments": '{"people":2}',
        "gen_ai.tool.call.result": '{"booked":true}',
      },
    },
    { trace, id: SECOND_CHAT, name: "chat gpt-4o-mini", kind: 3, start: 20, end: 30, attrs: chatAttrs },
  ];
}

const resource = resourceFromAttributes({ "service.name": "concierge" });
const scope = { name: "opentelemetry.instrumentation.openai_v2", version: "2.1b0" };
const hr = (ms: number): [number, number] => {
  const ns = BASE_NS + BigInt(ms) * 1_000_000n;
  return [Number(ns / 1_000_000_000n), Number(ns % 1_000_000_000n)];
};

/** One GenAI event as a log record of the span. */
export function logRecord(
  trace: string,
  span: string | null,
  ms: number,
  eventName: string,
  body: LogRecordInput["body"],
  attributes: LogRecordInput["attributes"] = { "gen_ai.system": "openai" },
): LogRecordInput {
  return {
    hrTime: hr(ms),
    hrTimeObserved: hr(ms),
    ...(span === null ? {} : { spanContext: { traceId: trace, spanId: span, traceFlags: 1 } }),
    severityNumber: 9,
    eventName,
    body,
    resource,
    instrumentationScope: scope,
    attributes,
    droppedAttributesCount: 0,
  };
}

const BOOK_CALL = { id: "call_9", type: "function", function: { name: "book_table", arguments: '{"people":2}' } };

/** The messages of both chat calls as the conventions' per-message events, in the order they were emitted. */
export function conciergeLogs(trace = CONCIERGE_TRACE): LogRecordInput[] {
  const at = (span: string, ms: number, name: string, body: LogRecordInput["body"]) =>
    logRecord(trace, span, ms, name, body);
  return [
    at(FIRST_CHAT, 1, "gen_ai.system.message", { content: "You are a concierge." }),
    at(FIRST_CHAT, 1, "gen_ai.user.message", { content: "Book a table for 2." }),
    at(FIRST_CHAT, 9, "gen_ai.choice", {
      index: 0,
      finish_reason: "tool_calls",
      message: { role: "assistant", tool_calls: [BOOK_CALL] },
    }),
    at(SECOND_CHAT, 21, "gen_ai.system.message", { content: "You are a concierge." }),
    at(SECOND_CHAT, 21, "gen_ai.user.message", { content: "Book a table for 2." }),
    at(SECOND_CHAT, 21, "gen_ai.assistant.message", { tool_calls: [BOOK_CALL] }),
    at(SECOND_CHAT, 21, "gen_ai.tool.message", { id: "call_9", content: '{"booked":true}' }),
    at(SECOND_CHAT, 29, "gen_ai.choice", { index: 0, finish_reason: "stop", message: { content: "Booked for 2." } }),
  ];
}

const ASKED = {
  role: "assistant",
  content: null,
  toolCalls: [{ id: "call_9", name: "book_table", args: { people: 2 } }],
};
const PROMPT = [
  { role: "system", content: "You are a concierge." },
  { role: "user", content: "Book a table for 2." },
];

/** The steps the concierge conversation is stored as, with its messages from the logs. */
export const CONCIERGE_STEPS = [
  {
    seq: 0,
    kind: "model_call",
    name: "gpt-4o-mini",
    parentSeq: null,
    status: "completed",
    input: { messages: PROMPT, model: "gpt-4o-mini", provider: "openai" },
    output: ASKED,
  },
  {
    seq: 1,
    kind: "tool_call",
    name: "book_table",
    parentSeq: 0,
    status: "completed",
    input: { callId: "call_9", args: { people: 2 } },
    output: { booked: true },
  },
  {
    seq: 2,
    kind: "model_call",
    name: "gpt-4o-mini",
    parentSeq: null,
    status: "completed",
    input: {
      messages: [...PROMPT, ASKED, { role: "tool", content: '{"booked":true}', toolCallId: "call_9" }],
      model: "gpt-4o-mini",
      provider: "openai",
    },
    output: { role: "assistant", content: "Booked for 2." },
  },
  {
    seq: 3,
    kind: "final_output",
    name: "final_output",
    parentSeq: 2,
    status: "completed",
    input: null,
    output: "Booked for 2.",
  },
];
