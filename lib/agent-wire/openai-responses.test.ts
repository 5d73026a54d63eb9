import OpenAI from "openai";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { AppError } from "@/lib/errors";
import type { Message } from "@/lib/replay";
import { openAiResponsesWire, parseResponsesRequest, renderModelsList } from "./openai-responses";
import { startWireServer, type WireServer } from "./testing";
import type { WireAnswer } from "./types";

const CALL: Message = {
  role: "assistant",
  content: null,
  toolCalls: [{ id: "call_lookup_1", name: "lookup_order", args: { order_id: "4821" } }],
};
const FINAL: Message = { role: "assistant", content: "Order 4821 was refunded in full." };

const answerOf = (message: Message, n: number): WireAnswer => ({
  message,
  usage: { inputTokens: 42, outputTokens: 7 },
  model: "scripted-model",
  id: `resp_${n}`,
  created: 1_767_225_600,
});

const TOOL = {
  type: "function" as const,
  name: "lookup_order",
  description: "Look an order up by id",
  parameters: {
    type: "object",
    properties: { order_id: { type: "string" } },
    required: ["order_id"],
    additionalProperties: false,
  },
  strict: true,
};
const CHAT_TOOL = { name: "lookup_order", description: "Look an order up by id", parameters: TOOL.parameters };

let server: WireServer;
let client: OpenAI;
// A request with tools whose conversation does not end in a tool result gets the tool call; others the text.
beforeAll(async () => {
  server = await startWireServer(
    [{ method: "POST", path: "/v1/responses", format: openAiResponsesWire }],
    (n, request) => answerOf(request.input.tools && request.input.messages.at(-1)?.role !== "tool" ? CALL : FINAL, n),
    { "/v1/models": renderModelsList(["scripted-model", "gpt-4.1"], 1_767_225_600) },
  );
  client = new OpenAI({ baseURL: `${server.url}/v1`, apiKey: "bp-token", maxRetries: 0 });
});
afterAll(() => server.close());

const USER = "Refund order 4821.";
const SYSTEM = "You are a support agent.";

describe("the OpenAI Responses wire format, driven by the openai client", () => {
  it("answers a tool call and then the text as JSON, and reads the follow-up's function_call items", async () => {
    const first = await client.responses.create({
      model: "scripted-model",
      instructions: SYSTEM,
      input: USER,
      tools: [TOOL],
      temperature: 0,
    });
    const call = first.output[0];
    expect(first.output).toHaveLength(1);
    expect(call).toMatchObject({ type: "function_call", call_id: "call_lookup_1", name: "lookup_order" });
    expect(call?.type === "function_call" && JSON.parse(call.arguments)).toEqual({ order_id: "4821" });
    expect(first.usage).toMatchObject({ input_tokens: 42, output_tokens: 7, total_tokens: 49 });
    expect(server.parsed.at(-1)).toEqual({
      stream: false,
      model: "scripted-model",
      input: {
        messages: [
          { role: "system", content: SYSTEM },
          { role: "user", content: USER },
        ],
        model: "scripted-model",
        temperature: 0,
        tools: [CHAT_TOOL],
      },
    });

    const second = await client.responses.create({
      model: "scripted-model",
      instructions: SYSTEM,
      input: [
        { role: "user", content: [{ type: "input_text", text: USER }] },
        ...first.output.map((item) => item as OpenAI.Responses.ResponseFunctionToolCall),
        { type: "function_call_output", call_id: "call_lookup_1", output: '{"status":"delivered"}' },
      ],
      tools: [TOOL],
    });
    expect(second.output_text).toBe("Order 4821 was refunded in full.");
    expect(server.parsed.at(-1)!.input.messages).toEqual([
      { role: "system", content: SYSTEM },
      { role: "user", content: USER },
      {
        role: "assistant",
        content: null,
        toolCalls: [{ id: "call_lookup_1", name: "lookup_order", args: { order_id: "4821" } }],
      },
      { role: "tool", content: '{"status":"delivered"}', toolCallId: "call_lookup_1" },
    ]);
  });

  it("streams the same turns as events the client's ResponseStream accumulates", async () => {
    const raw = await client.responses.create({ model: "scripted-model", input: USER, tools: [TOOL], stream: true });
    const types: string[] = [];
    const deltas: string[] = [];
    for await (const event of raw) {
      types.push(event.type);
      if (event.type === "response.function_call_arguments.delta") deltas.push(event.delta);
    }
    expect(types).toEqual([
      "response.created",
      "response.in_progress",
      "response.output_item.added",
      "response.function_call_arguments.delta",
      "response.function_call_arguments.delta",
      "response.function_call_arguments.done",
      "response.output_item.done",
      "response.completed",
    ]);
    expect(JSON.parse(deltas.join(""))).toEqual({ order_id: "4821" });
    expect(server.parsed.at(-1)!.stream).toBe(true);

    const stream = client.responses.stream({ model: "scripted-model", input: USER });
    const texts: string[] = [];
    stream.on("response.output_text.delta", (e) => texts.push(e.delta));
    const final = await stream.finalResponse();
    expect(final.output_text).toBe("Order 4821 was refunded in full.");
    expect(texts.join("")).toBe("Order 4821 was refunded in full.");
    expect(texts.length).toBeGreaterThan(1);
    expect(final.usage?.total_tokens).toBe(49);
  });

  it("lists models, and raises a refused body as the client's own APIError naming the path", async () => {
    const models = await client.models.list();
    expect(models.data.map((m) => m.id)).toEqual(["scripted-model", "gpt-4.1"]);

    const bad = client.responses.create({
      model: "scripted-model",
      input: [{ type: "function_call", call_id: "c1", name: "", arguments: "{}" }],
    } as never);
    await expect(bad).rejects.toMatchObject({
      status: 400,
      code: "invalid_input",
      type: "invalid_request_error",
      message: expect.stringContaining("input[0].name must not be empty") as string,
    });
    expect(server.refused.at(-1)?.status).toBe(400);
  });
});

