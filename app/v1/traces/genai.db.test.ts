import { context, trace } from "@opentelemetry/api";
import { ProtobufTraceSerializer } from "@opentelemetry/otlp-transformer";
import { resourceFromAttributes } from "@opentelemetry/resources";
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from "@opentelemetry/sdk-trace-base";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { POST } from "@/app/v1/traces/route";
import { createApiKey } from "@/lib/db";
import type { Database } from "@/lib/db/client";
import { getSession, toSessionEvent } from "@/lib/db/session-reads";
import { createTestDatabase, type TestDatabase } from "@/lib/db/testing";
import { decodeOtlpJson, mapOtlpSpans } from "@/lib/ingest/otlp";
import { handoffConversation, otlpExport, type SpanSpec } from "@/lib/ingest/otlp/genai-testing";
import type { SessionEvent } from "@/lib/replay";
import { localAdmin } from "@/lib/server/principal";
import { listSessionSteps } from "@/lib/server/sessions/session-pages";

// The OpenTelemetry GenAI conventions of 2025–2026 on /v1/traces, through the
// route as an exporter reaches it: messages as structured attributes (parts),
// agent spans and handoffs, gen_ai.conversation.id, retrieval and memory
// operations, the MCP conventions, an operation no convention names, and the
// older per-message events (sent by the real OpenTelemetry SDK, as protobuf).

const global = globalThis as unknown as { __branchpointDb?: Promise<Database> };
let db: TestDatabase;
let key: string;

beforeAll(async () => {
  db = await createTestDatabase("pglite");
  global.__branchpointDb = Promise.resolve(db);
  key = (await createApiKey(db.prisma, "exporter")).key;
});
afterAll(async () => {
  global.__branchpointDb = undefined;
  await db?.drop();
});

async function send(body: string | Uint8Array, type = "application/json"): Promise<Response> {
  return POST(
    new Request("http://127.0.0.1/v1/traces", {
      method: "POST",
      headers: { "x-api-key": key, "content-type": type },
      body: body as BodyInit,
    }),
    { params: Promise.resolve({}) },
  );
}

async function stored(externalId: string) {
  const row = await db.prisma.session.findFirstOrThrow({ where: { externalId }, select: { id: true } });
  return (await getSession(db.prisma, row.id))!;
}

const shape = (events: readonly SessionEvent[]) =>
  events.map((e) => ({
    seq: e.seq,
    kind: e.kind,
    name: e.name,
    parentSeq: e.parentSeq,
    status: e.status,
    input: e.input,
    output: e.output,
  }));

const SYSTEM = { role: "system", content: "You are the support desk." };
const USER = { role: "user", content: "My order 4821 never arrived." };
const HANDOFF = {
  role: "assistant",
  content: null,
  toolCalls: [{ id: "call_1", name: "transfer_to_billing", args: {} }],
};
const HANDED = { role: "tool", content: { assistant: "Billing" }, toolCallId: "call_1" };
const LOOKUP = {
  role: "assistant",
  content: "Let me look that up.",
  toolCalls: [{ id: "call_2", name: "lookup_order", args: { order_id: "4821" } }],
};
const LOOKED = { role: "tool", content: { status: "lost", carrier: "DHL" }, toolCallId: "call_2" };
const CLAIM = "I've opened a claim for order 4821.";

