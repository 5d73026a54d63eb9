/**
 * Phoenix spans as its REST API answers `GET /v1/projects/{project_identifier}/spans` (`{ data: [span], next_cursor }`),
 * shaped after Phoenix's OpenAPI document for that endpoint (the Span schema: id, name, context.trace_id/span_id,
 * span_kind, parent_id, start_time, end_time, status_code, status_message, attributes, events) and the
 * OpenInference semantic conventions (github.com/Arize-ai/openinference, spec/semantic_conventions.md): the
 * `openinference.span.kind`, `llm.input_messages.N.message.*` (flat keys on the first call, nested objects on the
 * second, as exports differ), `llm.output_messages`, `llm.token_count.*`, `tool.name`, `input.value`, `output.value`
 * and `session.id` attributes, and an `exception` event. Hand-built: no recording ships in an npm package.
 */
export const PHOENIX_PROJECT = "support-prod";

const iso = (base: number, ms: number) => new Date(base + ms).toISOString().replace("Z", "000+00:00");

export function phoenixTrace(n: number, opts: { offsetMs?: number; failTool?: boolean } = {}) {
  const traceId = `${n.toString(16).padStart(8, "0")}${"ab".repeat(12)}`;
  const base = Date.parse("2026-11-20T09:00:00Z") + (opts.offsetMs ?? n * 60_000);
  const sid = (k: number) => `${n.toString(16).padStart(4, "0")}00000000000${k}`;
  const span = (k: number, parent: number | null, name: string, kind: string, from: number, to: number, attributes: Record<string, unknown>) => ({
    id: `U3BhbjoK${n}${k}`,
    name,
    context: { trace_id: traceId, span_id: sid(k) },
    span_kind: kind,
    parent_id: parent === null ? null : sid(parent),
    start_time: iso(base, from),
    end_time: iso(base, to),
    status_code: "OK",
    status_message: "",
    attributes: { "openinference.span.kind": kind, ...attributes } as Record<string, unknown>,
    events: [] as unknown[],
  });
  const callId = `call_${n}_1`;
  const tool = span(3, 1, "lookup_order", "TOOL", 900, 1100, {
    "tool.name": "lookup_order",
    "tool_call.id": callId,
    "input.value": '{"order_id":"4821"}',
    "output.value": '{"status":"shipped"}',
  });
  if (opts.failTool) {
    tool.status_code = "ERROR";
    tool.status_message = "TimeoutError: order service";
    delete tool.attributes["output.value"];
    tool.events = [
      {
        name: "exception",
        timestamp: iso(base, 1100),
        attributes: { "exception.type": "TimeoutError", "exception.message": "order service timed out" },
      },
    ];
  }
  return [
    span(1, null, "support-agent", "AGENT", 0, 2000, {
      "session.id": `conv-${n}`,
      "input.value": "Where is order 4821?",
      "output.value": "Order 4821 has shipped.",
    }),
    span(2, 1, "ChatCompletion", "LLM", 100, 800, {
      "llm.model_name": "gpt-4o",
      "llm.input_messages.0.message.role": "system",
      "llm.input_messages.0.message.content": "You help with orders.",
      "llm.input_messages.1.message.role": "user",
      "llm.input_messages.1.message.content": "Where is order 4821?",
      "llm.output_messages.0.message.role": "assistant",
      "llm.output_messages.0.message.tool_calls.0.tool_call.id": callId,
      "llm.output_messages.0.message.tool_calls.0.tool_call.function.name": "lookup_order",
      "llm.output_messages.0.message.tool_calls.0.tool_call.function.arguments": '{"order_id":"4821"}',
      "llm.token_count.prompt": 90,
      "llm.token_count.completion": 12,
    }),
    tool,
    span(4, 1, "search_docs", "RETRIEVER", 1150, 1250, { "input.value": "shipping policy" }),
    span(5, 1, "ChatCompletion", "LLM", 1300, 1900, {
      llm: {
        model_name: "gpt-4o",
        input_messages: [
          { message: { role: "user", content: "Where is order 4821?" } },
          { message: { role: "tool", content: '{"status":"shipped"}', tool_call_id: callId } },
        ],
        output_messages: [{ message: { role: "assistant", content: "Order 4821 has shipped." } }],
        token_count: { prompt: 120, completion: 8 },
      },
    }),
    span(6, 1, "moderate", "GUARDRAIL", 1950, 1990, { "input.value": "Order 4821 has shipped." }),
  ];
}
