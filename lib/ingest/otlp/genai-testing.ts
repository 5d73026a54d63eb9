// Test helpers for the GenAI conventions: OTLP/JSON export bodies built by hand,
// attribute values as structured AnyValues (kvlists and arrays, as the
// conventions ask of `gen_ai.input.messages` and the tool call attributes).

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/** A plain value as an OTLP/JSON AnyValue: objects become kvlists, arrays arrays. */
export function anyValue(value: Json): Record<string, unknown> {
  if (value === null) return {};
  if (typeof value === "string") return { stringValue: value };
  if (typeof value === "boolean") return { boolValue: value };
  if (typeof value === "number") return Number.isInteger(value) ? { intValue: String(value) } : { doubleValue: value };
  if (Array.isArray(value)) return { arrayValue: { values: value.map(anyValue) } };
  return { kvlistValue: { values: Object.entries(value).map(([key, v]) => ({ key, value: anyValue(v) })) } };
}

const keyValues = (attrs: Record<string, Json>) =>
  Object.entries(attrs).map(([key, value]) => ({ key, value: anyValue(value) }));

/** 2026-01-01T00:00:00Z in nanoseconds. */
export const BASE_NS = 1_767_225_600_000_000_000n;
const ns = (ms: number) => String(BASE_NS + BigInt(ms) * 1_000_000n);

export type SpanSpec = {
  trace: string;
  id: string;
  parent?: string;
  name: string;
  /** SpanKind: 1 internal (default), 2 server, 3 client. */
  kind?: number;
  /** Milliseconds after BASE_NS. */
  start: number;
  end: number;
  attrs: Record<string, Json>;
  events?: { name: string; at: number; attrs: Record<string, Json> }[];
  error?: string;
};

/** One OTLP/JSON span. */
export function otlpSpan(s: SpanSpec): Record<string, unknown> {
  return {
    traceId: s.trace,
    spanId: s.id,
    ...(s.parent ? { parentSpanId: s.parent } : {}),
    name: s.name,
    kind: s.kind ?? 1,
    startTimeUnixNano: ns(s.start),
    endTimeUnixNano: ns(s.end),
    attributes: keyValues(s.attrs),
    events: (s.events ?? []).map((e) => ({ name: e.name, timeUnixNano: ns(e.at), attributes: keyValues(e.attrs) })),
    status: s.error ? { code: 2, message: s.error } : {},
  };
}

/** An ExportTraceServiceRequest in OTLP/JSON: the spans under one resource and scope. */
export function otlpExport(
  spans: readonly SpanSpec[],
  resource: Record<string, Json> = { "service.name": "support-desk" },
): string {
  return JSON.stringify({
    resourceSpans: [
      {
        resource: { attributes: keyValues(resource) },
        scopeSpans: [{ scope: { name: "genai-handwritten", version: "1.0.0" }, spans: spans.map(otlpSpan) }],
      },
    ],
  });
}

const text = (content: string) => ({ type: "text", content });
const call = (id: string, name: string, args: Json) => ({ type: "tool_call", id, name, arguments: args });
const response = (id: string, value: Json) => ({ type: "tool_call_response", id, response: value });

const id = (n: number) => `10000000000000${n.toString(16).padStart(2, "0")}`;
const system = [text("You are the support desk.")];
const user1 = { role: "user", parts: [text("My order 4821 never arrived.")] };
const handoff = { role: "assistant", parts: [call("call_1", "transfer_to_billing", {})], finish_reason: "tool_call" };
const handed = { role: "tool", parts: [response("call_1", { assistant: "Billing" })] };
const lookup = {
  role: "assistant",
  parts: [text("Let me look that up."), call("call_2", "lookup_order", { order_id: "4821" })],
  finish_reason: "tool_call",
};
const looked = { role: "tool", parts: [response("call_2", { status: "lost", carrier: "DHL" })] };
const answer = (content: string) => [{ role: "assistant", parts: [text(content)], finish_reason: "stop" }];
const model = { "gen_ai.request.model": "gpt-5", "gen_ai.provider.name": "openai" };

/** The first trace: Triage, its model call, and the handoff (Billing's agent span under the handoff tool span). */
function triageTurn(t1: string, conversation: string): SpanSpec[] {
  return [
    {
      trace: t1,
      id: id(1),
      name: "invoke_agent Triage",
      start: 0,
      end: 1000,
      attrs: {
        "gen_ai.operation.name": "invoke_agent",
        "gen_ai.agent.name": "Triage",
        "gen_ai.agent.id": "agent_triage",
        "gen_ai.conversation.id": conversation,
        "gen_ai.provider.name": "openai",
        "gen_ai.output.messages": answer("I've opened a claim for order 4821."),
      },
    },
    {
      trace: t1,
      id: id(2),
      parent: id(1),
      name: "chat gpt-5",
      kind: 3,
      start: 10,
      end: 100,
      attrs: {
        "gen_ai.operation.name": "chat",
        ...model,
        "gen_ai.system_instructions": system,
        "gen_ai.input.messages": [user1],
        "gen_ai.output.messages": [handoff],
        "gen_ai.usage.input_tokens": 20,
        "gen_ai.usage.output_tokens": 5,
      },
    },
    {
      trace: t1,
      id: id(3),
      parent: id(1),
      name: "execute_tool transfer_to_billing",
      start: 110,
      end: 990,
      attrs: {
        "gen_ai.operation.name": "execute_tool",
        "gen_ai.tool.name": "transfer_to_billing",
        "gen_ai.tool.call.id": "call_1",
        "gen_ai.tool.call.arguments": "{}",
        "gen_ai.tool.call.result": '{"assistant":"Billing"}',
      },
    },
    {
      trace: t1,
      id: id(4),
      parent: id(3),
      name: "invoke_agent Billing",
      start: 130,
      end: 980,
      attrs: { "gen_ai.operation.name": "invoke_agent", "gen_ai.agent.name": "Billing" },
    },
  ];
}

