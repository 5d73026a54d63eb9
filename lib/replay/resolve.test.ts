import { describe, expect, it, vi } from "vitest";
import { cacheKey } from "./canonical";
import type { FixtureEntry } from "./log";
import type { HistoryRule, ToolRule } from "./policy";
import { replay, ReplayInputError } from "./replay";
import type { HistoryCandidate, HistoryLookup } from "./history-match";
import type { ToolExecutor } from "./tool-call";
import { modelSeqs, policyWith, requestEdit, run, sessionOf, toolSteps } from "./testing";

const history = (on_miss: HistoryRule["on_miss"] = "fail", scope: HistoryRule["scope"] = "baseline"): ToolRule => ({
  type: "history",
  scope,
  on_miss,
});
const neverCalled: ToolExecutor = vi.fn(async () => ({ output: "LIVE" }));

describe("history: use a recorded result", () => {
  it("returns the recorded result of a call with the same tool name and arguments, without executing the live tool", async () => {
    const tool = vi.fn(async () => ({ output: "LIVE" }));
    const base = sessionOf([{ name: "get_order", args: { order_id: "4821" }, result: { status: "shipped" } }]);
    const r = await run(base, policyWith(history()), { executors: { tool } });
    expect(toolSteps(r)[0]).toMatchObject({ source: "recorded", output: { status: "shipped" }, status: "completed" });
    expect(tool).not.toHaveBeenCalled();
  });

  it("matches by canonical JSON: the same arguments in another key order hit", async () => {
    const base = sessionOf([{ name: "t", args: { a: 1, b: { c: 2, d: 3 } }, result: "R" }]);
    const [m0] = modelSeqs(base).slice(1);
    const r = await run(base, policyWith(history("error_result")), {
      edits: [requestEdit(base, modelSeqs(base)[0]!, [{ id: "x", name: "t", args: { b: { d: 3, c: 2 }, a: 1 } }])],
    });
    expect(m0).toBeDefined();
    expect(toolSteps(r)[0]).toMatchObject({ source: "recorded", output: "R" });
  });

  it("calls with different arguments have different keys and do not match", async () => {
    const base = sessionOf([{ name: "t", args: { a: 1 }, result: "R" }]);
    const r = await run(base, policyWith(history("error_result")), {
      edits: [{ seq: 2, op: "replace_tool_args", value: { a: 2 } }],
    });
    expect(toolSteps(r)[0]).toMatchObject({ source: "error_result", status: "failed" });
    expect(toolSteps(r)[0]!.miss?.reason).toBe("no_recorded_call");
  });

  it("baseline scope: identical calls consume recorded results in invocation order", async () => {
    const base = sessionOf(
      [{ name: "poll", args: { job: 7 }, result: "pending" }],
      [{ name: "poll", args: { job: 7 }, result: "running" }],
      [{ name: "poll", args: { job: 7 }, result: "done" }],
    );
    const r = await run(base, policyWith(history()));
    expect(toolSteps(r).map((s) => s.output)).toEqual(["pending", "running", "done"]);
    expect(toolSteps(r).map((s) => s.occurrence)).toEqual([0, 1, 2]);
    expect(r.comparability).toBe("exact");
  });

  it("baseline scope: a replayed call past the last recorded occurrence is a miss and follows on_miss", async () => {
    const base = sessionOf([{ name: "poll", args: { job: 7 }, result: "pending" }]);
    const edit = requestEdit(base, modelSeqs(base)[1]!, [{ id: "again", name: "poll", args: { job: 7 } }]);
    const r = await run(base, policyWith(history("error_result")), { edits: [edit] });
    const extra = toolSteps(r)[1]!;
    expect(extra).toMatchObject({ source: "error_result", status: "failed" });
    expect(extra.miss).toMatchObject({ reason: "occurrences_used_up", occurrencesRecorded: 1, occurrencesUsed: 1 });
  });

  it("a miss does not advance the count: the next identical call still gets the next recording", async () => {
    // Base: poll(job 7) twice. Branch: the first call's args are edited (a miss), then two identical calls.
    const base = sessionOf(
      [{ name: "poll", args: { job: 7 }, result: "first" }],
      [{ name: "poll", args: { job: 7 }, result: "second" }],
    );
    const r = await run(base, policyWith(history("error_result")), {
      edits: [{ seq: 2, op: "replace_tool_args", value: { job: 8 } }],
    });
    expect(toolSteps(r).map((s) => s.source)).toEqual(["error_result", "recorded"]);
    // The miss left occurrence 0 unused, so the second call gets the first recording.
    expect(toolSteps(r)[1]!.output).toBe("first");
  });

  it("a matched failed recording raises its stored error without executing the live tool, and occupies its occurrence", async () => {
    const tool = vi.fn(async () => ({ output: "LIVE" }));
    const base = sessionOf(
      [{ name: "charge", args: { id: 1 }, error: { type: "Timeout", message: "gateway timed out" } }],
      [{ name: "charge", args: { id: 1 }, result: "charged" }],
    );
    const r = await run(base, policyWith(history()), { executors: { tool } });
    expect(toolSteps(r)[0]).toMatchObject({
      source: "recorded",
      status: "failed",
      error: { type: "Timeout", message: "gateway timed out" },
    });
    expect(toolSteps(r)[1]).toMatchObject({ source: "recorded", output: "charged" });
    expect(tool).not.toHaveBeenCalled();
    expect(r.comparability).toBe("exact");
  });

  it("recordings that never finished are skipped", async () => {
    const base = sessionOf(
      [{ name: "search", args: { q: "x" }, result: null, status: "incomplete" }],
      [{ name: "search", args: { q: "x" }, result: "hits" }],
    );
    const r = await run(base, policyWith(history("error_result")));
    // The first call gets the first *finished* recording; the second finds none left.
    expect(toolSteps(r)[0]).toMatchObject({ source: "recorded", output: "hits" });
    expect(toolSteps(r)[1]!.miss?.reason).toBe("occurrences_used_up");
  });

  it("a recording that never finished is named as the reason when it is the only one", async () => {
    const base = sessionOf([{ name: "search", args: { q: "x" }, result: null, status: "incomplete" }]);
    const r = await run(base, policyWith(history("error_result")));
    expect(toolSteps(r)[0]!.miss?.reason).toBe("recording_incomplete");
  });

  it("a completed history match replays its result, including null", async () => {
    const base = sessionOf([{ name: "lookup", args: { k: 1 }, result: null }]);
    const r = await run(base, policyWith(history()));
    expect(toolSteps(r)[0]).toMatchObject({ source: "recorded", output: null, status: "completed" });
    expect(r.status).toBe("completed");
  });

  it("except in LangGraph: it fails closed for null completed results", async () => {
    const base = sessionOf([{ name: "lookup", args: { k: 1 }, result: null }]);
    const r = await run(base, policyWith(history("error_result")), { adapter: "langgraph" });
    expect(r.status).toBe("failed");
    expect(r.stop?.code).toBe("langgraph_null_result");
  });

  it("if a call's arguments cannot be serialized to canonical JSON, it has no cache key and follows on_miss", async () => {
    const base = sessionOf([{ name: "t", args: { a: 1 }, result: "R" }]);
    const r = await run(base, policyWith(history("error_result")), {
      edits: [{ seq: 2, op: "replace_tool_args", value: { a: Number.NaN } }],
    });
    expect(toolSteps(r)[0]).toMatchObject({ cacheKey: null, source: "error_result" });
    expect(toolSteps(r)[0]!.miss?.reason).toBe("no_cache_key");
  });

  it("a history lookup of a call without arguments (null) is a miss: no cache key", async () => {
    const base = sessionOf([{ name: "now", args: null, result: "12:00" }]);
    const r = await run(base, policyWith(history("error_result")));
    expect(toolSteps(r)[0]!.miss?.reason).toBe("no_cache_key");
  });
});

