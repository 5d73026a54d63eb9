import { describe, expect, it } from "vitest";
import { decodeOtlpJson } from "./decode";
import { otlpExport, type SpanSpec } from "./genai-testing";
import { mapOtlpSpans } from "./map";

// The GenAI shapes the route test does not send: the other event forms of a
// model call's messages, workflows, MCP requests that are not tool calls, and
// what a mistyped event says.

const TRACE = "f0".repeat(16);

function mapped(specs: SpanSpec[]) {
  const decoded = decodeOtlpJson(otlpExport(specs));
  if (!decoded.ok) throw new Error(JSON.stringify(decoded.issues));
  return mapOtlpSpans(decoded.spans);
}

const chat = (id: string, start: number, events: SpanSpec["events"], attrs: SpanSpec["attrs"] = {}): SpanSpec => ({
  trace: TRACE,
  id,
  parent: "f000000000000001",
  name: "chat gpt-4.1",
  start,
  end: start + 10,
  attrs: { "gen_ai.operation.name": "chat", "gen_ai.request.model": "gpt-4.1", ...attrs },
  events,
});

describe("GenAI spans", () => {
  it("reads a model call's messages from an operation-details event or the oldest prompt/completion events", () => {
    const result = mapped([
      {
        trace: TRACE,
        id: "f000000000000001",
        name: "invoke_workflow refunds",
        start: 0,
        end: 100,
        attrs: { "gen_ai.operation.name": "invoke_workflow", "gen_ai.workflow.name": "refunds" },
      },
      chat("f000000000000002", 10, [
        {
          name: "gen_ai.client.inference.operation.details",
          at: 19,
          attrs: {
            "gen_ai.system_instructions": [{ type: "text", content: "Be brief." }],
            "gen_ai.input.messages": '[{"role":"user","parts":[{"type":"text","content":"Refund 12?"}]}]',
            "gen_ai.output.messages": [{ role: "assistant", parts: [{ type: "text", content: "Done." }] }],
          },
        },
      ]),
      chat("f000000000000003", 30, [
        {
          name: "gen_ai.content.prompt",
          at: 31,
          attrs: { "gen_ai.prompt": '[{"role":"user","content":"And 13?"}]' },
        },
        { name: "gen_ai.content.completion", at: 39, attrs: { "gen_ai.completion": "Also done." } },
      ]),
    ]);
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    expect(result.warnings).toEqual([]);
    const events = result.sessions[0]!.events;
    expect(events.map((e) => [e.kind, e.input, e.output])).toEqual([
      [
        "model_call",
        {
          messages: [
            { role: "system", content: "Be brief." },
            { role: "user", content: "Refund 12?" },
          ],
          model: "gpt-4.1",
          agent: "refunds",
        },
        { role: "assistant", content: "Done." },
      ],
      ["user_message", null, "And 13?"],
      [
        "model_call",
        { messages: [{ role: "user", content: "And 13?" }], model: "gpt-4.1", agent: "refunds" },
        { role: "assistant", content: "Also done." },
      ],
      ["final_output", null, "Also done."],
    ]);
    // The workflow is the session's agent.
    expect(result.sessions[0]!.agent.name).toBe("refunds");
  });

  it("keeps MCP requests that are not tool calls as steps naming the method, and leaves the protocol's plumbing out", () => {
    const mcp = (id: string, start: number, method: string, name: string, attrs: SpanSpec["attrs"] = {}): SpanSpec => ({
      trace: TRACE,
      id,
      name,
      kind: 3,
      start,
      end: start + 1,
      attrs: { "mcp.method.name": method, ...attrs },
    });
    const result = mapped([
      mcp("f000000000000011", 0, "initialize", "initialize"),
      mcp("f000000000000012", 2, "tools/list", "tools/list"),
      mcp("f000000000000013", 4, "notifications/initialized", "notifications/initialized"),
      mcp("f000000000000014", 6, "resources/read", "resources/read", { "mcp.resource.uri": "file:///orders.csv" }),
      mcp("f000000000000015", 8, "tasks/get", "tasks/get"),
    ]);
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    expect(result.sessions[0]!.events.map((e) => [e.name, e.input])).toEqual([
      [
        "resources/read",
        { callId: "f000000000000014", args: { uri: "file:///orders.csv" }, operation: "resources/read" },
      ],
      ["tasks/get", { callId: "f000000000000015", args: {}, operation: "tasks/get", unrecognized: true }],
    ]);
  });

  it("a per-message event whose content is not JSON is a warning at that event, and the rest is read", () => {
    const result = mapped([
      chat("f000000000000021", 0, [
        { name: "gen_ai.user.message", at: 1, attrs: { "gen_ai.event.content": "{not json" } },
        { name: "gen_ai.user.message", at: 1, attrs: { content: "Hello" } },
        { name: "gen_ai.choice", at: 9, attrs: { index: 0, content: "Hi." } },
      ]),
    ]);
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    expect(result.warnings).toEqual([
      {
        path: "resourceSpans[0].scopeSpans[0].spans[0]",
        message: expect.stringMatching(
          /^span f000000000000021 \(chat gpt-4\.1\): event 0 \(gen_ai\.user\.message\): gen_ai\.event\.content is not valid JSON/,
        ) as unknown,
      },
    ]);
    expect(result.sessions[0]!.events[0]!.input).toEqual({
      messages: [{ role: "user", content: "Hello" }],
      model: "gpt-4.1",
    });
  });

  it("keeps an agent's id and description beside its name on the steps it made, never in the name", () => {
    const result = mapped([
      {
        trace: TRACE,
        id: "f000000000000001",
        name: "invoke_agent Triage",
        start: 0,
        end: 100,
        attrs: {
          "gen_ai.operation.name": "invoke_agent",
          "gen_ai.agent.name": "Triage",
          "gen_ai.agent.id": "asst_7Kq",
          "gen_ai.agent.description": "Sends each request to the desk that handles it.",
        },
      },
      chat("f000000000000002", 10, []),
      {
        trace: TRACE,
        id: "f000000000000003",
        parent: "f000000000000001",
        name: "execute_tool lookup_order",
        start: 30,
        end: 40,
        attrs: {
          "gen_ai.operation.name": "execute_tool",
          "gen_ai.tool.name": "lookup_order",
          "gen_ai.tool.call.id": "call_1",
          "gen_ai.tool.call.arguments": '{"order_id":"4821"}',
          "gen_ai.agent.id": "asst_override",
        },
      },
    ]);
    if (!result.ok) throw new Error(JSON.stringify(result.issues));
    const [session] = result.sessions;
    expect(session!.agent.name).toBe("Triage");
    expect(session!.events.map((e) => e.input)).toEqual([
      {
        messages: [],
        model: "gpt-4.1",
        agent: "Triage",
        agentId: "asst_7Kq",
        agentDescription: "Sends each request to the desk that handles it.",
      },
      {
        callId: "call_1",
        args: { order_id: "4821" },
        agent: "Triage",
        agentId: "asst_override",
        agentDescription: "Sends each request to the desk that handles it.",
      },
    ]);
  });
});