/** What the handoff conversation must be stored as, step by step. */
const HANDOFF_STEPS = [
  {
    seq: 0,
    kind: "model_call",
    name: "gpt-5",
    parentSeq: null,
    status: "completed",
    input: { messages: [SYSTEM, USER], model: "gpt-5", provider: "openai", agent: "Triage", agentId: "agent_triage" },
    output: HANDOFF,
  },
  {
    seq: 1,
    kind: "tool_call",
    name: "transfer_to_billing",
    parentSeq: 0,
    status: "completed",
    input: { callId: "call_1", args: {}, agent: "Triage", agentId: "agent_triage" },
    output: { assistant: "Billing" },
  },
  {
    seq: 2,
    kind: "model_call",
    name: "gpt-5",
    parentSeq: null,
    status: "completed",
    input: { messages: [SYSTEM, USER, HANDOFF, HANDED], model: "gpt-5", provider: "openai", agent: "Billing" },
    output: LOOKUP,
  },
  // The MCP client's span is the call (its server's span under it is the same call, not another).
  {
    seq: 3,
    kind: "tool_call",
    name: "lookup_order",
    parentSeq: 2,
    status: "completed",
    input: { callId: "call_2", args: { order_id: "4821" }, agent: "Billing" },
    output: { status: "lost", carrier: "DHL" },
  },
  {
    seq: 4,
    kind: "tool_call",
    name: "retrieval",
    parentSeq: null,
    status: "completed",
    input: {
      callId: "1000000000000006",
      args: { query: "order 4821 shipping status", dataSource: "kb-orders" },
      operation: "retrieval",
      agent: "Billing",
    },
    output: [{ id: "doc-7", score: 0.92, content: "Order 4821 left the depot on May 2." }],
  },
  {
    seq: 5,
    kind: "tool_call",
    name: "search_memory",
    parentSeq: null,
    status: "completed",
    input: {
      callId: "1000000000000009",
      args: { "store.id": "customer-prefs", "query.text": "preferred contact channel" },
      operation: "search_memory",
      agent: "Billing",
    },
    output: [{ id: "m1", content: "Prefers email.", score: 0.8 }],
  },
  {
    seq: 6,
    kind: "tool_call",
    name: "guardrail_check refund-policy",
    parentSeq: null,
    status: "completed",
    input: {
      callId: "100000000000000b",
      args: { "guardrail.decision": "allow" },
      operation: "guardrail_check",
      unrecognized: true,
      agent: "Billing",
    },
    output: null,
  },
  {
    seq: 7,
    kind: "model_call",
    name: "gpt-5",
    parentSeq: null,
    status: "completed",
    input: {
      messages: [SYSTEM, USER, HANDOFF, HANDED, LOOKUP, LOOKED],
      model: "gpt-5",
      provider: "openai",
      agent: "Billing",
    },
    output: { role: "assistant", content: CLAIM },
  },
  { seq: 8, kind: "final_output", name: "final_output", parentSeq: 7, status: "completed", input: null, output: CLAIM },
  // The second trace of the conversation: its new user turn, then Triage again.
  {
    seq: 9,
    kind: "user_message",
    name: "user",
    parentSeq: null,
    status: "completed",
    input: null,
    output: "Thanks! When will it arrive?",
  },
  {
    seq: 10,
    kind: "model_call",
    name: "gpt-5",
    parentSeq: null,
    status: "completed",
    input: {
      messages: [SYSTEM, { role: "user", content: "Thanks! When will it arrive?" }],
      model: "gpt-5",
      provider: "openai",
      agent: "Triage",
    },
    output: { role: "assistant", content: "It should arrive by Friday." },
  },
  {
    seq: 11,
    kind: "final_output",
    name: "final_output",
    parentSeq: 10,
    status: "completed",
    input: null,
    output: "It should arrive by Friday.",
  },
];

