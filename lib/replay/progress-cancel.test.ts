import { describe, expect, it } from "vitest";
import type { Message } from "./events";
import type { ToolRule } from "./policy";
import { replay, type ModelExecutor } from "./replay";
import { CancelledBeforeCall, type ToolExecutor } from "./tool-call";
import { policyWith, sessionOf, toolSteps } from "./testing";

const history: ToolRule = { type: "history", scope: "baseline", on_miss: "fail" };
const base = sessionOf(
  [{ name: "a", args: { k: 1 }, result: 1 }],
  [
    { name: "b", args: { k: 2 }, result: 2 },
    { name: "c", args: { k: 3 }, result: 3 },
  ],
  [{ name: "d", args: { k: 4 }, result: 4 }],
);

describe("replay progress", () => {
  it("reports base events covered at each model step and the full count at the end, never going back", async () => {
    const reports: { done: number; total: number }[] = [];
    const r = await replay({ base, policy: policyWith(history), onProgress: (p) => reports.push(p) });
    expect(r.status).toBe("completed");
    const total = base.length;
    // One report before each of the 4 model steps, then the final one.
    expect(reports.map((p) => p.total)).toEqual(Array(5).fill(total));
    // Before model step 0 only the user message (seq 0) is covered; model step 1 follows seq 0..2.
    expect(reports.map((p) => p.done)).toEqual([1, 3, 6, 8, total]);
  });

  it("reports what was covered when the branch stops early", async () => {
    const reports: { done: number; total: number }[] = [];
    const r = await replay({
      base,
      policy: policyWith(history),
      edits: [{ seq: 4, op: "replace_tool_args", value: { k: 99 } }],
      onProgress: (p) => reports.push(p),
    });
    expect(r.status).toBe("failed");
    // The failed call is seq 4; the branch got as far as model step 1 (seq 3).
    expect(reports.at(-1)).toEqual({ done: 4, total: base.length });
  });
});

describe("replay cancellation", () => {
  it("ends as cancelled at the first step boundary where isCancelled says so, keeping the steps so far", async () => {
    let checks = 0;
    const r = await replay({
      base,
      policy: policyWith(history),
      // Model step 0, call a, model step 1, call b: cancelled before call b.
      isCancelled: () => ++checks === 4,
    });
    expect(r.status).toBe("cancelled");
    expect(r.comparability).toBe("non_comparable");
    expect(r.stop).toMatchObject({ code: "cancelled", step: 4 });
    expect(r.steps.map((s) => [s.kind, s.baseSeq])).toEqual([
      ["user_message", 0],
      ["model_call", 1],
      ["tool_call", 2],
      ["model_call", 3],
    ]);
    expect(toolSteps(r).map((s) => s.name)).toEqual(["a"]);
    expect(r.pending).toBeNull();
  });

  it("accepts an async answer, and false lets the replay finish exactly", async () => {
    const cancelled = await replay({ base, policy: policyWith(history), isCancelled: async () => true });
    expect(cancelled.status).toBe("cancelled");
    expect(cancelled.steps.map((s) => s.kind)).toEqual(["user_message"]);

    const finished = await replay({ base, policy: policyWith(history), isCancelled: async () => false });
    expect(finished.status).toBe("completed");
    expect(finished.comparability).toBe("exact");
  });

  it("a check that throws fails the branch as an executor error", async () => {
    const r = await replay({
      base,
      policy: policyWith(history),
      isCancelled: () => Promise.reject(new Error("queue unreachable")),
    });
    expect(r.status).toBe("failed");
    expect(r.stop).toMatchObject({ code: "executor_error" });
    expect(r.stop?.message).toContain("queue unreachable");
  });
});

describe("a cancel an executor sees just before its call goes out", () => {
  it("ends a live model step as cancelled, not failed, keeping the steps before it", async () => {
    let calls = 0;
    const model: ModelExecutor = async (req) => {
      if (req.modelStep === 1) throw new CancelledBeforeCall(`model step ${req.modelStep}`);
      calls++;
      return { output: base.find((e) => e.seq === 1)!.output as Message, model: "gpt-test" };
    };
    const r = await replay({
      base,
      policy: policyWith(history, undefined, { model: "pinned-live" }),
      executors: { model },
      isCancelled: () => false,
    });
    expect(calls).toBe(1);
    expect(r.status).toBe("cancelled");
    expect(r.stop).toEqual({
      code: "cancelled",
      message: "The replay was cancelled before model step 1; the 3 steps before it are kept.",
      step: 3,
      miss: null,
    });
    expect(r.steps.map((s) => [s.kind, s.baseSeq])).toEqual([
      ["user_message", 0],
      ["model_call", 1],
      ["tool_call", 2],
    ]);
    expect(r.pending).toBeNull();
  });

  it("ends a passthrough tool call as cancelled: the call is no tool error the agent sees", async () => {
    const tool: ToolExecutor = async (call) => {
      throw new CancelledBeforeCall(`the "${call.tool}" call`);
    };
    const r = await replay({
      base,
      policy: policyWith(history, { b: { type: "passthrough" } }),
      tools: [{ name: "b", sideEffect: "read" }],
      executors: { tool },
      isCancelled: () => false,
    });
    expect(r.status).toBe("cancelled");
    expect(r.stop?.message).toBe('The replay was cancelled before the "b" call; the 4 steps before it are kept.');
    expect(toolSteps(r).map((s) => s.name)).toEqual(["a"]);
    expect(r.newLogEntries).toEqual([]);
  });
});
