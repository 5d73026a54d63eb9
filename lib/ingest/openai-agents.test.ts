import { readFileSync } from "node:fs";
import path from "node:path";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { importOpenAiAgents, mapOpenAiAgentsItems, openAiAgentsGroupKey, openAiAgentsImporter } from "./openai-agents";
import { parseOpenAiAgentsExport, type AgentsItem } from "./openai-agents-parse";

const fixture = (name: string): unknown =>
  JSON.parse(readFileSync(path.join(path.dirname(new URL(import.meta.url).pathname), "__fixtures__", name), "utf8"));

const chat = fixture("openai-agents-chat.json");
const responses = fixture("openai-agents-responses.json");

describe("the recorded Agents SDK export, Chat Completions model (generation spans)", () => {
  const result = importOpenAiAgents(chat);

  it("maps to the scripted session, function spans tied to the generation's calls by order", () => {
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    expect(result.warnings).toEqual([]);
    expect(result.sessions).toHaveLength(1);
    const session = result.sessions[0]!;
    expect(session.externalId).toBe("group:group-openai-agents-chat");
    expect(session.agent).toEqual({ name: "Support agent", adapter: "openai-agents" });
    expect(session.format).toBe("openai-agents");
    expect(session.metadata).toMatchObject({
      groupId: "group-openai-agents-chat",
      workflowName: "Refund workflow",
      traceMetadata: { customer: "acme" },
    });
    const events = session.events;
    expect(events.map((e) => [e.seq, e.kind, e.name, e.status, e.parentSeq])).toEqual([
      [0, "model_call", "scripted-model", "completed", null],
      [1, "tool_call", "lookup_order", "completed", 0],
      [2, "tool_call", "get_time", "completed", 0],
      [3, "model_call", "scripted-model", "completed", null],
      [4, "tool_call", "get_time", "completed", 3],
      [5, "tool_call", "refund_payment", "failed", 3],
      [6, "model_call", "scripted-model", "completed", null],
      [7, "final_output", "final_output", "completed", 6],
    ]);
    expect(events.filter((e) => e.kind === "tool_call").map((e) => e.input)).toEqual([
      { callId: "call_lookup_1", args: { order_id: "4821" } },
      { callId: "call_time_1", args: { zone: "UTC" } },
      { callId: "call_time_2", args: { zone: "UTC" } },
      { callId: "call_refund_1", args: { order_id: "4821", amount: 129 } },
    ]);
    // Identical calls with different results stay apart.
    expect([events[2]!.output, events[4]!.output]).toEqual(["12:00:01Z", "12:00:02Z"]);
    expect([events[2]!.occurrence, events[4]!.occurrence]).toEqual([0, 1]);
    // Outputs stay the strings the model was shown.
    expect(events[1]!.output).toBe('{"order_id":"4821","status":"delivered","total":129}');
    expect(events[5]!.error).toEqual({
      type: "ToolError",
      message: "Error running tool (non-fatal): Tool execution failed. Error details are redacted.",
    });
    expect(events[0]!.usage).toEqual({ inputTokens: 42, outputTokens: 7 });
    expect(events[0]!.input).toMatchObject({
      model: "scripted-model",
      temperature: 0,
      messages: [
        { role: "system", content: "You are a support agent. Use the tools." },
        { role: "user", content: "Refund order 4821 and tell me what time it is." },
      ],
    });
    expect((events[6]!.input as { messages: unknown[] }).messages).toHaveLength(8);
    expect(events[7]!.output).toBe("Order 4821 was found, but the refund failed: the card processor is unavailable.");
  });
});

describe("the recorded Agents SDK export, Responses model (response spans)", () => {
  it("keeps the steps, tool calls under the response that preceded them, ids from the spans", () => {
    const result = importOpenAiAgents(responses);
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    const session = result.sessions[0]!;
    const events = session.events;
    expect(events.map((e) => [e.kind, e.parentSeq])).toEqual([
      ["model_call", null],
      ["tool_call", 0],
      ["tool_call", 0],
      ["model_call", null],
      ["tool_call", 3],
      ["tool_call", 3],
      ["model_call", null],
    ]);
    expect(events[0]!.input).toEqual({ messages: [], responseId: "resp_0" });
    const tools = events.filter((e) => e.kind === "tool_call");
    expect(tools.map((e) => e.name).sort()).toEqual(["get_time", "get_time", "lookup_order", "refund_payment"]);
    expect(tools.find((e) => e.name === "refund_payment")?.status).toBe("failed");
    const times = tools.filter((e) => e.name === "get_time");
    expect(times.map((e) => [e.output, e.occurrence])).toEqual([
      ["12:00:01Z", 0],
      ["12:00:02Z", 1],
    ]);
    for (const t of tools) expect((t.input as { callId: string }).callId).toMatch(/^span_/);
    expect(session.metadata.modelContent).toMatch(/response id/);
  });
});

function items(body: unknown): AgentsItem[] {
  const parsed = parseOpenAiAgentsExport(body);
  if (!parsed.ok) throw new Error(JSON.stringify(parsed.issues));
  return parsed.items;
}

