import { describe, expect, it } from "vitest";
import { importDocument, type ImportedSession } from "@/lib/ingest";
import { BRAINTRUST_PROJECT, braintrustRootId, braintrustTrace } from "./__fixtures__/braintrust";
import { braintrustTime } from "./braintrust";

function steps(session: ImportedSession) {
  return session.events.map((e) => ({
    kind: e.kind,
    name: e.name,
    ...(e.kind === "tool_call"
      ? { callId: (e.input as { callId: string }).callId, args: (e.input as { args: unknown }).args }
      : {}),
    parentSeq: e.parentSeq,
    status: e.status,
    error: e.error,
    usage: e.usage ?? null,
    durationMs: e.durationMs,
  }));
}

function imported(text: string, format?: "braintrust") {
  const result = importDocument(text, format ? { format } : {});
  if (!result.ok) throw new Error(JSON.stringify(result.issues));
  expect(result.format).toBe("braintrust");
  return result.sessions;
}

describe("the Braintrust mapper", () => {
  it("maps a trace's llm, tool and unknown spans to steps with call ids, errors, usage, cost and timing", () => {
    const [session] = imported(JSON.stringify(braintrustTrace(1, { failTool: true })));
    expect(session!.externalId).toBe(braintrustRootId(1));
    expect(steps(session!)).toEqual([
      {
        kind: "model_call",
        name: "gpt-4o",
        parentSeq: null,
        status: "completed",
        error: null,
        usage: { inputTokens: 90, outputTokens: 12, costUsd: 0.000345 },
        durationMs: 700,
      },
      {
        kind: "tool_call",
        name: "lookup_order",
        callId: "call_1_1",
        args: { order_id: "4821" },
        parentSeq: 0,
        status: "failed",
        error: { type: "TimeoutError", message: "order service timed out" },
        usage: null,
        durationMs: 200,
      },
      {
        kind: "model_call",
        name: "gpt-4o",
        parentSeq: null,
        status: "completed",
        error: null,
        usage: { inputTokens: 120, outputTokens: 8 },
        durationMs: 600,
      },
      {
        kind: "tool_call",
        name: "moderate",
        callId: "span-1-5",
        args: "Order 4821 has shipped.",
        parentSeq: null,
        status: "completed",
        error: null,
        usage: null,
        durationMs: 40,
      },
      {
        kind: "final_output",
        name: "final_output",
        parentSeq: 2,
        status: "completed",
        error: null,
        usage: null,
        durationMs: null,
      },
    ]);
    const marked = session!.events.filter((e) => (e.input as { unrecognized?: true } | null)?.unrecognized);
    expect(marked.map((e) => [e.name, (e.input as { operation: string }).operation])).toEqual([
      ["moderate", "automation"],
    ]);
    expect(session!.events[4]!.output).toBe("Order 4821 has shipped.");
    expect(session!.metadata).toEqual({
      source: "braintrust",
      braintrust: {
        rootSpanId: "root-0001",
        name: "support-agent",
        projectId: BRAINTRUST_PROJECT,
        tags: ["prod"],
        metadata: { user_id: "user-1", environment: "prod" },
        input: { question: "Where is order 4821?" },
        spans: [
          {
            spanId: "root-0001",
            type: "task",
            name: "support-agent",
            parents: [],
            start: "2026-11-20T09:01:00.000Z",
            end: "2026-11-20T09:01:02.000Z",
          },
        ],
        scoreSpans: [{ spanId: "span-1-6", name: "Factuality", scores: { Factuality: 0.6 }, output: { score: 0.6 } }],
      },
    });
    expect([session!.title, session!.startedAt, session!.endedAt, session!.tools]).toEqual([
      "Where is order 4821?",
      "2026-11-20T09:01:00.000Z",
      "2026-11-20T09:01:02.000Z",
      [{ name: "lookup_order" }, { name: "moderate" }],
    ]);
  });

  it("reads BTQL pages, fetch pages and JSON Lines, detected or by ?format=, one session per trace, the same on re-import", () => {
    const rows = [...braintrustTrace(1), ...braintrustTrace(2)];
    const a = imported(rows.map((r) => JSON.stringify(r)).join("\n"));
    const b = imported(JSON.stringify({ data: [...braintrustTrace(2), ...braintrustTrace(1)] }), "braintrust");
    const c = imported(JSON.stringify({ events: rows.reverse(), cursor: null }));
    expect(a.map((s) => s.externalId)).toEqual(["root-0001", "root-0002"]);
    expect(b.map((s) => s.externalId).sort()).toEqual(["root-0001", "root-0002"]);
    expect(c.map((s) => s.events)).toEqual([...a].reverse().map((s) => s.events));
  });

  it("keeps an experiment's expected output and scores, and merges a span logged twice", () => {
    const rows = braintrustTrace(3, { experiment: true });
    rows.push({ ...rows[1]!, output: undefined, metrics: { end: rows[1]!.metrics.end }, _xact_id: "2000" });
    rows.push({
      span_id: "root-0003",
      root_span_id: "root-0003",
      span_attributes: { name: "support-agent" },
      metrics: {},
    });
    const [session] = imported(JSON.stringify(rows));
    expect(session!.metadata.braintrust).toMatchObject({
      experimentId: "exp-1",
      expected: "Order 4821 shipped on Monday.",
      scores: { Factuality: 0.6 },
      spans: [{ spanId: "root-0003", type: "eval" }],
    });
    expect(session!.events.filter((e) => e.kind === "model_call")).toHaveLength(2);
    expect(session!.events[0]!.output).toMatchObject({ toolCalls: [{ id: "call_3_1", name: "lookup_order" }] });
  });

  it("refuses rows without their ids or start, or of two traces, with their paths, nothing partial", () => {
    const rows: unknown[] = braintrustTrace(1);
    rows.push({ ...braintrustTrace(1)[2], span_id: "x".repeat(600) });
    rows.push({ ...braintrustTrace(1)[2], span_id: "" });
    rows.push({ ...braintrustTrace(1)[2], span_id: "s8", metrics: { start: "soon" }, created: null });
    rows.push({ ...braintrustTrace(1)[2], span_id: "s9", span_parents: "root-0001" });
    const result = importDocument(JSON.stringify(rows), { format: "braintrust" });
    expect(result).toEqual({
      ok: false,
      format: "braintrust",
      issues: [
        { path: "[6].span_id", message: "is 600 characters long; the limit is 512" },
        { path: "[7].span_id", message: "a span needs its span_id (a non-empty string)" },
        { path: "[8].metrics.start", message: "a span needs its start (Unix seconds) or its created time" },
        { path: "[9].span_parents", message: "must be null or a list of span ids" },
      ],
    });
  });

  it("treats hostile values as any outside input: __proto__ stays data, lone surrogates are repaired, deep nesting refused", () => {
    const text = JSON.stringify(braintrustTrace(5))
      .replace('"input":{"order_id":"4821"}', '"input":{"__proto__":{"admin":true},"order_id":"4821"}')
      .replace('"environment":"prod"', '"environment":"prod\\ud800","__proto__":{"polluted":true}');
    const [session] = imported(text);
    expect(({} as Record<string, unknown>).admin).toBeUndefined();
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    const tool = session!.events.find((e) => e.name === "lookup_order")!.input as { args: object };
    expect(Object.keys(tool.args)).toEqual(["__proto__", "order_id"]);
    const meta = (session!.metadata.braintrust as { metadata: Record<string, unknown> }).metadata;
    expect(Object.hasOwn(meta, "__proto__")).toBe(true);
    expect(meta.environment).toBe("prod\uFFFD");
    expect(session!.metadata.repairedCharacters).toBe(1);

    const deep = JSON.stringify(braintrustTrace(6)).replace(
      '"input":{"order_id"',
      `"x":${"[".repeat(600)}${"]".repeat(600)},"input":{"order_id"`,
    );
    const deepResult = importDocument(deep);
    expect(deepResult.ok ? "" : deepResult.issues[0]!.message).toMatch(/nest/);
    const huge = JSON.stringify(braintrustTrace(7)).replace(
      '"prompt_tokens":90',
      `"prompt_tokens":9${"9".repeat(400)}`,
    );
    const hugeResult = importDocument(huge);
    expect(hugeResult.ok ? "" : hugeResult.issues[0]!.message).toMatch(/is too large to store/);
  });

  it("reads Braintrust's times: Unix seconds with a fraction, or ISO text", () => {
    expect(braintrustTime(1_795_165_200.123)).toBe("2026-11-20T09:00:00.123Z");
    expect(braintrustTime("2026-11-20T09:00:00.5Z")).toBe("2026-11-20T09:00:00.500Z");
    expect([braintrustTime("soon"), braintrustTime(1e300), braintrustTime(-1), braintrustTime(null)]).toEqual([
      null,
      null,
      null,
      null,
    ]);
  });
});
