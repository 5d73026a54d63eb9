import { describe, expect, it } from "vitest";
import { compareRuns, replay, toolLevelPreset, type Policy, type SessionEvent } from "@/lib/replay";
import { detectAdapter } from "./adapter";
import { mapOtlpSpans } from "./map";
import { logsOf, recordings, spansOf, spansWithLogs } from "./testing";

// The recordings of scripts/record-instrumentations.ts: the `openai` client under OpenTelemetry's
// instrumentation (gen_ai.* spans, the messages as GenAI log events) and OpenInference's (llm.* attributes),
// in an agent loop of the scripted conversation. Neither traces the tools: the app runs them.

const RUNS = [
  "otel-openai-chat",
  "otel-openai-chat-stream",
  "openinference-openai-chat",
  "openinference-openai-chat-stream",
];

const SYSTEM = { role: "system", content: "You are a support agent. Use the tools." };
const USER = { role: "user", content: "Refund order 4821 and tell me what time it is." };
const FINAL = "Order 4821 was found, but the refund failed: the card processor is unavailable.";
const LOOKUP: Call = { id: "call_lookup_1", name: "lookup_order", args: { order_id: "4821" } };
const TIME_1: Call = { id: "call_time_1", name: "get_time", args: { zone: "UTC" } };
const TIME_2: Call = { id: "call_time_2", name: "get_time", args: { zone: "UTC" } };
const REFUND: Call = { id: "call_refund_1", name: "refund_payment", args: { order_id: "4821", amount: 129 } };
const ORDER = { order_id: "4821", status: "delivered", total: 129 };
const asked = (...toolCalls: object[]) => ({ role: "assistant", content: null, toolCalls });
const answer = (toolCallId: string, content: string) => ({ role: "tool", content, toolCallId });
const FIRST_ANSWERS = [answer("call_lookup_1", JSON.stringify(ORDER)), answer("call_time_1", "12:00:01Z")];
const SECOND_ANSWERS = [
  answer("call_time_2", "12:00:02Z"),
  answer("call_refund_1", "Error: card processor unavailable"),
];

const schema = (properties: Record<string, { type: string }>) => ({
  type: "object",
  properties,
  required: Object.keys(properties),
  additionalProperties: false,
});
/** The tools as the request sent them, which OpenInference keeps (llm.tools.*.tool.json_schema). */
const REQUEST_TOOLS = [
  ["lookup_order", "Look an order up by id", schema({ order_id: { type: "string" } })],
  ["get_time", "The current time", schema({ zone: { type: "string" } })],
  ["refund_payment", "Refund an order", schema({ order_id: { type: "string" }, amount: { type: "number" } })],
].map(([name, description, parameters]) => ({ type: "function", function: { name, description, parameters } }));

type Call = { id: string; name: string; args: unknown };

function expectedSteps(name: string) {
  const openInference = name.startsWith("openinference");
  const oiStream = name === "openinference-openai-chat-stream";
  const input = (messages: object[]) => ({
    messages,
    model: "scripted-model",
    temperature: 0,
    ...(openInference ? { tools: REQUEST_TOOLS } : {}),
    provider: "openai",
  });
  // OpenInference records no usage for a streamed reply (it does not read the usage chunk the request asked for).
  const usage = oiStream ? null : { inputTokens: 42, outputTokens: 7 };
  const tool = (seq: number, parentSeq: number, call: Call, output: unknown) => ({
    seq,
    kind: "tool_call",
    name: call.name,
    parentSeq,
    status: "completed",
    input: { callId: call.id, args: call.args, fromConversation: true },
    output,
    error: null,
    usage: null,
  });
  const firstTurn = [...FIRST_ANSWERS];
  const model = (seq: number, messages: object[], output: { role: string; content: unknown }) => ({
    seq,
    kind: "model_call",
    name: "scripted-model",
    parentSeq: null,
    status: "completed",
    // OpenInference garbles a streamed reply's parallel tool calls (below): the reply is the one the app sent on.
    input: { ...input(messages), ...(oiStream && output.content === null ? { outputFromConversation: true } : {}) },
    output,
    error: null,
    usage,
  });
  return [
    model(0, [SYSTEM, USER], asked(LOOKUP, TIME_1)),
    tool(1, 0, LOOKUP, ORDER),
    tool(2, 0, TIME_1, "12:00:01Z"),
    model(3, [SYSTEM, USER, asked(LOOKUP, TIME_1), ...firstTurn], asked(TIME_2, REFUND)),
    tool(4, 3, TIME_2, "12:00:02Z"),
    // The tool threw; the app sent its error back as the tool's message, and that is all the trace says of it.
    tool(5, 3, REFUND, "Error: card processor unavailable"),
    model(6, [SYSTEM, USER, asked(LOOKUP, TIME_1), ...firstTurn, asked(TIME_2, REFUND), ...SECOND_ANSWERS], {
      role: "assistant",
      content: FINAL,
    }),
    {
      seq: 7,
      kind: "final_output",
      name: "final_output",
      parentSeq: 6,
      status: "completed",
      input: null,
      output: FINAL,
      error: null,
      usage: null,
    },
  ];
}

const shape = (events: readonly SessionEvent[]) =>
  events.map(({ seq, kind, name, parentSeq, status, input, output, error, usage }) => ({
    seq,
    kind,
    name,
    parentSeq,
    status,
    input,
    output,
    error,
    usage,
  }));

