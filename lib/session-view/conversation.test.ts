import { describe, expect, it } from "vitest";
import { buildSession } from "@/lib/replay/session-builder";
import { compactInputs } from "@/lib/sessions/inputs";
import type { SessionEvent } from "@/lib/replay";
import { buildConversation, chatSearchText, contentText, type ChatItem } from "./conversation";
import { buildWaterfall } from "./waterfall";

const session = buildSession(
  [
    { user: "Refund order 4821" },
    {
      model: "Looking it up.",
      calls: [
        { name: "lookup_order", args: { order_id: "4821" }, result: { total: 129 } },
        { name: "get_time", args: {}, result: "12:00" },
      ],
    },
    { model: "Refunding **$129**.", calls: [{ name: "refund", args: { amount: 129 }, result: "ok" }] },
    { model: "Done: refund issued." },
    { final: "Done: refund issued." },
  ],
  { system: "You are a support agent." },
);

describe("buildConversation", () => {
  const chat = buildConversation(session);

  it("shows every message once, where it first appears, with tool calls inline", () => {
    expect(chat.map((i) => (i.type === "message" ? [i.type, i.role, i.seq, i.text] : [i.type, i.seq, i.text]))).toEqual(
      [
        ["message", "user", 0, "Refund order 4821"],
        ["message", "system", 1, "You are a support agent."],
        ["message", "assistant", 1, "Looking it up."],
        ["message", "assistant", 4, "Refunding **$129**."],
        ["message", "assistant", 6, "Done: refund issued."],
      ],
    );
    const first = chat[2]!;
    expect(first.type === "message" && first.toolCalls).toEqual([
      {
        id: "call_0",
        name: "lookup_order",
        args: '{\n  "order_id": "4821"\n}',
        seq: 2,
        result: '{\n  "total": 129\n}',
        error: null,
        durationMs: 10,
      },
      { id: "call_1", name: "get_time", args: "{}", seq: 3, result: "12:00", error: null, durationMs: 10 },
    ]);
    // The assistant's text is counted with its model call's tokens and cost.
    expect(first).toMatchObject({ model: "gpt-test", tokens: 120, costUsd: 0.001 });
  });

  it("its size is linear: no message repeats however many model calls resend it", () => {
    const texts = chat.flatMap((i) => (i.type === "message" ? [i.text] : []));
    expect(new Set(texts).size).toBe(texts.length);
    // A final answer equal to the last assistant message is not shown twice.
    expect(chat.filter((i) => i.type === "final")).toEqual([]);
  });

  it("a sliding context window (the input no longer extends the last one) still shows only new messages", () => {
    const windowed = buildSession(
      [
        { user: "q" },
        { model: "a1", calls: [{ name: "t", args: { n: 1 }, result: 1 }] },
        { model: "a2", calls: [{ name: "t", args: { n: 2 }, result: 2 }] },
        { model: "a3" },
      ],
      { windowMessages: 2 },
    );
    const items = buildConversation(windowed);
    expect(items.map((i) => (i.type === "message" ? `${i.role}:${i.text}` : i.type))).toEqual([
      "user:q",
      "system:You are a support agent.",
      "assistant:a1",
      "assistant:a2",
      "assistant:a3",
    ]);
  });

  it("a tool message without a call shown is a tool result of its own; content parts read as text", () => {
    const items = buildConversation([
      {
        ...session[1]!,
        seq: 0,
        input: {
          messages: [{ role: "tool", toolCallId: "x", name: "search", content: [{ type: "text", text: "hit" }] }],
        },
        output: { role: "assistant", content: "ok" },
      },
    ]);
    expect(items[0]).toMatchObject({ type: "tool_result", toolCallId: "x", name: "search", text: "hit" });
    expect(contentText({ a: 1 })).toBe('{\n  "a": 1\n}');
    expect(chatSearchText(chat[2]!)).toContain("lookup_order");
    expect(chatSearchText(chat[2]!)).toContain("4821");
  });
});

describe("buildConversation on the stored form", () => {
  const delta = (events: SessionEvent[]) =>
    compactInputs(events, { digests: false }).map((c, i) => ({
      ...events[i]!,
      input: c.input,
      inputPrefixSeq: c.prefix?.seq ?? null,
    }));
  const plain = (items: ChatItem[]) => items.map(({ key: _key, ...rest }) => rest);

  it("reads a model call's added messages as the whole input would read", () => {
    expect(plain(buildConversation(delta(session)))).toEqual(plain(buildConversation(session)));
    const long = buildSession(
      Array.from({ length: 40 }, (_, i) =>
        i % 7 === 3
          ? { user: `question ${i}` }
          : { model: `answer ${i}`, calls: [{ name: "lookup", args: { i }, result: { i } }] },
      ),
      { system: "You are terse." },
    );
    expect(plain(buildConversation(delta(long)))).toEqual(plain(buildConversation(long)));
  });

  it("a window starting mid-session shows neither the output it extends nor that output's tool results again", () => {
    const events = delta(session);
    const from = events.findIndex((e) => e.kind === "tool_call");
    const parent = events[from]!.parentSeq!;
    const before = new Map([[parent, session.find((e) => e.seq === parent)!.output]]);
    const items = buildConversation(events.slice(from), { before });
    expect(items.map((i) => (i.type === "message" ? [i.seq, i.text] : [i.seq, i.type]))).toEqual([
      [4, "Refunding **$129**."],
      [6, "Done: refund issued."],
    ]);
  });
});

describe("buildWaterfall", () => {
  const at = (ms: number) => new Date(Date.UTC(2026, 0, 1) + ms).toISOString();
  const timed = session.map((e) => ({ ...e, startedAt: at(e.seq * 100), durationMs: 50 }));

  it("places each step from the session's start, with tokens and cost", () => {
    const w = buildWaterfall(timed);
    expect(w.rows.map((r) => [r.seq, r.offsetMs, r.durationMs])).toEqual(timed.map((e) => [e.seq, e.seq * 100, 50]));
    expect(w.totalMs).toBe((timed.length - 1) * 100 + 50);
    expect(w.rows[1]).toMatchObject({ kind: "model_call", tokens: 120, costUsd: 0.001 });
  });

  it("groups overlapping tool calls of one model step as parallel, not sequential ones", () => {
    const parallel = timed.map((e) => (e.seq === 3 ? { ...e, startedAt: at(210) } : e));
    const w = buildWaterfall(parallel);
    expect(w.rows.filter((r) => r.parallelGroup !== null).map((r) => [r.seq, r.parallelGroup, r.parallelSize])).toEqual(
      [
        [2, 1, 2],
        [3, 1, 2],
      ],
    );
    // Sequential (200–250 then 300–350): not parallel.
    expect(buildWaterfall(timed).rows.every((r) => r.parallelGroup === null)).toBe(true);
    // Untimed calls asked for at once: parallel.
    expect(
      buildWaterfall(session)
        .rows.filter((r) => r.parallelGroup === 1)
        .map((r) => r.seq),
    ).toEqual([2, 3]);
    expect(buildWaterfall(session).totalMs).toBe(0);
  });
});
