import { describe, expect, it } from "vitest";
import { importDocument, type ImportedSession } from "@/lib/ingest";
import { PROJECT_ID, supportRuns, supportRunTraces } from "./__fixtures__/langsmith";
import { importLangSmith, runTime } from "./langsmith";

/** What an analyst reads of each step: kind, name, call id and args, parent, status, error, usage, output. */
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

function imported(text: string, format?: "langsmith") {
  const result = importDocument(text, format ? { format } : {});
  if (!result.ok) throw new Error(JSON.stringify(result.issues));
  expect(result.format).toBe("langsmith");
  return result.sessions;
}

const nested = (runs: Record<string, unknown>[]) => {
  const [root, ...children] = runs.map((r) => {
    const { trace_id: _t, parent_run_id: _p, ...rest } = r;
    return rest;
  });
  return { ...root, child_runs: children };
};

describe("the LangSmith mapper", () => {
  it("maps a trace's llm, tool and chain runs to steps with call ids, errors, usage, cost and timing", () => {
    const [session] = imported(JSON.stringify(supportRuns("t1")));
    expect(steps(session!)).toEqual([
      {
        kind: "model_call",
        name: "gpt-4o",
        parentSeq: null,
        status: "completed",
        error: null,
        usage: { inputTokens: 99, outputTokens: 9, costUsd: 0.0003375 },
        durationMs: 800,
      },
      {
        kind: "tool_call",
        name: "lookup_order",
        callId: "call_t1_1",
        args: { order_id: "4821" },
        parentSeq: 0,
        status: "completed",
        error: null,
        usage: null,
        durationMs: 200,
      },
      {
        kind: "model_call",
        name: "gpt-4o-mini",
        parentSeq: null,
        status: "completed",
        error: null,
        usage: { inputTokens: 140, outputTokens: 20, costUsd: 0.000033 },
        durationMs: 700,
      },
      {
        kind: "tool_call",
        name: "refund_payment",
        callId: "call_t1_2",
        args: { order_id: "4821", amount: 129 },
        parentSeq: 2,
        status: "failed",
        error: { type: "ToolError", message: "TimeoutError('payments gateway timed out after 30s')" },
        usage: null,
        durationMs: 900,
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
    const [first, lookup] = session!.events;
    expect(first!.input).toEqual({
      messages: [
        { role: "system", content: "You are a support agent. Use the tools." },
        { role: "user", content: "Refund order 4821, it never arrived." },
      ],
      model: "gpt-4o",
      temperature: 0,
      invocationParams: { model: "gpt-4o", temperature: 0 },
      runId: "t1-r1",
    });
    expect(first!.output).toEqual({
      role: "assistant",
      content: "",
      toolCalls: [{ id: "call_t1_1", name: "lookup_order", args: { order_id: "4821" } }],
    });
    expect(lookup!.output).toBe('{"order_id":"4821","status":"lost","amount":129}');
    expect(session!.events[4]!.output).toBe("The refund could not be issued; I have escalated it.");
    expect({ ...session!, events: undefined, metadata: undefined }).toEqual({
      externalId: "t1",
      title: "Refund 4821",
      agent: { name: "support-agent", adapter: "langgraph" },
      agentVersion: { version: "v7", capabilities: [] },
      format: "langsmith",
      startedAt: "2026-11-20T10:00:00.000Z",
      endedAt: "2026-11-20T10:00:04.000Z",
      metadata: undefined,
      tools: [{ name: "lookup_order" }, { name: "refund_payment" }],
      events: undefined,
    });
    const langsmith = (session!.metadata as { langsmith: Record<string, unknown> }).langsmith;
    expect(langsmith.projectId).toBe(PROJECT_ID);
    expect(langsmith.runs).toEqual([
      expect.objectContaining({ id: "t1-r0", run_type: "chain", name: "support-agent" }),
      expect.objectContaining({ id: "t1-r5", run_type: "parser", name: "StrOutputParser", parent_run_id: "t1-r0" }),
    ]);
  });

  it("reads runs flat, nested with child_runs, as a query page and as JSON Lines, detected or named, grouped by trace", () => {
    const traces = supportRunTraces(3);
    const flat = imported(JSON.stringify(traces.flat()));
    expect(flat.map((s) => [s.externalId, s.events.length])).toEqual([
      ["ls-trace-000", 5],
      ["ls-trace-001", 5],
      ["ls-trace-002", 5],
    ]);
    const asSteps = flat.map(steps);
    const tree = imported(JSON.stringify(traces.map(nested)), "langsmith");
    expect(tree.map((s) => s.externalId)).toEqual(["ls-trace-000-r0", "ls-trace-001-r0", "ls-trace-002-r0"]);
    expect(tree.map(steps)).toEqual(asSteps);
    expect(imported(JSON.stringify({ runs: traces.flat(), cursors: { next: null } })).map(steps)).toEqual(asSteps);
    const lines = traces
      .flat()
      .map((r) => JSON.stringify(r))
      .join("\n");
    expect(imported(lines).map(steps)).toEqual(asSteps);
  });

  it("keeps a run of a type it does not know as a step marked unrecognized, and inputs it cannot read as they came", () => {
    const runs = supportRuns("t2", { fails: false });
    runs.push({
      ...runs[2]!,
      id: "t2-r9",
      run_type: "reranker",
      name: "cohere-rerank",
      inputs: { docs: ["a"] },
      outputs: { output: ["a"] },
    });
    runs[1] = { ...runs[1]!, inputs: { question: "what?" } };
    const result = importLangSmith({ shape: "document", value: runs });
    if (!result.ok) throw new Error(JSON.stringify(result.issues));
    const [session] = result.sessions;
    const unknown = session!.events.find((e) => e.name === "cohere-rerank")!;
    expect(unknown.input).toEqual({
      callId: "t2-r9",
      args: { docs: ["a"] },
      operation: "reranker",
      unrecognized: true,
    });
    expect(result.warnings).toEqual([
      { path: "[6].run_type", message: 'run t2-r9: run_type "reranker" is not one Branchpoint knows: kept as a step' },
    ]);
    expect((session!.events[0]!.input as { rawInput: unknown }).rawInput).toEqual({ question: "what?" });
    expect((session!.metadata as { langsmith: { notes: string[] } }).langsmith.notes).toEqual([
      "llm run t2-r1: its inputs are not a list of messages; kept as they came (input.rawInput)",
    ]);
  });

  it("refuses a trace it cannot read, naming each problem's path, and imports nothing of the file", () => {
    const runs = supportRuns("t3");
    const bad = [...runs.slice(0, 2), { ...runs[2]!, id: "", start_time: "yesterday" }, { ...runs[3]!, run_type: 7 }];
    expect(importDocument(JSON.stringify([...supportRuns("ok"), ...bad]))).toEqual({
      ok: false,
      format: "langsmith",
      issues: [
        { path: "[8].id", message: "a run needs its id (a non-empty string)" },
        { path: "[8].start_time", message: "must be an ISO 8601 date-time or epoch milliseconds" },
        { path: "[9].run_type", message: "a run needs its run_type (llm, tool, chain…)" },
      ],
    });
  });

  it("treats hostile values as any outside input: __proto__ stays data, huge numbers and deep nesting are refused", () => {
    const text = JSON.stringify(supportRuns("t5")).replace(
      '"inputs":{"order_id":"4821"',
      '"inputs":{"__proto__":{"admin":true},"order_id":"4821"',
    );
    const [session] = imported(text);
    expect(({} as Record<string, unknown>).admin).toBeUndefined();
    const refund = session!.events.find((e) => e.name === "refund_payment")!.input as { args: object };
    expect(Object.keys(refund.args)).toEqual(["__proto__", "order_id", "amount"]);

    const huge = JSON.stringify(supportRuns("t6")).replace('"prompt_tokens":99', `"prompt_tokens":1${"0".repeat(400)}`);
    const hugeResult = importDocument(huge);
    expect(hugeResult.ok ? "" : hugeResult.issues[0]!.message).toMatch(/is too large to store/);
    const deep = JSON.stringify(supportRuns("t8")).replace(
      '"inputs":{"input"',
      `"x":${"[".repeat(600)}${"]".repeat(600)},"inputs":{"input"`,
    );
    const deepResult = importDocument(deep);
    expect(deepResult.ok ? "" : deepResult.issues[0]!.message).toMatch(/nest/);
  });

  it("reads LangSmith's times: without a zone as UTC, with one, or epoch milliseconds", () => {
    expect(runTime("2026-11-20T10:00:00.123456")).toBe("2026-11-20T10:00:00.123Z");
    expect(runTime("2026-11-20T12:00:00+02:00")).toBe("2026-11-20T10:00:00.000Z");
    expect(runTime(1_795_168_800_000)).toBe("2026-11-20T10:00:00.000Z");
    expect([runTime("soon"), runTime(1e300), runTime(null)]).toEqual([null, null, null]);
  });
});