describe("batching invariance", () => {
  for (const [name, body] of [
    ["chat", chat],
    ["responses", responses],
  ] as const) {
    it(name, () => {
      const all = items(body);
      const baseline = mapOpenAiAgentsItems(all);
      fc.assert(
        fc.property(
          fc.shuffledSubarray(all, { minLength: all.length, maxLength: all.length }),
          fc.array(fc.nat(all.length - 1), { maxLength: 6 }),
          fc.nat(5),
          (shuffled, dupes, cut) => {
            const stored: AgentsItem[] = [];
            const batches = [shuffled.slice(0, cut), shuffled.slice(cut), dupes.map((i) => all[i]!)];
            let last = null;
            for (const batch of batches) {
              stored.push(...batch);
              if (stored.length > 0) last = mapOpenAiAgentsItems(stored);
            }
            expect(last).toEqual(baseline);
          },
        ),
        { numRuns: 50 },
      );
    });
  }

  it("groups spans by trace and traces by group id", () => {
    const all = items(chat);
    const trace = all.find((i) => i.object === "trace")!;
    const span = all.find((i) => i.object === "trace.span")!;
    expect(openAiAgentsGroupKey(trace)).toBe("group:group-openai-agents-chat");
    expect(openAiAgentsGroupKey(span)).toBe(`trace:${trace.object === "trace" ? trace.id : ""}`);
    // Without the trace item, the spans still make a session, keyed by trace.
    const spansOnly = mapOpenAiAgentsItems(all.filter((i) => i.object === "trace.span"));
    expect(spansOnly.ok && spansOnly.sessions[0]!.externalId).toBe(openAiAgentsGroupKey(span));
  });
});

describe("bad input: every problem at its exact path", () => {
  it("rejects a body that is not an export", () => {
    expect(importOpenAiAgents([])).toMatchObject({ ok: false, issues: [{ path: "", message: /"data"/ }] });
  });

  it("reports each malformed item", () => {
    const ok = (over: Record<string, unknown>) => ({
      object: "trace.span",
      id: "span_1",
      trace_id: "trace_1",
      parent_id: null,
      started_at: "2026-01-01T00:00:00.000Z",
      ended_at: "2026-01-01T00:00:01.000Z",
      span_data: { type: "function", name: "f", input: "{}", output: "x" },
      error: null,
      ...over,
    });
    const result = importOpenAiAgents({
      data: [
        7,
        ok({ id: undefined }),
        ok({ trace_id: 5 }),
        ok({ started_at: "yesterday" }),
        ok({ span_data: { name: "f" } }),
        ok({ error: "boom" }),
        { object: "trace", workflow_name: "w" },
        { object: "something.else" },
      ],
    });
    expect(result).toEqual({
      ok: false,
      format: "openai-agents",
      issues: [
        { path: "data[0]", message: "must be an object (a trace or a trace.span)" },
        { path: "data[1].id", message: "is required" },
        { path: "data[2].trace_id", message: "must be a non-empty string" },
        { path: "data[3].started_at", message: "must be an ISO 8601 date-time" },
        { path: "data[4].span_data.type", message: "must be a non-empty string" },
        { path: "data[5].error", message: "must be null or { message, data? }" },
        { path: "data[6].id", message: "is required" },
      ],
    });
  });

  it("degrades on what one span says: unparseable input is kept as text, with a warning", () => {
    const result = importOpenAiAgents({
      data: [
        {
          object: "trace.span",
          id: "span_1",
          trace_id: "trace_1",
          parent_id: null,
          started_at: "2026-01-01T00:00:00.000Z",
          ended_at: null,
          span_data: { type: "function", name: "f", input: "{nope", output: null },
          error: null,
        },
      ],
    });
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    expect(result.sessions[0]!.events[0]).toMatchObject({
      kind: "tool_call",
      status: "incomplete",
      input: { callId: "span_1", args: "{nope", argsUnparsed: true },
      parentSeq: null,
    });
    expect(result.warnings).toEqual([
      { path: "data[0].span_data.input", message: "span span_1: is not valid JSON: kept as text (argsUnparsed)" },
    ]);
  });
});

describe("handoffs", () => {
  const generation = (id: string, at: string, input: unknown[], message: Record<string, unknown>) => ({
    object: "trace.span",
    id,
    trace_id: "trace_handoff",
    parent_id: null,
    started_at: `2026-01-01T00:00:0${at}.000Z`,
    ended_at: `2026-01-01T00:00:0${at}.500Z`,
    span_data: { type: "generation", model: "m", input, output: [{ choices: [{ index: 0, message }] }] },
    error: null,
  });
  const ask = {
    role: "assistant",
    content: null,
    tool_calls: [
      { id: "call_handoff", type: "function", function: { name: "transfer_to_Refund_agent", arguments: "{}" } },
    ],
  };

  it("a handoff answered in the conversation is not a tool step: the SDK traces its tools itself", () => {
    const result = importOpenAiAgents({
      data: [
        generation("span_triage", "1", [{ role: "user", content: "Refund order 4821." }], ask),
        {
          object: "trace.span",
          id: "span_handoff",
          trace_id: "trace_handoff",
          parent_id: null,
          started_at: "2026-01-01T00:00:01.600Z",
          ended_at: "2026-01-01T00:00:01.700Z",
          span_data: { type: "handoff", from_agent: "Triage agent", to_agent: "Refund agent" },
          error: null,
        },
        generation(
          "span_refund",
          "2",
          [
            { role: "user", content: "Refund order 4821." },
            ask,
            { role: "tool", tool_call_id: "call_handoff", content: '{"assistant": "Refund agent"}' },
          ],
          { role: "assistant", content: "Refunded order 4821." },
        ),
      ],
    });
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    expect(result.sessions[0]!.events.map((e) => [e.kind, e.name])).toEqual([
      ["model_call", "m"],
      ["model_call", "m"],
      ["final_output", "final_output"],
    ]);
  });
});

describe("registry importer", () => {
  it("detects and imports an export document", () => {
    expect(openAiAgentsImporter.detect({ shape: "document", value: chat }, {})).toBe(true);
    expect(openAiAgentsImporter.detect({ shape: "document", value: { resourceSpans: [] } }, {})).toBe(false);
    const outcome = openAiAgentsImporter.import({ shape: "document", value: chat }, {});
    expect(outcome.ok && outcome.sessions).toHaveLength(1);
  });
});