const RECORDED: Policy = {
  model: "recorded-only",
  drift: "continue_to_terminal",
  tools: toolLevelPreset("recorded-only"),
};

describe("the openai client's instrumentations, recorded", () => {
  it("every run has its protobuf twin, and OpenTelemetry's runs their log records", () => {
    for (const name of RUNS) {
      expect([name, recordings("json").has(name), recordings("bin").has(name)]).toEqual([name, true, true]);
      expect([name, logsOf(name) !== null]).toEqual([name, name.startsWith("otel")]);
    }
  });

  for (const name of RUNS)
    for (const ext of ["json", "bin"] as const) {
      it(`${name} (${ext}): the scripted session, each tool call read from the conversation`, async () => {
        const format = ext === "json" ? "otlp-json" : "otlp-protobuf";
        const spans = spansWithLogs(name, ext);
        const result = mapOtlpSpans(spans, { format });
        if (!result.ok) throw new Error(JSON.stringify(result.issues));
        expect(result.warnings).toEqual([]);
        expect(result.sessions).toHaveLength(1);
        const session = result.sessions[0]!;
        expect(shape(session.events)).toEqual(expectedSteps(name));
        expect(session.format).toBe(format);
        expect(session.title).toBe(USER.content);
        expect(session.agent).toEqual({ name: "branchpoint-recorder", adapter: "generic" });
        expect(detectAdapter(spans)).toBe("generic");
        expect(session.metadata).toMatchObject({
          conventions: [name.startsWith("otel") ? "genai" : "openinference"],
          serviceName: "branchpoint-recorder",
        });
        // OpenInference's session id (openinference-core's setSession) names the session; else the trace does.
        expect(session.externalId).toMatch(
          name.startsWith("otel") ? /^trace:[0-9a-f]{32}$/ : `session:session-${name}`,
        );
        // The tools the calls name; their schemas where the instrumentation records the request's (OpenInference).
        expect(session.tools.map((t) => [t.name, t.schema !== undefined])).toEqual(
          ["get_time", "lookup_order", "refund_payment"].map((tool) => [tool, !name.startsWith("otel")]),
        );
        // Timing: each step starts when it did; model calls and tool calls last as long as they took.
        for (const event of session.events) {
          expect(Date.parse(event.startedAt ?? "")).toBeGreaterThan(Date.parse("2026-01-01"));
          if (event.kind !== "final_output") expect(event.durationMs).toBeGreaterThanOrEqual(0);
        }
        const starts = session.events.map((e) => Date.parse(e.startedAt!));
        expect(starts).toEqual([...starts].sort((a, b) => a - b));
        // Identical calls, different results: occurrences 0 and 1 of one cache key.
        expect(session.events[2]!.cacheKey).toBe(session.events[4]!.cacheKey);
        expect([session.events[2]!.occurrence, session.events[4]!.occurrence]).toEqual([0, 1]);

        // Replayed under the recorded-only policy, the session comes back as it was recorded.
        const run = await replay({ base: session.events, policy: RECORDED });
        expect(run.comparability).toBe("exact");
        expect(run.steps.map((s) => s.source)).toEqual(session.events.map(() => "recorded"));
        const compared = compareRuns(session.events, run.steps);
        expect(compared.pairs.map((p) => p.type)).toEqual(session.events.map(() => "equal"));
        expect(compared.firstDivergence).toBeNull();
      });
    }

  it("OpenInference's streamed parallel tool calls, as it records them: one call, both run together", () => {
    const spans = spansOf(recordings("json").get("openinference-openai-chat-stream")!);
    const first = spans.find((s) => s.attributes["llm.finish_reason"] === "tool_calls")!;
    const prefix = "llm.output_messages.0.message.tool_calls";
    expect(Object.keys(first.attributes).filter((k) => k.startsWith(prefix))).toHaveLength(3);
    expect(first.attributes[`${prefix}.0.tool_call.id`]).toBe("call_lookup_1call_time_1");
    expect(first.attributes[`${prefix}.0.tool_call.function.name`]).toBe("lookup_orderget_time");
    expect(first.attributes[`${prefix}.0.tool_call.function.arguments`]).toBe('{"order_id":"4821"}{"zone":"UTC"}');
    // Alone (no later call to read the reply from), the model call keeps it as it came, its arguments unparsed.
    const alone = mapOtlpSpans([first]);
    if (!alone.ok) throw new Error(JSON.stringify(alone.issues));
    expect(alone.sessions[0]!.events[0]!.output).toEqual({
      role: "assistant",
      content: "",
      toolCalls: [
        {
          id: "call_lookup_1call_time_1",
          name: "lookup_orderget_time",
          args: '{"order_id":"4821"}{"zone":"UTC"}',
          argsUnparsed: true,
        },
      ],
    });
  });

  it("OpenTelemetry's spans alone carry no messages: the log records give every model call its conversation", () => {
    const bare = mapOtlpSpans(spansOf(recordings("json").get("otel-openai-chat")!));
    if (!bare.ok) throw new Error(JSON.stringify(bare.issues));
    const models = bare.sessions[0]!.events.filter((e) => e.kind === "model_call");
    expect(models.map((e) => (e.input as { messages: unknown[] }).messages)).toEqual([[], [], []]);
    expect(bare.sessions[0]!.events.filter((e) => e.kind === "tool_call")).toEqual([]);
  });
});
