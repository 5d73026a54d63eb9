import { describe, expect, it } from "vitest";
import { importDocument, type ImportedSession } from "@/lib/ingest";
import { listedTrace, supportTrace, supportTraces } from "./__fixtures__/langfuse";
import { mapLangfuseTrace } from "./langfuse";

/** What an analyst reads of each step: kind, name, call id, parent, status, error, usage. */
function steps(session: ImportedSession) {
  return session.events.map((e) => ({
    seq: e.seq,
    kind: e.kind,
    name: e.name,
    ...(e.kind === "tool_call" ? { callId: (e.input as { callId: string }).callId } : {}),
    parentSeq: e.parentSeq,
    status: e.status,
    error: e.error,
    usage: e.usage ?? null,
    durationMs: e.durationMs,
  }));
}

function one(text: string, format?: "langfuse") {
  const result = importDocument(text, format ? { format } : {});
  if (!result.ok) throw new Error(JSON.stringify(result.issues));
  expect(result.format).toBe("langfuse");
  return result.sessions;
}

describe("the Langfuse mapper", () => {
  it("maps a trace's generations, tool observations, errors, usage, cost and timing to steps", () => {
    const [session] = one(JSON.stringify(supportTrace("t1")));
    expect(steps(session!)).toEqual([
      {
        seq: 0,
        kind: "model_call",
        name: "gpt-4o-2024-08-06",
        parentSeq: null,
        status: "completed",
        error: null,
        usage: { inputTokens: 120, outputTokens: 20, costUsd: 0.0005 },
        durationMs: 800,
      },
      {
        seq: 1,
        kind: "tool_call",
        name: "lookup_order",
        callId: "call_t1_1",
        parentSeq: 0,
        status: "completed",
        error: null,
        usage: null,
        durationMs: 200,
      },
      {
        seq: 2,
        kind: "model_call",
        name: "gpt-4o-2024-08-06",
        parentSeq: null,
        status: "completed",
        error: null,
        usage: { inputTokens: 180, outputTokens: 30, costUsd: 0.0007 },
        durationMs: 700,
      },
      {
        seq: 3,
        kind: "tool_call",
        name: "refund_payment",
        callId: "call_t1_2",
        parentSeq: 2,
        status: "failed",
        error: { type: "ToolError", message: "payment gateway timeout" },
        usage: null,
        durationMs: 1000,
      },
      {
        seq: 4,
        kind: "model_call",
        name: "gpt-4o-2024-08-06",
        parentSeq: null,
        status: "completed",
        error: null,
        usage: { inputTokens: 260, outputTokens: 25, costUsd: 0.0009 },
        durationMs: 900,
      },
      {
        seq: 5,
        kind: "final_output",
        name: "final_output",
        parentSeq: 4,
        status: "completed",
        error: null,
        usage: null,
        durationMs: null,
      },
    ]);
    const s = session!;
    expect(s.events[0]!.input).toMatchObject({
      messages: [
        { role: "system", content: "You are a support agent. Use the tools." },
        { role: "user", content: "Refund order 4821, it never arrived." },
      ],
      model: "gpt-4o-2024-08-06",
      temperature: 0,
      agent: "support-agent",
      observationId: "t1-gen-1",
    });
    expect(s.events[0]!.output).toEqual({
      role: "assistant",
      content: null,
      toolCalls: [{ id: "call_t1_1", name: "lookup_order", args: { order_id: "4821" } }],
    });
    // The SPAN's input was JSON text: its arguments are parsed.
    expect(s.events[3]!.input).toEqual({
      callId: "call_t1_2",
      args: { order_id: "4821", amount: 129 },
      agent: "support-agent",
    });
    expect(s.events[5]!.output).toBe("I could not refund order 4821: the payment gateway timed out.");
    expect({
      externalId: s.externalId,
      title: s.title,
      agent: s.agent,
      version: s.agentVersion.version,
      startedAt: s.startedAt,
      endedAt: s.endedAt,
      tools: s.tools.map((t) => t.name),
    }).toEqual({
      externalId: "t1",
      title: "Refund order 4821, it never arrived.",
      agent: { name: "support-agent", adapter: "generic" },
      version: "1.4.0",
      startedAt: "2026-11-20T10:00:00.000Z",
      endedAt: "2026-11-20T10:00:04.200Z",
      tools: ["lookup_order", "refund_payment"],
    });
    const langfuse = (s.metadata as { langfuse: Record<string, unknown> }).langfuse;
    expect(langfuse).toMatchObject({
      traceId: "t1",
      name: "support-agent",
      sessionId: "sess-42",
      userId: "user-7",
      tags: ["prod", "refunds"],
      release: "v1.4.0",
      metadata: { region: "eu" },
      scores: [{ name: "resolved", value: 0, dataType: "NUMERIC" }],
    });
    // The structure and the point-in-time event are kept, not dropped: the AGENT with its error, the EVENT whole.
    expect(langfuse.observations).toEqual([
      {
        id: "t1-agent",
        type: "AGENT",
        name: "support-agent",
        parentObservationId: null,
        startTime: "2026-11-20T10:00:00.000Z",
        endTime: "2026-11-20T10:00:04.200Z",
        level: "ERROR",
        statusMessage: "refund failed",
      },
    ]);
    expect(langfuse.events).toEqual([
      {
        id: "t1-event",
        name: "guardrail-check",
        startTime: "2026-11-20T10:00:03.150Z",
        parentObservationId: "t1-agent",
        level: "DEBUG",
        input: { checked: "refund amount" },
        output: { passed: true },
      },
    ]);
  });

  it("reads one trace, an array, JSON Lines and a list page of traces, detected or named", () => {
    const traces = supportTraces(3);
    const ids = ["lf-trace-000", "lf-trace-001", "lf-trace-002"];
    expect(one(JSON.stringify(traces)).map((s) => s.externalId)).toEqual(ids);
    expect(one(traces.map((t) => JSON.stringify(t)).join("\n")).map((s) => s.externalId)).toEqual(ids);
    expect(one(JSON.stringify({ data: traces, meta: { page: 1 } })).map((s) => s.externalId)).toEqual(ids);
    expect(one(JSON.stringify(traces[1]), "langfuse").map((s) => s.externalId)).toEqual(["lf-trace-001"]);
    // The same file twice gives the same sessions.
    expect(one(JSON.stringify(traces))).toEqual(one(JSON.stringify(traces)));
  });

  it("keeps an observation of a type it does not know as a step marked unrecognized, and odd outputs as they came", () => {
    const trace = supportTrace("t2", { fails: false });
    (trace.observations as Record<string, unknown>[]).push({
      id: "t2-x",
      traceId: "t2",
      type: "RERANKER",
      name: "rerank",
      startTime: "2026-11-20T10:00:03.500Z",
      endTime: "2026-11-20T10:00:03.600Z",
      input: { query: "refund" },
      output: [3, 1, 2],
      level: "DEFAULT",
    });
    const gen = (trace.observations as Record<string, unknown>[]).find((o) => o.id === "t2-gen-3")!;
    gen.output = { text: "Order refunded.", finish_reason: "stop" };
    const [session] = one(JSON.stringify(trace));
    const rerank = session!.events.find((e) => e.name === "rerank")!;
    expect(rerank).toMatchObject({
      kind: "tool_call",
      input: { callId: "t2-x", args: { query: "refund" }, operation: "reranker", unrecognized: true },
      output: [3, 1, 2],
      status: "completed",
    });
    const last = session!.events.find((e) => (e.input as { observationId?: string }).observationId === "t2-gen-3")!;
    expect(last.output).toEqual({ role: "assistant", content: { text: "Order refunded.", finish_reason: "stop" } });
    expect((session!.metadata as { langfuse: { notes: string[] } }).langfuse.notes).toEqual([
      "generation t2-gen-3: its output is not an assistant message; kept as the message's content",
    ]);
  });

  it("refuses a trace it cannot read, naming each problem's path", () => {
    const bad = supportTrace("t3");
    const obs = bad.observations as Record<string, unknown>[];
    delete obs[1]!.type;
    obs[2]!.startTime = "yesterday";
    obs[3]!.traceId = "other";
    const result = importDocument(JSON.stringify([supportTrace("ok"), bad, { ...bad, id: "" }]));
    expect(result).toEqual({
      ok: false,
      format: "langfuse",
      issues: [
        { path: "[1].observations[1].type", message: "an observation needs its type (GENERATION, SPAN, EVENT…)" },
        { path: "[1].observations[2].startTime", message: "must be an ISO 8601 date-time" },
        { path: "[1].observations[3].traceId", message: 'belongs to trace "other", not this one' },
        { path: "[2].id", message: "a trace needs its id (a non-empty string)" },
        { path: "[2].observations[1].type", message: "an observation needs its type (GENERATION, SPAN, EVENT…)" },
        { path: "[2].observations[2].startTime", message: "must be an ISO 8601 date-time" },
      ],
    });
    // A listed trace (observations as ids) says how to export it instead.
    const listed = importDocument(JSON.stringify(listedTrace(supportTrace("t4"))), { format: "langfuse" });
    expect(listed.ok ? [] : listed.issues[0]).toEqual({
      path: "observations[0]",
      message:
        "observations are ids only (a trace list's shape): export the trace as GET /api/public/traces/{id} answers it, with its observations",
    });
  });

  it("treats hostile values as any outside input: __proto__ stays data, lone surrogates are repaired, the rest refused", () => {
    const trace = supportTrace("t5");
    const text = JSON.stringify(trace)
      .replace('"metadata":{"region":"eu"}', '"metadata":{"__proto__":{"polluted":true},"region":"eu\\ud800"}')
      .replace('"input":{"order_id":"4821"}', '"input":{"__proto__":{"admin":true},"order_id":"4821"}');
    const [session] = one(text);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    const langfuse = (session!.metadata as { langfuse: { metadata: Record<string, unknown> } }).langfuse;
    expect(Object.hasOwn(langfuse.metadata, "__proto__")).toBe(true);
    expect(langfuse.metadata.region).toBe("eu\uFFFD");
    expect(session!.metadata.repairedCharacters).toBe(1);
    const tool = session!.events[1]!.input as { args: Record<string, unknown> };
    expect(Object.keys(tool.args)).toEqual(["__proto__", "order_id"]);

    const huge = JSON.stringify(supportTrace("t6")).replace('"input":120', `"input":1${"0".repeat(400)}`);
    const hugeResult = importDocument(huge);
    expect(hugeResult.ok).toBe(false);
    expect(hugeResult.ok ? "" : hugeResult.issues[0]!.message).toMatch(/is too large to store/);

    const many = JSON.stringify(supportTrace("t7")).replace('"input":120', '"input":1e15');
    expect(importDocument(many)).toEqual({
      ok: false,
      format: "langfuse",
      issues: [
        { path: "events[0].usage.inputTokens", message: "must be between 0 and 2147483647 (got 1000000000000000)" },
        {
          path: "events[*].usage.inputTokens (the session's total)",
          message: "must be between 0 and 2147483647 (got 1000000000000440)",
        },
      ],
    });

    const deep = JSON.stringify(supportTrace("t8")).replace(
      '"input":{"question"',
      `"input":${"[".repeat(600)}${"]".repeat(600)},"x":{"question"`,
    );
    const deepResult = importDocument(deep);
    expect(deepResult.ok).toBe(false);
    expect(deepResult.ok ? "" : deepResult.issues[0]!.message).toMatch(/nest/);
  });

  it("maps a generation without messages, and a trace of one bare generation", () => {
    const result = mapLangfuseTrace({
      id: "t9",
      observations: [
        {
          id: "g",
          type: "GENERATION",
          startTime: "2026-11-20T10:00:00.000Z",
          endTime: null,
          model: "m",
          input: "What is 2+2?",
          output: "4",
          usage: { input: 3, output: 1 },
          level: "ERROR",
        },
      ],
    });
    expect(result.ok && steps(result.session)).toEqual([
      {
        seq: 0,
        kind: "model_call",
        name: "m",
        parentSeq: null,
        status: "failed",
        error: { type: "ModelError", message: "the observation's level is ERROR (no status message)" },
        usage: { inputTokens: 3, outputTokens: 1 },
        durationMs: null,
      },
      {
        seq: 1,
        kind: "final_output",
        name: "final_output",
        parentSeq: 0,
        status: "completed",
        error: null,
        usage: null,
        durationMs: null,
      },
    ]);
  });
});