describe("the 2025–2026 GenAI conventions on /v1/traces (pglite)", () => {
  it("a multi-agent conversation in structured attributes: steps, tool calls, agents and one session", async () => {
    const spans = handoffConversation("conv-handoff");
    // Each trace in an export of its own, the second first: the conversation id joins them.
    expect((await send(otlpExport(spans.filter((s) => s.trace.startsWith("b2"))))).status).toBe(200);
    expect((await send(otlpExport(spans.filter((s) => s.trace.startsWith("a1"))))).status).toBe(200);
    // (The MCP session id names no session of its own: the conversation's, on the root, came first.)
    const session = await stored("session:conv-handoff");
    expect(shape(session.events.map(toSessionEvent))).toEqual(HANDOFF_STEPS);
    expect(session.agent.name).toBe("Triage");
    expect(session.title).toBe("My order 4821 never arrived.");
    expect(session.toolCallCount).toBe(5);
    expect(session.modelCallCount).toBe(4);
    expect(await db.prisma.session.count({ where: { externalId: "session:mcp-conv-handoff" } })).toBe(0);
    // The session page's steps say which agent made each.
    const { steps } = await listSessionSteps(localAdmin("test"), { sessionId: session.id, limit: 32 }, db.prisma);
    expect(steps.map((s) => s.agent)).toEqual([
      "Triage",
      "Triage",
      "Billing",
      "Billing",
      "Billing",
      "Billing",
      "Billing",
      "Billing",
      null,
      null,
      "Triage",
      null,
    ]);
  });

  it("spans of one conversation arriving over several exports, as they end: after each, the full mapping's session", async () => {
    const spans = handoffConversation("conv-incremental", ["d4".repeat(16), "e5".repeat(16)]);
    const byEnd = [...spans].sort((a, b) => a.end - b.end);
    const batches = [byEnd.slice(0, 4), byEnd.slice(4, 9), byEnd.slice(9, 12), byEnd.slice(12)];
    const sent: SpanSpec[] = [];
    for (const batch of batches) {
      expect((await send(otlpExport(batch))).status).toBe(200);
      sent.push(...batch);
      const decoded = decodeOtlpJson(otlpExport(sent));
      if (!decoded.ok) throw new Error("the export does not decode");
      const reference = mapOtlpSpans(decoded.spans);
      if (!reference.ok) continue; // no model or tool step yet
      for (const expected of reference.sessions) {
        const session = await stored(expected.externalId!);
        expect(session.events.map(toSessionEvent)).toEqual(
          expected.events.map((e) => ({ ...e, durationMs: e.durationMs === null ? null : Math.round(e.durationMs) })),
        );
        expect(session.metadata).toEqual(expected.metadata);
      }
    }
    // The agent spans came last (they end last): the steps sent before them name their agents all the same.
    // (Until the root span came, the MCP session id grouped the trace; that session is gone.)
    const session = await stored("session:conv-incremental");
    expect(await db.prisma.session.count({ where: { externalId: "session:mcp-conv-incremental" } })).toBe(0);
    expect(shape(session.events.map(toSessionEvent))).toEqual(HANDOFF_STEPS);
  });

  it("the older per-message events, recorded by the OpenTelemetry SDK and sent as protobuf", async () => {
    const exporter = new InMemorySpanExporter();
    const provider = new BasicTracerProvider({
      resource: resourceFromAttributes({ "service.name": "concierge" }),
      spanProcessors: [new SimpleSpanProcessor(exporter)],
    });
    const tracer = provider.getTracer("legacy-genai");
    const at = (ms: number) => new Date(Date.UTC(2026, 0, 1) + ms);
    const common = { "gen_ai.system": "openai", "gen_ai.conversation.id": "conv-legacy" };
    const chat = (ms: number) =>
      tracer.startSpan(
        "chat gpt-4o-mini",
        {
          kind: 2,
          startTime: at(ms),
          attributes: { ...common, "gen_ai.operation.name": "chat", "gen_ai.request.model": "gpt-4o-mini" },
        },
        context.active(),
      );
    const bookCall = { id: "call_9", type: "function", function: { name: "book_table", arguments: '{"people":2}' } };
    const first = chat(0);
    first.addEvent("gen_ai.system.message", { content: "You are a concierge." }, at(1));
    first.addEvent("gen_ai.user.message", { content: "Book a table for 2." }, at(1));
    first.addEvent(
      "gen_ai.choice",
      {
        "gen_ai.event.content": JSON.stringify({
          index: 0,
          finish_reason: "tool_calls",
          message: { role: "assistant", tool_calls: [bookCall] },
        }),
      },
      at(9),
    );
    first.end(at(10));
    const tool = tracer.startSpan(
      "execute_tool book_table",
      {
        startTime: at(11),
        attributes: {
          ...common,
          "gen_ai.operation.name": "execute_tool",
          "gen_ai.agent.name": "Concierge",
          "gen_ai.tool.name": "book_table",
          "gen_ai.tool.call.id": "call_9",
          "gen_ai.tool.call.arguments": '{"people":2}',
          "gen_ai.tool.call.result": '{"booked":true}',
        },
      },
      trace.setSpan(context.active(), first),
    );
    tool.end(at(12));
    const second = chat(20);
    second.addEvent("gen_ai.system.message", { content: "You are a concierge." }, at(21));
    second.addEvent("gen_ai.user.message", { content: "Book a table for 2." }, at(21));
    second.addEvent("gen_ai.assistant.message", { "gen_ai.event.content": JSON.stringify({ tool_calls: [bookCall] }) });
    second.addEvent("gen_ai.tool.message", { id: "call_9", content: '{"booked":true}' }, at(21));
    second.addEvent("gen_ai.choice", { index: 0, finish_reason: "stop", content: "Booked for 2." }, at(29));
    second.end(at(30));
    const bytes = ProtobufTraceSerializer.serializeRequest(exporter.getFinishedSpans())!;
    expect((await send(bytes, "application/x-protobuf")).status).toBe(200);

    const session = await stored("session:conv-legacy");
    const asked = {
      role: "assistant",
      content: null,
      toolCalls: [{ id: "call_9", name: "book_table", args: { people: 2 } }],
    };
    const prompt = [
      { role: "system", content: "You are a concierge." },
      { role: "user", content: "Book a table for 2." },
    ];
    expect(session.format).toBe("otlp-protobuf");
    expect(shape(session.events.map(toSessionEvent))).toEqual([
      {
        seq: 0,
        kind: "model_call",
        name: "gpt-4o-mini",
        parentSeq: null,
        status: "completed",
        input: { messages: prompt, model: "gpt-4o-mini", provider: "openai" },
        output: asked,
      },
      {
        seq: 1,
        kind: "tool_call",
        name: "book_table",
        parentSeq: 0,
        status: "completed",
        input: { callId: "call_9", args: { people: 2 }, agent: "Concierge" },
        output: { booked: true },
      },
      {
        seq: 2,
        kind: "model_call",
        name: "gpt-4o-mini",
        parentSeq: null,
        status: "completed",
        input: {
          messages: [...prompt, asked, { role: "tool", content: '{"booked":true}', toolCallId: "call_9" }],
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
    ]);
  });

  it("an MCP tool call that answered isError is a failed call; a span of no GenAI shape still refuses nothing", async () => {
    const spans: SpanSpec[] = [
      {
        trace: "c3".repeat(16),
        id: "3000000000000001",
        name: "tools/call delete_file",
        kind: 2,
        start: 0,
        end: 5,
        attrs: {
          "mcp.method.name": "tools/call",
          "gen_ai.tool.name": "delete_file",
          "mcp.session.id": "mcp-server-session",
          "error.type": "tool_error",
          "gen_ai.tool.call.arguments": { path: "/etc/passwd" },
        },
      },
      {
        trace: "c3".repeat(16),
        id: "3000000000000002",
        name: "GET /health",
        kind: 2,
        start: 6,
        end: 7,
        attrs: { "http.request.method": "GET" },
      },
    ];
    expect((await send(otlpExport(spans))).status).toBe(200);
    // A server that exports only its MCP spans: the MCP session is the session.
    const session = await stored("session:mcp-server-session");
    expect(shape(session.events.map(toSessionEvent))).toEqual([
      {
        seq: 0,
        kind: "tool_call",
        name: "delete_file",
        parentSeq: null,
        status: "failed",
        input: { callId: "3000000000000001", args: { path: "/etc/passwd" } },
        output: null,
      },
    ]);
    expect(session.events[0]!.error).toEqual({
      type: "tool_error",
      message: "the call ended with error.type tool_error",
    });
  });
});
