import { comparableInputs } from "./compare";
import { readFileSync } from "node:fs";
import { createParser } from "eventsource-parser";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { AppError } from "@/lib/errors";
import { otlpJsonImporter } from "@/lib/ingest/otlp";
import { recordings } from "@/lib/ingest/otlp/testing";
import type { Message, ModelCallInput } from "@/lib/replay";
import { anthropicWire, parseAnthropicRequest, renderAnthropicJson } from "./anthropic";
import { startWireServer, type WireServer } from "./testing";
import type { WireAnswer } from "./types";

// `@anthropic-ai/sdk` is not installed in this repo (node_modules has no @anthropic-ai), so these
// tests speak the wire as it does: the same headers and body over fetch, and the SSE read with
// eventsource-parser into a message the way its MessageStream accumulates one (text_delta appended,
// input_json_delta concatenated and parsed at content_block_stop, message_delta's stop reason).

const CALL: Message = {
  role: "assistant",
  content: "Let me look.",
  toolCalls: [{ id: "toolu_01", name: "lookup_order", args: { order_id: "4821" } }],
};
const FINAL: Message = { role: "assistant", content: "Order 4821 was refunded in full." };
const answerOf = (message: Message, n: number): WireAnswer => ({
  message,
  usage: { inputTokens: 42, outputTokens: 7 },
  model: "claude-scripted",
  id: `msg_${n}`,
  created: 1_767_225_600,
});

let server: WireServer;
beforeAll(async () => {
  server = await startWireServer([{ method: "POST", path: "/v1/messages", format: anthropicWire }], (n, request) =>
    answerOf(request.input.tools && !request.input.messages.some((m) => m.role === "tool") ? CALL : FINAL, n),
  );
});
afterAll(() => server.close());

const post = (body: unknown) =>
  fetch(`${server.url}/v1/messages`, {
    method: "POST",
    headers: { "content-type": "application/json", "x-api-key": "bp-token", "anthropic-version": "2023-06-01" },
    body: JSON.stringify(body),
  });

const TOOL = {
  name: "lookup_order",
  description: "Look an order up by id",
  input_schema: { type: "object", properties: { order_id: { type: "string" } }, required: ["order_id"] },
};
const FIRST = {
  model: "claude-scripted",
  max_tokens: 1024,
  system: [{ type: "text", text: "You are a support agent.", cache_control: { type: "ephemeral" } }],
  messages: [{ role: "user", content: "Refund order 4821." }],
  tools: [TOOL],
};
const FOLLOW_UP = {
  ...FIRST,
  temperature: 0,
  messages: [
    ...FIRST.messages,
    {
      role: "assistant",
      content: [
        { type: "text", text: "Let me look." },
        { type: "tool_use", id: "toolu_01", name: "lookup_order", input: { order_id: "4821" } },
      ],
    },
    {
      role: "user",
      content: [
        { type: "tool_result", tool_use_id: "toolu_01", content: [{ type: "text", text: '{"status":"delivered"}' }] },
        { type: "text", text: "Go ahead." },
      ],
    },
  ],
};

type Block = Record<string, unknown>;
type StreamEvent = {
  type: string;
  index: number;
  message: Block & { content: Block[]; usage: Block };
  content_block: Block;
  delta: { type?: string; text?: string; partial_json?: string };
  usage: Block;
};

/** The message a stream builds, as the SDK's MessageStream accumulates it. */
async function accumulate(res: Response) {
  const events: string[] = [];
  let message: StreamEvent["message"] = { content: [], usage: {} };
  const json: string[] = [];
  const parser = createParser({
    onEvent: (e) => {
      events.push(e.event ?? "");
      const data = JSON.parse(e.data) as StreamEvent;
      expect(data.type).toBe(e.event);
      if (data.type === "message_start") message = data.message;
      if (data.type === "content_block_start") message.content[data.index] = data.content_block;
      if (data.type === "content_block_delta") {
        const block = message.content[data.index]!;
        if (data.delta.type === "text_delta") block.text = `${block.text as string}${data.delta.text}`;
        else json[data.index] = (json[data.index] ?? "") + data.delta.partial_json;
      }
      if (data.type === "content_block_stop" && message.content[data.index]!.type === "tool_use")
        message.content[data.index]!.input = JSON.parse(json[data.index]!);
      if (data.type === "message_delta") {
        Object.assign(message, data.delta);
        Object.assign(message.usage, data.usage);
      }
    },
  });
  const decoder = new TextDecoder();
  const reader = res.body!.getReader();
  for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read())
    parser.feed(decoder.decode(chunk.value, { stream: true }));
  return { events, message };
}