describe("scopes cohort_version and agent", () => {
  const base = sessionOf(
    [{ name: "rate", args: { cur: "EUR" }, result: "base-value" }],
    [{ name: "rate", args: { cur: "EUR" }, result: "base-2" }],
  );

  const candidate = (over: Partial<HistoryCandidate>): HistoryCandidate => ({
    sessionId: "s",
    seq: 1,
    output: "x",
    status: "completed",
    isReplay: false,
    agentVersionId: "v1",
    recordedAt: "2026-01-01T00:00:00.000Z",
    ...over,
  });

  it("the newest completed matching recording answers every call (no occurrences)", async () => {
    const lookup = vi.fn<HistoryLookup>(async () => [
      candidate({ sessionId: "s-old", output: "old", recordedAt: "2026-01-01T00:00:00.000Z" }),
      candidate({ sessionId: "s-newest", seq: 9, output: "newest", recordedAt: "2026-03-01T00:00:00.000Z" }),
      candidate({ sessionId: "s-mid", output: "mid", recordedAt: "2026-02-01T00:00:00.000Z" }),
    ]);
    const r = await run(base, policyWith(history("fail", "agent")), { historyLookup: lookup });
    expect(toolSteps(r).map((s) => s.output)).toEqual(["newest", "newest"]);
    expect(lookup).toHaveBeenCalledTimes(2);
    expect(lookup.mock.calls[0]![0]).toMatchObject({
      scope: "agent",
      tool: "rate",
      cacheKey: cacheKey("rate", { cur: "EUR" }),
    });
  });

  it("the engine skips failed and unfinished calls and replay sessions, whatever the lookup returns", async () => {
    const lookup: HistoryLookup = async () => [
      candidate({ sessionId: "failed", output: "F", status: "failed", recordedAt: "2026-05-01T00:00:00.000Z" }),
      candidate({ sessionId: "open", output: "I", status: "incomplete", recordedAt: "2026-05-01T00:00:00.000Z" }),
      candidate({ sessionId: "replay", output: "R", isReplay: true, recordedAt: "2026-05-01T00:00:00.000Z" }),
      candidate({ sessionId: "real", output: "real", recordedAt: "2026-01-01T00:00:00.000Z" }),
    ];
    const r = await run(base, policyWith(history("fail", "agent")), { historyLookup: lookup });
    expect(toolSteps(r)[0]).toMatchObject({ source: "recorded", output: "real" });
  });

  it("cohort_version counts only the cohort's members (agent version, chosen sessions); without a cohort it misses", async () => {
    const lookup: HistoryLookup = async () => [
      candidate({
        sessionId: "other-version",
        output: "V2",
        agentVersionId: "v2",
        recordedAt: "2026-05-01T00:00:00.000Z",
      }),
      candidate({ sessionId: "not-chosen", output: "N", recordedAt: "2026-04-01T00:00:00.000Z" }),
      candidate({ sessionId: "member", output: "M", recordedAt: "2026-01-01T00:00:00.000Z" }),
    ];
    const policy = policyWith(history("error_result", "cohort_version"));
    const inVersion = await run(base, policy, { historyLookup: lookup, cohort: { agentVersionId: "v1" } });
    expect(toolSteps(inVersion)[0]).toMatchObject({ source: "recorded", output: "N" });
    const chosen = await run(base, policy, {
      historyLookup: lookup,
      cohort: { agentVersionId: "v1", sessionIds: ["member"] },
    });
    expect(toolSteps(chosen)[0]).toMatchObject({ source: "recorded", output: "M" });
    const none = await run(base, policy, { historyLookup: lookup });
    expect(toolSteps(none)[0]).toMatchObject({ source: "error_result" });
    expect(toolSteps(none)[0]!.miss?.reason).toBe("no_completed_match_in_scope");
  });

  it("lookups without an occurrence consider completed calls only: a failed-only history is a miss and follows on_miss", async () => {
    const lookup: HistoryLookup = async () => [candidate({ status: "failed" })];
    const r = await run(base, policyWith(history("error_result", "cohort_version")), {
      historyLookup: lookup,
      cohort: { agentVersionId: "v1" },
    });
    expect(toolSteps(r)[0]).toMatchObject({ source: "error_result" });
    expect(toolSteps(r)[0]!.miss?.reason).toBe("no_completed_match_in_scope");
  });

  it("a wider scope without a history lookup is rejected before the replay starts", async () => {
    await expect(run(base, policyWith(history("fail", "agent")))).rejects.toThrow(ReplayInputError);
  });
});

