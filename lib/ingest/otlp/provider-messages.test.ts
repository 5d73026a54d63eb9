import { describe, expect, it } from "vitest";
import { importDocument } from "@/lib/ingest";
import { braintrustTrace } from "../__fixtures__/braintrust";
import { supportTrace } from "../__fixtures__/langfuse";
import { fromChatMessages, fromProviderAnswer } from "./messages";

// The providers' own message shapes, as the platforms (Langfuse, LangSmith, Phoenix, Braintrust) keep a
// generation's input and output when the SDK gave them as they came: read by the one chat-message reader.

const problems: string[] = [];
const problem = (m: string) => problems.push(m);

describe("provider-native tool calls", () => {
  it("reads Anthropic tool_use and tool_result blocks", () => {
    problems.length = 0;
    expect(
      fromChatMessages(
        [
          { role: "user", content: "Refund order 4821." },
          {
            role: "assistant",
            content: [
              { type: "text", text: "Looking it up." },
              { type: "tool_use", id: "toolu_1", name: "lookup_order", input: { order_id: "4821" } },
            ],
          },
          {
            role: "user",
            content: [
              { type: "tool_result", tool_use_id: "toolu_1", content: [{ type: "text", text: '{"status":"lost"}' }] },
            ],
          },
          {
            role: "user",
            content: [
              { type: "tool_result", tool_use_id: "toolu_2", content: "done" },
              { type: "text", text: "Thanks!" },
            ],
          },
        ],
        problem,
      ),
    ).toEqual([
      { role: "user", content: "Refund order 4821." },
      {
        role: "assistant",
        content: "Looking it up.",
        toolCalls: [{ id: "toolu_1", name: "lookup_order", args: { order_id: "4821" } }],
      },
      { role: "tool", content: '{"status":"lost"}', toolCallId: "toolu_1" },
      { role: "tool", content: "done", toolCallId: "toolu_2" },
      { role: "user", content: "Thanks!" },
    ]);
    expect(problems).toEqual([]);
  });

  it("reads OpenAI Responses items, a turn's function calls joined to its message", () => {
    problems.length = 0;
    expect(
      fromChatMessages(
        [
          { type: "message", role: "user", content: [{ type: "input_text", text: "Refund 4821." }] },
          { type: "message", role: "assistant", content: [{ type: "output_text", text: "Checking." }] },
          { type: "function_call", call_id: "call_1", name: "lookup_order", arguments: '{"order_id":"4821"}' },
          { type: "function_call", call_id: "call_2", name: "get_time", arguments: "not json" },
          { type: "function_call_output", call_id: "call_1", output: '{"status":"lost"}' },
        ],
        problem,
      ),
    ).toEqual([
      { role: "user", content: "Refund 4821." },
      {
        role: "assistant",
        content: "Checking.",
        toolCalls: [
          { id: "call_1", name: "lookup_order", args: { order_id: "4821" } },
          { id: "call_2", name: "get_time", args: "not json", argsUnparsed: true },
        ],
      },
      { role: "tool", content: '{"status":"lost"}', toolCallId: "call_1" },
    ]);
    expect(problems).toEqual([]);
  });

  it("reads Gemini functionCall and functionResponse parts", () => {
    problems.length = 0;
    expect(
      fromChatMessages(
        [
          { role: "user", parts: [{ text: "Refund 4821." }] },
          { role: "model", parts: [{ functionCall: { name: "lookup_order", args: { order_id: "4821" } } }] },
          { role: "user", parts: [{ functionResponse: { name: "lookup_order", response: { status: "lost" } } }] },
        ],
        problem,
      ),
    ).toEqual([
      { role: "user", content: "Refund 4821." },
      { role: "assistant", content: null, toolCalls: [{ id: "", name: "lookup_order", args: { order_id: "4821" } }] },
      { role: "tool", content: { status: "lost" }, toolCallId: "", name: "lookup_order" },
    ]);
    expect(problems).toEqual([]);
  });

  it("ties a Gemini functionResponse without an id to the n-th unanswered functionCall of its name", () => {
    problems.length = 0;
    const call = (id: string, name: string, args: Record<string, unknown>) => ({ functionCall: { id, name, args } });
    const response = (name: string, value: unknown) => ({ functionResponse: { name, response: value } });
    expect(
      fromChatMessages(
        [
          { role: "user", parts: [{ text: "Weather in Oslo and Rome, then the time in Oslo." }] },
          {
            role: "model",
            parts: [
              call("fc_1", "get_weather", { city: "Oslo" }),
              call("fc_2", "get_weather", { city: "Rome" }),
              call("fc_3", "get_time", { city: "Oslo" }),
            ],
          },
          // The time first, then both weathers in the order they were asked; the first answered by its id.
          { role: "user", parts: [response("get_time", { time: "10:00" })] },
          { role: "user", parts: [{ functionResponse: { id: "fc_1", name: "get_weather", response: { c: 3 } } }] },
          { role: "user", parts: [response("get_weather", { c: 19 })] },
          { role: "model", parts: [call("fc_4", "get_weather", { city: "Oslo" })] },
          { role: "user", parts: [response("get_weather", { c: 4 })] },
          // A response with no call of its name still unanswered keeps no id.
          { role: "user", parts: [response("get_weather", { c: 5 })] },
        ],
        problem,
      ).flatMap((m) => (m.role === "tool" ? [[m.name, m.toolCallId, m.content]] : [])),
    ).toEqual([
      ["get_time", "fc_3", { time: "10:00" }],
      ["get_weather", "fc_1", { c: 3 }],
      ["get_weather", "fc_2", { c: 19 }],
      ["get_weather", "fc_4", { c: 4 }],
      ["get_weather", "", { c: 5 }],
    ]);
    expect(problems).toEqual([]);
  });

  it("reads a whole answer: Responses output items or response, a Gemini response; anything else is not one", () => {
    const items = [
      { type: "reasoning", id: "rs_1", summary: [] },
      { type: "function_call", call_id: "call_9", name: "refund_payment", arguments: '{"amount":129}' },
    ];
    const answer = {
      role: "assistant",
      content: null,
      toolCalls: [{ id: "call_9", name: "refund_payment", args: { amount: 129 } }],
    };
    expect(fromProviderAnswer(items, problem)).toEqual(answer);
    expect(fromProviderAnswer({ object: "response", output: items }, problem)).toEqual(answer);
    expect(
      fromProviderAnswer(
        {
          candidates: [
            {
              content: {
                role: "model",
                parts: [{ text: "Refunding." }, { functionCall: { id: "fc_1", name: "refund_payment", args: {} } }],
              },
            },
          ],
        },
        problem,
      ),
    ).toEqual({
      role: "assistant",
      content: "Refunding.",
      toolCalls: [{ id: "fc_1", name: "refund_payment", args: {} }],
    });
    expect(fromProviderAnswer([{ type: "message", role: "assistant", content: "hi" }], problem)).toBeNull();
    expect(fromProviderAnswer({ weird: true }, problem)).toBeNull();
  });
});