describe("the Anthropic Messages wire format over HTTP", () => {
  it("answers text and tool_use as JSON, and reads system, tool_use and tool_result blocks", async () => {
    const res = await post(FIRST);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({
      id: "msg_0",
      type: "message",
      role: "assistant",
      model: "claude-scripted",
      content: [
        { type: "text", text: "Let me look." },
        { type: "tool_use", id: "toolu_01", name: "lookup_order", input: { order_id: "4821" } },
      ],
      stop_reason: "tool_use",
      stop_sequence: null,
      usage: { input_tokens: 42, output_tokens: 7 },
    });
    const chatTool = { name: "lookup_order", description: "Look an order up by id", parameters: TOOL.input_schema };
    expect(server.parsed.at(-1)).toEqual({
      stream: false,
      model: "claude-scripted",
      input: {
        messages: [
          { role: "system", content: "You are a support agent." },
          { role: "user", content: "Refund order 4821." },
        ],
        model: "claude-scripted",
        tools: [chatTool],
      },
    });

    const second = await post(FOLLOW_UP);
    expect(((await second.json()) as { content: unknown }).content).toEqual([
      { type: "text", text: "Order 4821 was refunded in full." },
    ]);
    expect(server.parsed.at(-1)!.input).toEqual({
      model: "claude-scripted",
      temperature: 0,
      tools: [chatTool],
      messages: [
        { role: "system", content: "You are a support agent." },
        { role: "user", content: "Refund order 4821." },
        {
          role: "assistant",
          content: "Let me look.",
          toolCalls: [{ id: "toolu_01", name: "lookup_order", args: { order_id: "4821" } }],
        },
        { role: "tool", content: '{"status":"delivered"}', toolCallId: "toolu_01" },
        { role: "user", content: "Go ahead." },
      ],
    });
  });

  it("streams message_start to message_stop, and the accumulated message is the JSON answer", async () => {
    const res = await post({ ...FIRST, stream: true });
    expect(res.headers.get("content-type")).toBe("text/event-stream");
    const { events, message } = await accumulate(res);
    expect(events).toEqual([
      "message_start",
      "content_block_start",
      "content_block_delta",
      "content_block_delta",
      "content_block_delta",
      "content_block_stop",
      "content_block_start",
      "content_block_delta",
      "content_block_delta",
      "content_block_stop",
      "message_delta",
      "message_stop",
    ]);
    expect(message).toEqual(renderAnthropicJson(answerOf(CALL, server.parsed.length - 1)));
    expect(server.parsed.at(-1)!.stream).toBe(true);
  });

  it("refuses a bad body in Anthropic's error shape, naming the path", async () => {
    const res = await post({ ...FIRST, messages: [{ role: "assistant", content: [{ type: "tool_use", id: "x" }] }] });
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({
      type: "error",
      error: {
        type: "invalid_request_error",
        message: "The request body's messages[0].content[0].name is required.",
      },
    });
  });
});

describe("reading a Messages body", () => {
  const refusal = (body: unknown) => {
    try {
      parseAnthropicRequest(body);
    } catch (error) {
      expect(error).toBeInstanceOf(AppError);
      expect((error as AppError).code).toBe("invalid_input");
      return (error as AppError).issues[0]?.path;
    }
    throw new Error("expected a refusal");
  };

  it("keeps non-text blocks, reasoning and an assistant turn of tool calls only", () => {
    const image = { type: "image", source: { type: "base64", media_type: "image/png", data: "iVBORw0KGgo=" } };
    const read = parseAnthropicRequest({
      model: "m",
      system: "S",
      messages: [
        { role: "user", content: [image, { type: "text", text: "What is this?" }] },
        {
          role: "assistant",
          content: [
            { type: "thinking", thinking: "Hmm.", signature: "sig" },
            { type: "tool_use", id: "t1", name: "look", input: { deep: { x: [1] } } },
          ],
        },
        { role: "user", content: [{ type: "tool_result", tool_use_id: "t1", content: "seen", is_error: true }] },
      ],
    });
    expect(read.input.messages).toEqual([
      { role: "system", content: "S" },
      { role: "user", content: [image, { type: "text", content: "What is this?" }] },
      {
        role: "assistant",
        content: [{ type: "reasoning", content: "Hmm." }],
        toolCalls: [{ id: "t1", name: "look", args: { deep: { x: [1] } } }],
      },
      { role: "tool", content: "seen", toolCallId: "t1" },
    ]);
  });

  it("refuses wrong types by path, keeps __proto__ as data, and refuses a too-deep body", () => {
    expect(refusal(null)).toBe("");
    expect(refusal({ messages: [] })).toBe("model");
    expect(refusal({ model: "m" })).toBe("messages");
    expect(refusal({ model: "m", messages: {} })).toBe("messages");
    expect(refusal({ model: "m", max_tokens: "9", messages: [] })).toBe("max_tokens");
    expect(refusal({ model: "m", max_tokens: 0.5, messages: [] })).toBe("max_tokens");
    expect(refusal({ model: "m", messages: [{ role: "system", content: "x" }] })).toBe("messages[0].role");
    expect(refusal({ model: "m", messages: [{ role: "user", content: 5 }] })).toBe("messages[0].content");
    expect(refusal({ model: "m", system: [{ type: "image" }], messages: [] })).toBe("system[0].type");
    expect(refusal({ model: "m", messages: [], tools: [{ name: "t" }] })).toBe("tools[0].input_schema");
    expect(
      refusal({ model: "m", messages: [{ role: "assistant", content: [{ type: "tool_result", tool_use_id: "t" }] }] }),
    ).toBe("messages[0].content[0].type");

    const hostile = JSON.parse(
      '{"model":"m","__proto__":{"stream":true},"messages":[{"role":"assistant","content":[' +
        '{"type":"tool_use","id":"t","name":"f","input":{"__proto__":{"polluted":1}}}]}]}',
    ) as unknown;
    const read = parseAnthropicRequest(hostile);
    expect(read.stream).toBe(false);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(JSON.stringify(read.input.messages[0]!.toolCalls![0]!.args)).toBe('{"__proto__":{"polluted":1}}');

    let deep: unknown = {};
    for (let i = 0; i < 600; i++) deep = { a: deep };
    const path = refusal({
      model: "m",
      messages: [{ role: "assistant", content: [{ type: "tool_use", id: "t", name: "f", input: deep }] }],
    });
    expect(path).toMatch(/^messages\[0\]\.content\[0\]\.input(\.a)+$/);
  });
});