describe("on_miss", () => {
  const base = sessionOf([{ name: "a", args: { n: 1 }, result: "A" }], [{ name: "b", args: { n: 2 }, result: "B" }]);
  const missFirst = { edits: [{ seq: 2, op: "replace_tool_args" as const, value: { n: 99 } }] };

  it("fail: stops the replay without executing the tool; no later call runs", async () => {
    const tool = vi.fn(async () => ({ output: "LIVE" }));
    const r = await run(base, policyWith(history("fail")), { ...missFirst, executors: { tool } });
    expect(r.status).toBe("failed");
    expect(r.stop).toMatchObject({ code: "tool_miss_fail", call: { tool: "a", args: { n: 99 } } });
    expect(r.stop?.miss?.reason).toBe("no_recorded_call");
    expect(toolSteps(r)).toHaveLength(0);
    expect(tool).not.toHaveBeenCalled();
    expect(r.comparability).toBe("non_comparable");
  });

  it("error_result: returns a tool error to the agent and continues the replay", async () => {
    const r = await run(base, policyWith(history("error_result")), missFirst);
    expect(toolSteps(r)[0]).toMatchObject({ source: "error_result", status: "failed", error: { type: "ReplayMiss" } });
    expect(toolSteps(r)[1]).toMatchObject({ source: "recorded", output: "B" });
    expect(r.status).toBe("completed");
  });

  it("passthrough: executes the live tool (a read-only one runs without approval)", async () => {
    const tool = vi.fn<ToolExecutor>(async () => ({ output: "LIVE" }));
    const r = await run(base, policyWith(history("passthrough")), {
      ...missFirst,
      executors: { tool },
      tools: [{ name: "a", sideEffect: "read" }],
    });
    expect(toolSteps(r)[0]).toMatchObject({ source: "live", output: "LIVE" });
    expect(toolSteps(r)[0]!.miss?.reason).toBe("no_recorded_call");
    expect(tool).toHaveBeenCalledTimes(1);
  });

  it("pause: stops in state paused with the pending call, its miss and the closest recorded result", async () => {
    const r = await run(base, policyWith(history("pause")), missFirst);
    expect(r.status).toBe("paused");
    expect(r.pending).toMatchObject({
      waitingFor: "fixture",
      tool: "a",
      args: { n: 99 },
      cacheKey: cacheKey("a", { n: 99 }),
      prefill: { output: "A" },
    });
    expect(r.pending?.miss?.closest[0]?.differingPaths).toEqual([["n"]]);
  });

  it("a model change that calls a tool absent from the baseline: with fail, that call stops the replay", async () => {
    const edit = requestEdit(base, modelSeqs(base)[1]!, [
      { id: "new", name: "refund_payment", args: { order_id: "1" } },
    ]);
    const r = await run(base, policyWith(history("fail")), { edits: [edit] });
    expect(r.status).toBe("failed");
    expect(r.stop?.miss?.message).toContain('never called "refund_payment"');
  });

  it("a model change that calls a tool absent from the baseline: with error_result, the agent receives an error", async () => {
    const edit = requestEdit(base, modelSeqs(base)[1]!, [
      { id: "new", name: "refund_payment", args: { order_id: "1" } },
    ]);
    const r = await run(base, policyWith(history("error_result")), { edits: [edit] });
    expect(toolSteps(r)[1]).toMatchObject({ name: "refund_payment", source: "error_result", status: "failed" });
  });
});

