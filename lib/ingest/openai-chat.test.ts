import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import type { SessionEvent } from "@/lib/replay";
import { importDocument, type ImportedSession, type ImportResult } from "@/lib/ingest";

const SAMPLE_PATH = path.resolve(import.meta.dirname, "../../prisma/seed/tau-bench/gpt-4o-airline.sample.json");
const sampleText = readFileSync(SAMPLE_PATH, "utf8");
type TauMessage = { role: string; content: string | null; tool_calls?: { id: string; function: { name: string } }[] };
const sample = JSON.parse(sampleText) as { task_id: number; trial: number; reward: number; traj: TauMessage[] }[];

function sessionsOf(result: ImportResult): ImportedSession[] {
  if (!result.ok) throw new Error(`expected ok, got ${JSON.stringify(result.issues)}`);
  return result.sessions;
}
const issuesOf = (result: ImportResult) => {
  if (result.ok) throw new Error("expected issues, got ok");
  return result.issues;
};
const toolCalls = (session: ImportedSession) => session.events.filter((event) => event.kind === "tool_call");
const count = (session: ImportedSession, kind: SessionEvent["kind"]) =>
  session.events.filter((event) => event.kind === kind).length;

describe("τ-bench airline sample (real data)", () => {
  const result = importDocument(sampleText, { filename: "gpt-4o-airline.sample.json" });
  const sessions = sessionsOf(result);

  it("detects openai-chat and yields one session per trajectory", () => {
    expect(result.format).toBe("openai-chat");
    expect(sessions.map((s) => s.externalId)).toEqual([
      "tau-bench:airline:task-0:trial-0",
      "tau-bench:airline:task-1:trial-0",
      "tau-bench:airline:task-12:trial-0",
      "tau-bench:airline:task-13:trial-0",
      "tau-bench:airline:task-18:trial-0",
      "tau-bench:airline:task-33:trial-0",
      "tau-bench:airline:task-0:trial-3",
    ]);
  });

  // Counted independently from the raw file: model calls = assistant messages, tool calls = requested
  // calls, user messages = user turns after the first assistant message, +1 final output when the
  // last assistant message requested no tools.
  it.each([
    [0, { model_call: 15, tool_call: 8, user_message: 7, final_output: 1, total: 31 }],
    [1, { model_call: 5, tool_call: 0, user_message: 5, final_output: 1, total: 11 }],
    [2, { model_call: 7, tool_call: 2, user_message: 5, final_output: 1, total: 15 }],
    [3, { model_call: 28, tool_call: 14, user_message: 14, final_output: 1, total: 57 }],
    [4, { model_call: 7, tool_call: 3, user_message: 4, final_output: 0, total: 14 }],
    [5, { model_call: 30, tool_call: 23, user_message: 7, final_output: 0, total: 60 }],
    [6, { model_call: 22, tool_call: 13, user_message: 9, final_output: 1, total: 45 }],
  ])("session %i has the expected events", (index, expected) => {
    const session = sessions[index]!;
    expect({
      model_call: count(session, "model_call"),
      tool_call: count(session, "tool_call"),
      user_message: count(session, "user_message"),
      final_output: count(session, "final_output"),
      total: session.events.length,
    }).toEqual(expected);
    expect(session.events.map((event) => event.seq)).toEqual(session.events.map((_, i) => i));
  });

  it("keeps task, trial, reward and info in metadata, and takes the model from the file name", () => {
    const session = sessions[6]!;
    expect(session.metadata).toMatchObject({ source: "tau-bench", domain: "airline", task_id: 0, trial: 3, reward: 0 });
    expect(session.metadata.info).toEqual((sample[6] as unknown as { info: unknown }).info);
    expect(session.agent).toEqual({ name: "tau-bench-airline-agent", adapter: "generic" });
    expect(session.agentVersion.version).toBe("gpt-4o");
    expect(session.events[0]).toMatchObject({ kind: "model_call", name: "gpt-4o" });
  });

  it("gives every model call the conversation before its assistant message", () => {
    sessions.forEach((session, index) => {
      const assistantIndices = sample[index]!.traj.flatMap((m, i) => (m.role === "assistant" ? [i] : []));
      const models = session.events.filter((event) => event.kind === "model_call");
      expect(models.map((event) => (event.input as { messages: unknown[] }).messages.length)).toEqual(assistantIndices);
    });
    const first = sessions[0]!.events[0]!;
    expect((first.input as { messages: { role: string }[] }).messages.map((m) => m.role)).toEqual(["system", "user"]);
    expect(first.output).toEqual({ role: "assistant", content: sample[0]!.traj[2]!.content });
  });

  it("matches every tool result to its call by message order, and keeps results exactly as written", () => {
    sessions.forEach((session, index) => {
      const results = sample[index]!.traj.filter((m) => m.role === "tool").map((m) => m.content);
      expect(toolCalls(session).map((event) => event.output)).toEqual(results);
    });
  });

  it("resolves session 0's reused call ids to the right calls", () => {
    const calls = toolCalls(sessions[0]!);
    const reused = calls.filter((e) => (e.input as { callId: string }).callId === "call_HGn16KZh9oNCruxsMJ4gYXan");
    expect(reused.map((e) => e.name)).toEqual(["search_direct_flight", "search_onestop_flight"]);
    expect(reused[0]!.output).toMatch(/^\[\{"flight_number": "HAT069"/);
    expect(reused[1]!.output).toMatch(/^\[\[\{"flight_number": "HAT057"/);
    const other = calls.filter((e) => (e.input as { callId: string }).callId === "call_oIHazX6yQrB8hUwl4cRilFKj");
    expect(other.map((e) => [e.name, typeof e.output === "string" && e.output.slice(0, 9)])).toEqual([
      ["get_user_details", '{"name": '],
      ["calculate", "255.0"],
    ]);
    for (const call of calls) {
      const parent = sessions[0]!.events[call.parentSeq!]!;
      expect(parent.kind).toBe("model_call");
      expect((parent.output as { toolCalls: { id: string; name: string }[] }).toolCalls).toContainEqual(
        expect.objectContaining({ id: (call.input as { callId: string }).callId, name: call.name }),
      );
    }
  });

  it("parses arguments from their JSON strings", () => {
    const [first] = toolCalls(sessions[0]!);
    expect(first!.input).toEqual({ callId: "call_oIHazX6yQrB8hUwl4cRilFKj", args: { user_id: "mia_li_3668" } });
  });

  it("marks 'Error: …' results as failed ToolErrors and nothing else", () => {
    const expectedErrors = [1, 0, 0, 6, 0, 0, 4];
    sessions.forEach((session, index) => {
      const failed = toolCalls(session).filter((event) => event.status === "failed");
      expect(failed).toHaveLength(expectedErrors[index]!);
      for (const event of failed) {
        expect(event.output).toBe(`Error: ${event.error!.message}`);
        expect(event.error!.type).toBe("ToolError");
      }
      expect(
        toolCalls(session)
          .filter((e) => e.status === "completed")
          .every((e) => e.error === null),
      ).toBe(true);
    });
    expect(toolCalls(sessions[0]!).find((e) => e.status === "failed")!.error).toEqual({
      type: "ToolError",
      message: "payment amount does not add up, total price is 305, but paid 255",
    });
  });

  it("gives session 150's identical book_reservation calls occurrences 0 and 1 with their own results", () => {
    const bookings = toolCalls(sessions[6]!).filter((e) => e.name === "book_reservation");
    const hathau = bookings.find((e) => String(e.output).includes('"reservation_id": "HATHAU"'))!;
    const hathav = bookings.find((e) => String(e.output).includes('"reservation_id": "HATHAV"'))!;
    expect(hathau.cacheKey).not.toBeNull();
    expect(hathav.cacheKey).toBe(hathau.cacheKey);
    expect([hathau.occurrence, hathav.occurrence]).toEqual([0, 1]);
    expect(hathau.seq).toBeLessThan(hathav.seq);
    expect(hathau.output).not.toEqual(hathav.output);

    const failedTwice = bookings.filter((e) => e.error?.message === "payment method certificate_7504069 not found");
    expect(failedTwice).toHaveLength(2);
    expect(failedTwice[1]!.cacheKey).toBe(failedTwice[0]!.cacheKey);
    expect(failedTwice.map((e) => [e.status, e.occurrence])).toEqual([
      ["failed", 0],
      ["failed", 1],
    ]);
  });

  it("imports session 1, a conversation without tool calls", () => {
    const session = sessions[1]!;
    expect(session.tools).toEqual([]);
    expect(toolCalls(session)).toEqual([]);
    expect(session.events.map((e) => e.kind)).toEqual([
      ...Array.from({ length: 5 }, () => ["model_call", "user_message"]).flat(),
      "final_output",
    ]);
  });

  it("emits the last assistant answer as final_output, after the trailing user turn", () => {
    const session = sessions[0]!;
    const last = session.events.at(-1)!;
    const traj = sample[0]!.traj;
    expect(last).toMatchObject({ kind: "final_output", output: traj[30]!.content, parentSeq: 28 });
    expect(session.events.at(-2)).toMatchObject({ kind: "user_message", name: "user", output: traj[31]!.content });
    // Session 18 ends with a transfer tool call: no final output.
    expect(sessions[4]!.events.at(-1)).toMatchObject({ kind: "tool_call", name: "transfer_to_human_agents" });
  });

  it("lists the tools the session used", () => {
    expect(sessions[0]!.tools.map((t) => t.name)).toEqual([
      "get_user_details",
      "search_direct_flight",
      "search_onestop_flight",
      "calculate",
      "book_reservation",
      "think",
    ]);
  });

  it("names the domain from the system prompt when there is no file name", () => {
    const [session] = sessionsOf(importDocument(sampleText));
    expect(session!.externalId).toBe("tau-bench:airline:task-0:trial-0");
    expect(session!.events[0]!.name).toBe("unknown");
  });
});

describe("OpenAI Chat documents", () => {
  const doc = {
    id: "chatcmpl-log-81",
    model: "gpt-4.1-mini",
    temperature: 0.3,
    metadata: { agent: "weather-bot", agent_version: "3.1.0", region: "eu" },
    tools: [
      {
        type: "function",
        function: { name: "get_weather", parameters: { type: "object", properties: { city: { type: "string" } } } },
      },
    ],
    messages: [
      { role: "developer", content: "Answer with the weather." },
      { role: "user", content: "Weather in Oslo and Bergen?" },
      {
        role: "assistant",
        content: null,
        tool_calls: [
          { id: "call_a", type: "function", function: { name: "get_weather", arguments: '{"city":"Oslo"}' } },
          { id: "call_b", type: "function", function: { name: "get_weather", arguments: { city: "Bergen" } } },
          { id: "call_c", type: "function", function: { name: "get_time", arguments: "{city: Oslo" } },
        ],
      },
      { role: "tool", tool_call_id: "call_b", content: '{"temp_c": 9}' },
      { role: "tool", tool_call_id: "call_a", content: "Error: upstream timeout" },
      { role: "assistant", content: "Bergen is 9°C; Oslo's forecast is unavailable." },
    ],
  };

  it("imports parallel calls, matching results among the pending calls by id", () => {
    const [session] = sessionsOf(importDocument(JSON.stringify(doc)));
    expect(session!.externalId).toBe("chatcmpl-log-81");
    expect(session!.agent).toEqual({ name: "weather-bot", adapter: "generic" });
    expect(session!.agentVersion).toEqual({ version: "3.1.0", capabilities: [] });
    expect(session!.metadata).toEqual(doc.metadata);
    expect(session!.tools).toEqual([
      { name: "get_weather", schema: doc.tools[0]!.function.parameters },
      { name: "get_time" },
    ]);
    const [model, a, b, c, answer, final] = session!.events;
    expect(model).toMatchObject({ kind: "model_call", name: "gpt-4.1-mini" });
    expect(model!.input).toMatchObject({
      model: "gpt-4.1-mini",
      temperature: 0.3,
      messages: [
        { role: "system", content: "Answer with the weather." },
        { role: "user", content: "Weather in Oslo and Bergen?" },
      ],
    });
    expect(a).toMatchObject({ name: "get_weather", status: "failed", output: "Error: upstream timeout", parentSeq: 0 });
    expect(a!.input).toEqual({ callId: "call_a", args: { city: "Oslo" } });
    expect(b).toMatchObject({ status: "completed", output: '{"temp_c": 9}', input: { args: { city: "Bergen" } } });
    // Never answered: a recording that did not finish, with the unparseable arguments kept as written.
    expect(c).toMatchObject({ name: "get_time", status: "incomplete", output: null, occurrence: null });
    expect(c!.input).toEqual({ callId: "call_c", args: "{city: Oslo", argsUnparsed: true });
    expect((model!.output as { toolCalls: unknown[] }).toolCalls[2]).toEqual({
      id: "call_c",
      name: "get_time",
      args: "{city: Oslo",
      argsUnparsed: true,
    });
    expect(answer).toMatchObject({ kind: "model_call", seq: 4 });
    expect((answer!.input as { messages: unknown[] }).messages).toHaveLength(5);
    expect(final).toMatchObject({ kind: "final_output", output: "Bergen is 9°C; Oslo's forecast is unavailable." });
  });

  it("imports a bare message array and JSONL of documents", () => {
    const [bare] = sessionsOf(importDocument(JSON.stringify(doc.messages)));
    expect(bare!.events).toHaveLength(6);
    expect(bare!.agent.name).toBe("openai-chat-agent");
    expect(bare!.title).toBe("Weather in Oslo and Bergen?");

    const lines = [doc, { ...doc, id: "chatcmpl-log-82" }].map((d) => JSON.stringify(d)).join("\n");
    const result = importDocument(lines);
    expect(result.format).toBe("openai-chat");
    expect(sessionsOf(result).map((s) => s.externalId)).toEqual(["chatcmpl-log-81", "chatcmpl-log-82"]);
  });

  const tau = (traj: unknown[]) => [{ task_id: 4, trial: 0, reward: 1, info: {}, traj }];
  const call = (id: string, args: unknown) => ({
    role: "assistant",
    content: null,
    tool_calls: [{ id, type: "function", function: { name: "lookup", arguments: args } }],
  });

  it.each([
    [
      "arguments of the wrong type",
      tau([
        { role: "user", content: "hi" },
        { role: "assistant", content: "?" },
        { role: "user", content: "x" },
        call("c1", 42),
      ]),
      [
        {
          path: "[0].traj[3].tool_calls[0].function.arguments",
          message: "expected the arguments as a JSON string or an object",
        },
      ],
    ],
    [
      "a tool result before any call",
      tau([
        { role: "user", content: "hi" },
        { role: "tool", tool_call_id: "c1", content: "x" },
        { role: "assistant", content: "ok" },
      ]),
      [{ path: "[0].traj[1]", message: "a tool result with no pending tool call before it" }],
    ],
    [
      "a tool result for a call that is not pending",
      tau([{ role: "user", content: "hi" }, call("c1", "{}"), { role: "tool", tool_call_id: "c9", content: "x" }]),
      [{ path: "[0].traj[2].tool_call_id", message: 'answers "c9", but the pending calls are "c1"' }],
    ],
    [
      "a tool result naming another tool",
      tau([
        { role: "user", content: "hi" },
        call("c1", "{}"),
        { role: "tool", tool_call_id: "c1", name: "other", content: "x" },
      ]),
      [{ path: "[0].traj[2].name", message: 'the result names "other", but the call was "lookup"' }],
    ],
    [
      "no assistant message",
      tau([{ role: "user", content: "hi" }]),
      [{ path: "[0].traj", message: "no assistant message: there is no model step to import" }],
    ],
    [
      "a missing task_id and a content of the wrong type",
      [{ trial: 0, traj: [{ role: "user", content: 5 }] }],
      [
        { path: "[0].task_id", message: expect.any(String) as unknown },
        { path: "[0].traj[0].content", message: "expected the content as a string or an array of content parts" },
      ],
    ],
    [
      "an unknown role",
      { messages: [{ role: "robot", content: "beep" }] },
      [{ path: "messages[0].role", message: expect.stringContaining("Invalid discriminator value") as unknown }],
    ],
  ])("reports %s at its exact path", (_name, input, expected) => {
    const result = importDocument(JSON.stringify(input));
    expect(result.format).toBe("openai-chat");
    expect(issuesOf(result)).toEqual(expected);
  });

  it("rejects the whole document when one trajectory is bad, reporting all of them", () => {
    const good = sample[0]!;
    const bad = { ...sample[1]!, traj: [...sample[1]!.traj, { role: "tool", content: "orphan" }] };
    const worse = { ...sample[2]!, reward: "high" };
    const result = importDocument(JSON.stringify([good, bad, worse]));
    expect(result.ok).toBe(false);
    expect(issuesOf(result)).toEqual([
      { path: "[1].traj[12]", message: "a tool result with no pending tool call before it" },
      { path: "[2].reward", message: expect.stringContaining("expected number") as unknown },
    ]);
  });

  it("reports JSONL issues with their line numbers", () => {
    const text = [JSON.stringify(doc), "", JSON.stringify({ ...doc, temperature: "hot" })].join("\n");
    expect(issuesOf(importDocument(text))).toEqual([
      { path: "line 3: temperature", message: expect.stringContaining("expected number") as unknown },
    ]);
  });
});

describe("a logged completion's usage", () => {
  const call = { id: "call_1", type: "function", function: { name: "lookup_order", arguments: '{"id":"4821"}' } };
  const doc = (extra: Record<string, unknown>, first: Record<string, unknown> = {}) =>
    JSON.stringify({
      model: "gpt-4o",
      messages: [
        { role: "user", content: "Where is order 4821?" },
        { role: "assistant", content: null, tool_calls: [call], ...first },
        { role: "tool", tool_call_id: "call_1", content: '{"status":"lost"}' },
        { role: "assistant", content: "It was lost; I opened a claim." },
      ],
      ...extra,
    });
  const usages = (result: ImportResult) =>
    sessionsOf(result)[0]!.events.flatMap((e) => (e.kind === "model_call" ? [e.usage] : []));

  it("is kept on the model steps, with the cached part of the input, as the OTLP path keeps it", () => {
    const result = importDocument(
      doc(
        {
          usage: {
            prompt_tokens: 1200,
            completion_tokens: 40,
            total_tokens: 1240,
            prompt_tokens_details: { cached_tokens: 1024 },
          },
        },
        { usage: { prompt_tokens: 900, completion_tokens: 18 } },
      ),
    );
    expect(result.format).toBe("openai-chat");
    expect(usages(result)).toEqual([
      { inputTokens: 900, outputTokens: 18 },
      { inputTokens: 1200, outputTokens: 40, cachedInputTokens: 1024 },
    ]);
    // Without any, the steps have none.
    expect(usages(importDocument(doc({})))).toEqual([null, null]);
  });

  it("refuses a usage whose counts are not whole non-negative numbers, at their path", () => {
    expect(issuesOf(importDocument(doc({ usage: { prompt_tokens: -3, completion_tokens: "many" } })))).toEqual([
      { path: "usage.prompt_tokens", message: "Too small: expected number to be >=0" },
      { path: "usage.completion_tokens", message: "Invalid input: expected number, received string" },
    ]);
  });
});