describe("fidelity with a recorded GenAI-convention session", () => {
  // No run of @anthropic-ai/sdk is recorded in the repo. The AI SDK 7 run recorded in the OTel GenAI
  // conventions (what an instrumented Anthropic client exports too) is: each of its model calls is
  // sent as the Messages request an Anthropic client would send for that conversation, and must read
  // back into the input the OTLP importer stored. The one inherent difference: a tool result the
  // recording kept as a JSON object can only travel to Anthropic as its text.
  it("reads each recorded conversation, sent as a Messages request, back into the stored input", async () => {
    const value = JSON.parse(readFileSync(recordings("json").get("ai7-genai-generate")![0]!, "utf8")) as unknown;
    const imported = otlpJsonImporter.import({ shape: "document", value }, {});
    if (!imported.ok) throw new Error(JSON.stringify(imported.issues));
    const calls = imported.sessions[0]!.events.filter((e) => e.kind === "model_call");
    expect(calls).toHaveLength(3);
    for (const call of calls) {
      const stored = call.input as ModelCallInput;
      const [system, ...rest] = stored.messages;
      expect(system).toMatchObject({ role: "system" });
      const messages: unknown[] = [];
      for (const m of rest) {
        if (m.role === "tool") {
          const result = {
            type: "tool_result",
            tool_use_id: m.toolCallId,
            content: typeof m.content === "string" ? m.content : JSON.stringify(m.content),
          };
          const last = messages.at(-1) as { role: string; content: unknown[] } | undefined;
          if (last?.role === "user" && Array.isArray(last.content)) last.content.push(result);
          else messages.push({ role: "user", content: [result] });
        } else if (m.role === "assistant")
          messages.push({
            role: "assistant",
            content: [
              ...(typeof m.content === "string" && m.content !== "" ? [{ type: "text", text: m.content }] : []),
              ...(m.toolCalls ?? []).map((c) => ({ type: "tool_use", id: c.id, name: c.name, input: c.args })),
            ],
          });
        else messages.push({ role: m.role, content: m.content });
      }
      const tools = (stored.tools ?? []) as { name: string; description: string; inputSchema: unknown }[];
      const res = await post({
        model: stored.model,
        max_tokens: 1024,
        ...(stored.temperature !== undefined ? { temperature: stored.temperature } : {}),
        system: system!.content,
        messages,
        tools: tools.map((t) => ({ name: t.name, description: t.description, input_schema: t.inputSchema })),
      });
      expect(res.status).toBe(200);
      const read = server.parsed.at(-1)!.input;
      const asText = stored.messages.map((m) =>
        m.role === "tool" && typeof m.content !== "string" ? { ...m, content: JSON.stringify(m.content) } : m,
      );
      const [live, recorded] = comparableInputs(read, { ...stored, messages: asText });
      expect(live).toEqual(recorded);
      expect(live.tools).toEqual(tools.map((t) => t.name));
    }
  });
});