describe("static: return a configured result", () => {
  const base = sessionOf([
    { name: "refund_payment", args: { order_id: "4821", amount: 129, flags: [1, 2] }, result: "recorded" },
  ]);
  const cases: [string, ToolRule, unknown][] = [
    [
      "exact matches deep-equal arguments",
      {
        type: "static",
        cases: [{ match_mode: "exact", match: { amount: 129, flags: [1, 2], order_id: "4821" }, result: "S" }],
      },
      "S",
    ],
    [
      "exact does not match a subset of the arguments",
      {
        type: "static",
        cases: [{ match_mode: "exact", match: { order_id: "4821" }, result: "S" }],
        on_miss: "error_result",
      },
      null,
    ],
    [
      "subset matches when every top-level key of match is present and deep-equal",
      { type: "static", cases: [{ match_mode: "subset", match: { order_id: "4821" }, result: "S" }] },
      "S",
    ],
    [
      "subset compares arrays whole (same length and order)",
      {
        type: "static",
        cases: [{ match_mode: "subset", match: { flags: [1] }, result: "S" }],
        on_miss: "error_result",
      },
      null,
    ],
    [
      "subset: true does not equal 1",
      {
        type: "static",
        cases: [{ match_mode: "subset", match: { amount: true }, result: "S" }],
        on_miss: "error_result",
      },
      null,
    ],
    [
      "subset: a match that is not an object never matches",
      { type: "static", cases: [{ match_mode: "subset", match: ["order_id"], result: "S" }], on_miss: "error_result" },
      null,
    ],
    [
      "the first case that matches wins",
      {
        type: "static",
        cases: [
          { match_mode: "subset", match: { order_id: "4821" }, result: "first" },
          { match_mode: "exact", match: { amount: 129, flags: [1, 2], order_id: "4821" }, result: "second" },
        ],
      },
      "first",
    ],
    [
      "a case without match matches anything",
      {
        type: "static",
        cases: [
          { match_mode: "exact", match: { order_id: "x" }, result: "no" },
          { match_mode: "exact", result: "catch-all" },
        ],
      },
      "catch-all",
    ],
  ];
  it.each(cases)("%s", async (_name, rule, expected) => {
    const r = await run(base, policyWith(history(), { refund_payment: rule }));
    const step = toolSteps(r)[0]!;
    if (expected === null) {
      expect(step.source).toBe("error_result");
      expect(step.miss?.reason).toBe("no_static_case_matched");
    } else {
      expect(step).toMatchObject({ source: "static", output: expected });
    }
  });

  it("a miss names the paths each case differs at", async () => {
    const r = await run(
      base,
      policyWith(history(), {
        refund_payment: {
          type: "static",
          cases: [{ match_mode: "subset", match: { order_id: "1" }, result: "S" }],
          on_miss: "error_result",
        },
      }),
    );
    expect(toolSteps(r)[0]!.miss?.staticCases?.[0]?.differingPaths).toEqual([["order_id"]]);
  });

  it("can stub a tool that was absent from the baseline", async () => {
    const b = sessionOf([{ name: "a", args: {}, result: 1 }]);
    const edit = requestEdit(b, modelSeqs(b)[1]!, [{ id: "n", name: "stubbed", args: { q: 1 } }]);
    const r = await run(
      b,
      policyWith(history(), { stubbed: { type: "static", cases: [{ match_mode: "exact", result: "stub" }] } }),
      { edits: [edit] },
    );
    expect(toolSteps(r)[1]).toMatchObject({ name: "stubbed", source: "static", output: "stub" });
  });

  it("on_miss controls unmatched arguments (absent on_miss stops: fail)", async () => {
    const r = await run(
      base,
      policyWith(history(), {
        refund_payment: { type: "static", cases: [{ match_mode: "exact", match: { x: 1 }, result: "S" }] },
      }),
    );
    expect(r.status).toBe("failed");
    expect(r.stop?.miss?.reason).toBe("no_static_case_matched");
  });
});