/** Billing's steps in the first trace. */
function billingSteps(t1: string, mcpSession: string): SpanSpec[] {
  return [
    {
      trace: t1,
      id: id(10),
      parent: id(4),
      name: "initialize",
      kind: 3,
      start: 135,
      end: 137,
      attrs: { "mcp.method.name": "initialize", "mcp.session.id": mcpSession },
    },
    {
      trace: t1,
      id: id(5),
      parent: id(4),
      name: "chat gpt-5",
      kind: 3,
      start: 140,
      end: 200,
      attrs: {
        "gen_ai.operation.name": "chat",
        "gen_ai.request.model": "gpt-5",
        // The provider as conventions before 1.37 named it.
        "gen_ai.system": "openai",
        "gen_ai.system_instructions": system,
        "gen_ai.input.messages": [user1, handoff, handed],
        "gen_ai.output.messages": [lookup],
      },
    },
    {
      trace: t1,
      id: id(6),
      parent: id(4),
      name: "retrieval kb-orders",
      start: 205,
      end: 215,
      attrs: {
        "gen_ai.operation.name": "retrieval",
        "gen_ai.data_source.id": "kb-orders",
        "gen_ai.retrieval.query.text": "order 4821 shipping status",
        "gen_ai.retrieval.documents": '[{"id":"doc-7","score":0.92,"content":"Order 4821 left the depot on May 2."}]',
      },
    },
    {
      trace: t1,
      id: id(7),
      parent: id(4),
      name: "tools/call lookup_order",
      kind: 3,
      start: 220,
      end: 260,
      attrs: {
        "mcp.method.name": "tools/call",
        "gen_ai.operation.name": "execute_tool",
        "gen_ai.tool.name": "lookup_order",
        "gen_ai.tool.call.id": "call_2",
        "mcp.session.id": mcpSession,
        "jsonrpc.request.id": "5",
        "gen_ai.tool.call.arguments": { order_id: "4821" },
        "gen_ai.tool.call.result": { status: "lost", carrier: "DHL" },
      },
    },
    {
      trace: t1,
      id: id(8),
      parent: id(7),
      name: "tools/call lookup_order",
      kind: 2,
      start: 225,
      end: 255,
      attrs: {
        "mcp.method.name": "tools/call",
        "gen_ai.operation.name": "execute_tool",
        "gen_ai.tool.name": "lookup_order",
        "mcp.session.id": mcpSession,
        "jsonrpc.request.id": "5",
        "gen_ai.tool.call.arguments": { order_id: "4821" },
      },
    },
    {
      trace: t1,
      id: id(9),
      parent: id(4),
      name: "search_memory customer-prefs",
      start: 265,
      end: 275,
      attrs: {
        "gen_ai.operation.name": "search_memory",
        "gen_ai.memory.store.id": "customer-prefs",
        "gen_ai.memory.query.text": "preferred contact channel",
        "gen_ai.memory.records": '[{"id":"m1","content":"Prefers email.","score":0.8}]',
      },
    },
    {
      trace: t1,
      id: id(11),
      parent: id(4),
      name: "guardrail_check refund-policy",
      start: 280,
      end: 285,
      attrs: { "gen_ai.operation.name": "guardrail_check", "gen_ai.guardrail.decision": "allow" },
    },
    {
      trace: t1,
      id: id(12),
      parent: id(4),
      name: "chat gpt-5",
      kind: 3,
      start: 300,
      end: 400,
      attrs: {
        "gen_ai.operation.name": "chat",
        ...model,
        "gen_ai.system_instructions": system,
        "gen_ai.input.messages": [user1, handoff, handed, lookup, looked],
        "gen_ai.output.messages": answer("I've opened a claim for order 4821."),
      },
    },
  ];
}

/** The second trace of the conversation: a new user turn, Triage again. */
function secondTurn(t2: string, conversation: string): SpanSpec[] {
  return [
    {
      trace: t2,
      id: "2000000000000001",
      name: "invoke_agent Triage",
      start: 60_000,
      end: 61_000,
      attrs: {
        "gen_ai.operation.name": "invoke_agent",
        "gen_ai.agent.name": "Triage",
        "gen_ai.conversation.id": conversation,
        "gen_ai.output.messages": answer("It should arrive by Friday."),
      },
    },
    {
      trace: t2,
      id: "2000000000000002",
      parent: "2000000000000001",
      name: "chat gpt-5",
      kind: 3,
      start: 60_010,
      end: 60_500,
      attrs: {
        "gen_ai.operation.name": "chat",
        ...model,
        "gen_ai.system_instructions": system,
        "gen_ai.input.messages": [{ role: "user", parts: [text("Thanks! When will it arrive?")] }],
        "gen_ai.output.messages": answer("It should arrive by Friday."),
      },
    },
  ];
}

/**
 * A multi-agent conversation in the 2025–2026 conventions, as two traces of one
 * `gen_ai.conversation.id`: Triage hands off to Billing (an execute_tool span,
 * the Billing agent's invoke_agent span under it), which retrieves, searches its
 * memory, calls an MCP tool (client span, and the server's span under it),
 * runs a check of an operation no convention names, and answers; then a
 * second turn. Messages are structured AnyValues in the parts format.
 */
export function handoffConversation(conversation: string, traces = ["a1".repeat(16), "b2".repeat(16)]): SpanSpec[] {
  const [t1, t2] = traces as [string, string];
  return [...triageTurn(t1, conversation), ...billingSteps(t1, `mcp-${conversation}`), ...secondTurn(t2, conversation)];
}