describe("reading a Responses body", () => {
  const parse = (body: unknown) => parseResponsesRequest(body);
  const refusal = (body: unknown): { message: string; path: string | undefined } => {
    try {
      parse(body);
    } catch (error) {
      expect(error).toBeInstanceOf(AppError);
      expect((error as AppError).code).toBe("invalid_input");
      return { message: (error as AppError).message, path: (error as AppError).issues[0]?.path };
    }
    throw new Error("expected a refusal");
  };

  it("groups a turn's text and calls as the Agents SDK's converter does, and keeps unparsed arguments as text", () => {
    const input = parse({
      model: "m",
      input: [
        { role: "developer", content: "Be brief." },
        {
          type: "message",
          role: "user",
          content: [
            { type: "input_text", text: "a" },
            { type: "input_text", text: "b" },
          ],
        },
        { type: "reasoning", id: "rs_1", summary: [] },
        { type: "message", role: "assistant", content: [{ type: "output_text", text: "Looking.", annotations: [] }] },
        { type: "function_call", call_id: "c1", name: "f", arguments: '{"x":1}' },
        { type: "function_call", call_id: "c2", name: "g", arguments: "{not json" },
        { type: "function_call_output", call_id: "c1", output: [{ type: "input_text", text: "one" }] },
        { type: "function_call_output", call_id: "c2", output: "two" },
      ],
    }).input;
    expect(input).toEqual({
      model: "m",
      messages: [
        { role: "system", content: "Be brief." },
        { role: "user", content: "ab" },
        {
          role: "assistant",
          content: "Looking.",
          toolCalls: [
            { id: "c1", name: "f", args: { x: 1 } },
            { id: "c2", name: "g", args: "{not json", argsUnparsed: true },
          ],
        },
        { role: "tool", content: "one", toolCallId: "c1" },
        { role: "tool", content: "two", toolCallId: "c2" },
      ],
    });
  });

  it("refuses wrong types and unsupported items with the exact path, and never a prototype", () => {
    expect(refusal([1]).message).toBe("The request body's top level must be a JSON object.");
    expect(refusal({ input: "x" }).path).toBe("model");
    expect(refusal({ model: "m" }).path).toBe("input");
    expect(refusal({ model: "m", input: 3 }).path).toBe("input");
    expect(refusal({ model: "m", input: "x", stream: "yes" }).path).toBe("stream");
    expect(refusal({ model: "m", input: [{ role: "wizard", content: "x" }] }).path).toBe("input[0].role");
    expect(refusal({ model: "m", input: [{ role: "user", content: [{ type: "input_text" }] }] }).path).toBe(
      "input[0].content[0].text",
    );
    expect(refusal({ model: "m", input: [{ type: "item_reference", id: "x" }] }).message).toContain(
      'input[0].type is "item_reference"',
    );
    expect(refusal({ model: "m", input: "x", previous_response_id: "resp_1" }).path).toBe("previous_response_id");
    expect(refusal({ model: "m", input: "x", tools: [{ type: "function" }] }).path).toBe("tools[0].name");

    const hostile = JSON.parse(
      '{"model":"m","__proto__":{"polluted":1},"input":[{"role":"user","content":"x","__proto__":{"role":"tool"}},' +
        '{"type":"function_call","call_id":"c","name":"f","arguments":"{\\"__proto__\\":{\\"polluted\\":2}}"}]}',
    ) as unknown;
    const read = parse(hostile).input;
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(read.messages[0]).toEqual({ role: "user", content: "x" });
    expect(Object.getPrototypeOf(read.messages[1]!.toolCalls![0]!.args)).toBe(Object.prototype);
    expect(JSON.stringify(read.messages[1]!.toolCalls![0]!.args)).toBe('{"__proto__":{"polluted":2}}');
    // `constructor` is inherited by every object: it is not a field that was sent.
    expect(refusal({ input: "x", constructor: "m" }).path).toBe("model");
  });

  it("refuses a too-deep body by path and reads a huge one whole", () => {
    let deep: unknown = "x";
    for (let i = 0; i < 600; i++) deep = [deep];
    const r = refusal({ model: "m", input: [{ role: "user", content: [{ type: "weird", data: deep }] }] });
    expect(r.path).toMatch(/^input\[0\]\.content\[0\]\.data(\[0\])+$/);
    expect(r.message).toContain("more than 512 levels deep");

    const args = JSON.stringify({ nested: JSON.parse("[".repeat(600) + "]".repeat(600)) as unknown });
    const deepArgs = parse({
      model: "m",
      input: [{ type: "function_call", call_id: "c", name: "f", arguments: args }],
    });
    expect(deepArgs.input.messages[0]!.toolCalls![0]).toMatchObject({ argsUnparsed: true, args });

    const items = Array.from({ length: 20_000 }, (_, i) => ({ role: "user", content: `m${i}` }));
    const huge = parse({ model: "m", input: items });
    expect(huge.input.messages).toHaveLength(20_000);
    expect(huge.input.messages[19_999]).toEqual({ role: "user", content: "m19999" });
  });
});