describe("provider-native shapes through the platform mappers", () => {
  it("Langfuse: an Anthropic input and a Responses output become messages with their tool calls", () => {
    const trace = supportTrace("native-1");
    const generation = (trace.observations as Record<string, unknown>[]).find((o) => o.type === "GENERATION")!;
    generation.input = [
      { role: "user", content: "Refund order 4821." },
      {
        role: "assistant",
        content: [{ type: "tool_use", id: "toolu_1", name: "lookup_order", input: { order_id: "4821" } }],
      },
      { role: "user", content: [{ type: "tool_result", tool_use_id: "toolu_1", content: "lost" }] },
    ];
    generation.output = [
      { type: "function_call", call_id: "call_9", name: "refund_payment", arguments: '{"amount":129}' },
    ];
    const result = importDocument(JSON.stringify(trace));
    if (!result.ok) throw new Error(JSON.stringify(result.issues));
    const step = result.sessions[0]!.events[0]!;
    expect((step.input as { messages: unknown }).messages).toEqual([
      { role: "user", content: "Refund order 4821." },
      {
        role: "assistant",
        content: null,
        toolCalls: [{ id: "toolu_1", name: "lookup_order", args: { order_id: "4821" } }],
      },
      { role: "tool", content: "lost", toolCallId: "toolu_1" },
    ]);
    expect(step.output).toEqual({
      role: "assistant",
      content: null,
      toolCalls: [{ id: "call_9", name: "refund_payment", args: { amount: 129 } }],
    });
  });

  it("Braintrust: a Gemini response as an llm span's output", () => {
    const rows = braintrustTrace(1);
    const llm = rows.find((r) => r.metrics.prompt_tokens !== undefined)!;
    llm.output = {
      candidates: [
        { content: { role: "model", parts: [{ functionCall: { name: "lookup_order", args: { order_id: "1" } } }] } },
      ],
    };
    const result = importDocument(JSON.stringify(rows));
    if (!result.ok) throw new Error(JSON.stringify(result.issues));
    const step = result.sessions[0]!.events.find((e) => e.kind === "model_call")!;
    expect(step.output).toEqual({
      role: "assistant",
      content: null,
      toolCalls: [{ id: "", name: "lookup_order", args: { order_id: "1" } }],
    });
  });
});