describe("passthrough: execute the live tool", () => {
  const base = sessionOf(
    [{ name: "get_current_time", args: {}, result: "recorded-time" }],
    [{ name: "send_email", args: { to: "a" }, result: "sent" }],
  );

  it("executes the live tool and returns its result; the result is a new log entry", async () => {
    const tool = vi.fn<ToolExecutor>(async () => ({ output: "12:00" }));
    const r = await run(base, policyWith(history(), { get_current_time: { type: "passthrough" } }), {
      executors: { tool },
      tools: [{ name: "get_current_time", sideEffect: "read" }],
    });
    expect(toolSteps(r)[0]).toMatchObject({ source: "live", output: "12:00" });
    expect(r.newLogEntries).toEqual([
      expect.objectContaining({ type: "live_tool_result", step: toolSteps(r)[0]!.seq, output: "12:00" }),
    ]);
    expect(r.evidence.liveCalls).toEqual([
      expect.objectContaining({ kind: "tool", name: "get_current_time", fromLog: false, approval: null }),
    ]);
  });

  it("resuming with the log never repeats a live call", async () => {
    const tool = vi.fn<ToolExecutor>(async () => ({ output: "12:00" }));
    const policy = policyWith(history(), { get_current_time: { type: "passthrough" } });
    const tools = [{ name: "get_current_time", sideEffect: "read" as const }];
    const first = await run(base, policy, { executors: { tool }, tools });
    const second = await run(base, policy, { executors: { tool }, tools, log: first.newLogEntries });
    expect(tool).toHaveBeenCalledTimes(1);
    expect(second.newLogEntries).toEqual([]);
    expect(toolSteps(second)[0]).toMatchObject({ source: "live", output: "12:00" });
    expect(second.evidence.liveCalls[0]?.fromLog).toBe(true);
  });

  it("a tool not declared read-only needs approval per call: the branch stops awaiting_approval", async () => {
    const tool = vi.fn<ToolExecutor>(async () => ({ output: "sent-live" }));
    const r = await run(base, policyWith(history(), { send_email: { type: "passthrough" } }), { executors: { tool } });
    expect(r.status).toBe("awaiting_approval");
    expect(r.pending).toMatchObject({ waitingFor: "approval", tool: "send_email" });
    expect(tool).not.toHaveBeenCalled();
  });

  it("approval per_call is asked even for a read-only tool when the rule says so", async () => {
    const r = await run(
      base,
      policyWith(history(), { get_current_time: { type: "passthrough", approval: "per_call" } }),
      {
        executors: { tool: neverCalled },
        tools: [{ name: "get_current_time", sideEffect: "read" }],
      },
    );
    expect(r.status).toBe("awaiting_approval");
  });

  it("an approval entry in the log lets the call run, and the evidence names it", async () => {
    const tool = vi.fn<ToolExecutor>(async () => ({ output: "sent-live" }));
    const policy = policyWith(history(), { send_email: { type: "passthrough", approval: "per_call" } });
    const paused = await run(base, policy, { executors: { tool } });
    const p = paused.pending!;
    const approval = {
      type: "approval" as const,
      id: "ap1",
      at: "2026-01-01T00:00:00Z",
      step: p.step,
      tool: p.tool,
      cacheKey: p.cacheKey,
      decision: "approved" as const,
      by: "ana",
    };
    const r = await run(base, policy, { executors: { tool }, log: [approval] });
    expect(r.status).toBe("completed");
    expect(toolSteps(r)[1]).toMatchObject({ source: "live", output: "sent-live", approvalId: "ap1" });
    expect(r.evidence.liveCalls[0]?.approval).toMatchObject({ by: "ana", decision: "approved" });
    expect(r.evidence.strength).toBe("live");
  });

  it("a denial gives the agent a tool error and the replay continues", async () => {
    const policy = policyWith(history(), { send_email: { type: "passthrough", approval: "per_call" } });
    const paused = await run(base, policy, { executors: { tool: neverCalled } });
    const p = paused.pending!;
    const r = await run(base, policy, {
      executors: { tool: neverCalled },
      log: [
        {
          type: "approval",
          id: "d",
          at: null,
          step: p.step,
          tool: p.tool,
          cacheKey: p.cacheKey,
          decision: "denied",
          by: "ana",
        },
      ],
    });
    expect(toolSteps(r)[1]).toMatchObject({
      source: "error_result",
      status: "failed",
      error: { type: "ApprovalDenied" },
    });
    expect(r.status).toBe("completed");
  });

  it("a live call without a tool executor stops the branch with a clear reason", async () => {
    const r = await run(base, policyWith(history(), { get_current_time: { type: "passthrough" } }), {
      tools: [{ name: "get_current_time", sideEffect: "none" }],
    });
    expect(r.status).toBe("failed");
    expect(r.stop?.code).toBe("tool_executor_missing");
  });

  it("maxLiveCalls bounds live executions: budget_exhausted, not an error", async () => {
    const tool = vi.fn<ToolExecutor>(async () => ({ output: "t" }));
    const r = await run(base, policyWith({ type: "passthrough" }, undefined, { maxLiveCalls: 1 }), {
      executors: { tool },
      tools: [
        { name: "get_current_time", sideEffect: "read" },
        { name: "send_email", sideEffect: "read" },
      ],
    });
    expect(r.status).toBe("budget_exhausted");
    expect(tool).toHaveBeenCalledTimes(1);
  });
});

