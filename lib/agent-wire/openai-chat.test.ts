import { describe, expect, it } from "vitest";
import { importDocument } from "@/lib/ingest";
import { deepEqual, type Message } from "@/lib/replay";
import { openAiChat } from "./openai-chat";

const TOOLS = [
  { type: "function", function: { name: "lookup", description: "Look up", parameters: { type: "object" } } },
];
const MESSAGES = [
  { role: "system", content: "Be brief." },
  { role: "user", content: "Order 1?" },
  {
    role: "assistant",
    content: null,
    tool_calls: [
      { id: "a", type: "function", function: { name: "lookup", arguments: '{"id":1}' } },
      { id: "b", type: "function", function: { name: "lookup", arguments: '{"id":2}' } },
    ],
  },
  { role: "tool", tool_call_id: "a", content: "one" },
  { role: "tool", tool_call_id: "b", content: "two" },
  { role: "assistant", content: "Done." },
];

describe("OpenAI Chat Completions wire format", () => {
  it("reads a live request into exactly the input the chat-log importer records for the same call", () => {
    const imported = importDocument(
      JSON.stringify({ model: "gpt-x", temperature: 0.2, tools: TOOLS, messages: MESSAGES }),
      {
        filename: "log.json",
      },
    );
    if (!imported.ok) throw new Error(JSON.stringify(imported.issues));
    const recorded = imported.sessions[0]!.events.filter((e) => e.kind === "model_call");
    // The second model call's input: everything before the last assistant message.
    const live = openAiChat.parseRequest({
      model: "gpt-x",
      temperature: 0.2,
      tools: TOOLS,
      messages: MESSAGES.slice(0, 5).map((m) => ({ ...m, refusal: null })),
      stream: true,
      stream_options: { include_usage: true },
    });
    expect(live.stream).toBe(true);
    expect(deepEqual(live.input, recorded[1]!.input)).toBe(true);
  });

  it("writes parallel tool calls back as JSON and as SSE chunks a client reassembles", () => {
    const message: Message = {
      role: "assistant",
      content: null,
      toolCalls: [
        { id: "a", name: "lookup", args: { id: 1 } },
        { id: "b", name: "lookup", args: { id: 2 } },
      ],
    };
    const answer = {
      message,
      usage: { inputTokens: 3, outputTokens: 4 },
      model: "gpt-x",
      id: "chatcmpl-1",
      created: 1,
    };
    expect(openAiChat.renderJson(answer)).toMatchObject({
      choices: [
        {
          finish_reason: "tool_calls",
          message: {
            content: null,
            tool_calls: [
              { id: "a", type: "function", function: { name: "lookup", arguments: '{"id":1}' } },
              { id: "b", type: "function", function: { name: "lookup", arguments: '{"id":2}' } },
            ],
          },
        },
      ],
      usage: { prompt_tokens: 3, completion_tokens: 4, total_tokens: 7 },
    });
    const events = openAiChat.renderStream(answer);
    expect(events.at(-1)).toBe("data: [DONE]\n\n");
    const deltas = events
      .slice(0, -1)
      .map(
        (e) => JSON.parse(e.slice("data: ".length)) as { choices: { delta: { tool_calls?: { index: number }[] } }[] },
      );
    expect(deltas.flatMap((d) => d.choices.flatMap((c) => c.delta.tool_calls ?? []).map((t) => t.index))).toEqual([
      0, 1,
    ]);
  });

  it("refuses a malformed request naming the path", () => {
    expect(() => openAiChat.parseRequest({ model: "m", messages: [{ role: "tool" }] })).toThrow(/messages\[0\]/);
  });
});