describe("llm: generate a result with a model", () => {
  const base = sessionOf([{ name: "weather", args: { city: "Oslo" }, result: "rain" }]);
  it("asks the simulator with the rule's model and instructions, and logs its answer", async () => {
    const simulator = vi.fn(async () => ({ output: "sunny (simulated)" }));
    const r = await run(
      base,
      policyWith(history(), { weather: { type: "llm", model: "sim-1", instructions: "be terse" } }),
      { executors: { simulator } },
    );
    expect(simulator).toHaveBeenCalledWith(
      expect.objectContaining({ tool: "weather", args: { city: "Oslo" }, model: "sim-1", instructions: "be terse" }),
    );
    expect(toolSteps(r)[0]).toMatchObject({ source: "llm", output: "sunny (simulated)" });
    expect(r.evidence.strength).toBe("simulated");
    expect(r.newLogEntries[0]).toMatchObject({ type: "simulated_tool_result", model: "sim-1" });
  });
});

describe("blocked and fixture rules", () => {
  const base = sessionOf([{ name: "delete_user", args: { id: 1 }, result: "deleted" }]);

  it("blocked: the call is refused and the agent gets a tool error", async () => {
    const r = await run(base, policyWith(history(), { delete_user: { type: "blocked" } }), {
      executors: { tool: neverCalled },
    });
    expect(toolSteps(r)[0]).toMatchObject({ source: "blocked", status: "failed", error: { type: "ToolBlocked" } });
    expect(r.status).toBe("completed");
  });

  const fixture = (over: Partial<FixtureEntry>): FixtureEntry => ({
    type: "fixture",
    id: "f1",
    at: "2026-01-01T00:00:00Z",
    step: 2,
    tool: "delete_user",
    cacheKey: cacheKey("delete_user", { id: 1 }),
    output: "from-fixture",
    author: "ana",
    note: "checked in prod",
    ...over,
  });

  it("fixture: answered by an analyst fixture matched by cache key, with provenance in the evidence", async () => {
    const r = await run(base, policyWith({ type: "fixture" }), { log: [fixture({ step: 40 })] });
    expect(toolSteps(r)[0]).toMatchObject({ source: "fixture", output: "from-fixture", fixtureId: "f1" });
    expect(r.evidence.fixturesUsed).toEqual([expect.objectContaining({ author: "ana", note: "checked in prod" })]);
    expect(r.evidence.strength).toBe("controlled");
  });

  it("fixture: a call without a cache key is matched by step", async () => {
    const b = sessionOf([{ name: "delete_user", args: null, result: "x" }]);
    const r = await run(b, policyWith({ type: "fixture" }), { log: [fixture({ cacheKey: null, step: 2 })] });
    expect(toolSteps(r)[0]).toMatchObject({ source: "fixture", output: "from-fixture" });
  });

  it("fixture: none in the log pauses for one (default on_miss pause)", async () => {
    const r = await run(base, policyWith({ type: "fixture" }));
    expect(r.status).toBe("paused");
    expect(r.pending?.miss?.reason).toBe("no_fixture");
  });

  it("a fixture may supply an error the tool returns", async () => {
    const r = await run(base, policyWith({ type: "fixture" }), {
      log: [fixture({ output: undefined, error: { type: "NotFound", message: "no user" } })],
    });
    expect(toolSteps(r)[0]).toMatchObject({ source: "fixture", status: "failed", error: { type: "NotFound" } });
  });
});

describe("a policy is required", () => {
  it("without a suitable policy a replay could repeat side effects, so none starts without one", async () => {
    const base = sessionOf([{ name: "a", args: {}, result: 1 }]);
    await expect(replay({ base, policy: undefined as never })).rejects.toMatchObject({ code: "invalid_policy" });
  });
});

describe("calls of one model step run in the order the model requested them", () => {
  it("a new call requested first stops the branch on its miss before a later recorded passthrough call runs live", async () => {
    const base = sessionOf([{ id: "b", name: "ping", args: { n: 1 }, result: "pong" }]);
    const tool = vi.fn<ToolExecutor>(async () => ({ output: "LIVE" }));
    const edit = requestEdit(base, modelSeqs(base)[0]!, [
      { id: "a", name: "lookup", args: { q: "new" } },
      { id: "b", name: "ping", args: { n: 1 } },
    ]);
    const r = await run(base, policyWith(history("fail"), { ping: { type: "passthrough" } }), {
      edits: [edit],
      executors: { tool },
      tools: [{ name: "ping", sideEffect: "read" }],
    });
    expect(r.status).toBe("failed");
    expect(r.stop).toMatchObject({ call: { tool: "lookup", callId: "a" } });
    expect(tool).not.toHaveBeenCalled();
    expect(toolSteps(r)).toHaveLength(0);
  });

  it("recorded parallel calls still keep the record's order, so an unchanged branch is exact", async () => {
    const base = sessionOf([
      { id: "x", name: "first", args: {}, result: 1 },
      { id: "y", name: "second", args: {}, result: 2 },
    ]);
    const edit = requestEdit(base, modelSeqs(base)[0]!, [
      { id: "y", name: "second", args: {} },
      { id: "x", name: "first", args: {} },
    ]);
    const r = await run(base, policyWith(history("fail")), { edits: [edit] });
    expect(toolSteps(r).map((s) => s.name)).toEqual(["first", "second"]);
  });
});
