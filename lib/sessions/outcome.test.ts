import { describe, expect, it } from "vitest";
import { firstUnrecoveredToolFailure, sessionOutcome, type OutcomeStep } from "./outcome";

let seq = 0;
const step = (kind: string, name: string, status = "completed", message?: string): OutcomeStep => ({
  seq: seq++,
  kind,
  name,
  status,
  ...(message ? { error: { type: "ToolError", message } } : {}),
});
const run = (...steps: OutcomeStep[]) => steps.map((s, i) => ({ ...s, seq: i }));
const model = () => step("model_call", "gpt-4o");
const tool = (name: string, status = "completed", message?: string) => step("tool_call", name, status, message);
const final = () => step("final_output", "final_output");

describe("sessionOutcome", () => {
  it("τ-bench: reward 1 passes, reward 0 fails at the final answer when every tool failure was recovered", () => {
    const events = run(
      model(),
      tool("get_user", "failed", "Error: user not found"),
      model(),
      tool("get_user"),
      model(),
      final(),
    );
    expect(sessionOutcome({ metadata: { source: "tau-bench", reward: 1 }, events })).toEqual({
      outcome: "passed",
      reason: "τ-bench scored the run 1: the task's goal was reached.",
      seq: null,
    });
    expect(sessionOutcome({ metadata: { source: "tau-bench", reward: 0 }, events })).toEqual({
      outcome: "failed",
      reason: "τ-bench scored the run 0: the task's goal was not reached.",
      seq: 1, // the last failed step: no unrecovered one, so the last failure is where to look
    });
    expect(sessionOutcome({ metadata: { source: "tau-bench", reward: 0 }, events: run(model(), final()) })).toEqual({
      outcome: "failed",
      reason: "τ-bench scored the run 0: the task's goal was not reached.",
      seq: 1,
    });
  });

  it("the source's verdict wins over the steps, both ways", () => {
    const broken = run(model(), tool("book", "failed", "no seats"), model(), final());
    expect(sessionOutcome({ metadata: { source: "tau-bench", reward: 1 }, events: broken }).outcome).toBe("passed");
    expect(sessionOutcome({ metadata: { outcome: "passed" }, events: broken })).toEqual({
      outcome: "passed",
      reason: "The source marked the run as passed.",
      seq: null,
    });
    const clean = run(model(), tool("lookup"), model(), final());
    expect(
      sessionOutcome({ metadata: { outcome: "failed", outcomeReason: "Refunded twice." }, events: clean }),
    ).toEqual({
      outcome: "failed",
      reason: "Refunded twice.",
      seq: 3,
    });
    // A reward outside τ-bench, or not a number, is no verdict.
    expect(sessionOutcome({ metadata: { reward: 0 }, events: clean }).outcome).toBe("unknown");
    expect(sessionOutcome({ metadata: { source: "tau-bench", reward: "0" }, events: clean }).outcome).toBe("unknown");
    expect(sessionOutcome({ metadata: { outcome: "maybe" }, events: clean }).outcome).toBe("unknown");
  });

  it("a failed tool call with no later success of the same tool fails the run, at that call", () => {
    const events = run(model(), tool("refund", "failed", "card declined."), model(), tool("lookup"), model(), final());
    expect(sessionOutcome({ metadata: {}, events })).toEqual({
      outcome: "failed",
      reason: "refund failed at step 1 (card declined); no later call of it succeeded.",
      seq: 1,
    });
  });

  it("a later success of the same tool (any arguments) recovers; another tool's success does not", () => {
    const recovered = run(model(), tool("track", "failed", "503"), model(), tool("track"), model(), final());
    expect(sessionOutcome({ metadata: {}, events: recovered })).toEqual({
      outcome: "unknown",
      reason: "The run finished; the source gives no verdict on it.",
      seq: null,
    });
    // A success BEFORE the failure is no recovery; the first unrecovered failure is named.
    const twice = run(
      tool("a"),
      tool("a", "failed", "x"),
      tool("b", "failed", "y"),
      tool("b"),
      tool("a", "failed", "z"),
    );
    expect(firstUnrecoveredToolFailure(twice)?.seq).toBe(1);
    expect(sessionOutcome({ metadata: {}, events: twice }).seq).toBe(1);
  });

  it("a run that ends on a failed step fails there; an open recording is unknown", () => {
    expect(
      sessionOutcome({
        metadata: {},
        events: run(model(), tool("a"), step("model_call", "gpt", "failed", "rate limited")),
      }),
    ).toEqual({
      outcome: "failed",
      reason: "The run ended on a failed step: gpt at step 2 (rate limited).",
      seq: 2,
    });
    expect(
      sessionOutcome({
        metadata: {},
        events: run(model(), tool("a", "failed"), step("model_call", "gpt", "incomplete")),
      }),
    ).toEqual({ outcome: "unknown", reason: "The recording is still open: some steps have not ended.", seq: null });
    expect(sessionOutcome({ metadata: {}, events: [] })).toEqual({
      outcome: "unknown",
      reason: "The recording has no steps.",
      seq: null,
    });
  });

  it("order is by seq, not by position in the list", () => {
    const events = run(model(), tool("t", "failed", "x"), tool("t"), final()).reverse();
    expect(sessionOutcome({ metadata: {}, events }).outcome).toBe("unknown");
  });

  it("a long reason is cut to one line of at most 200 characters", () => {
    const events = run(tool("t", "failed", `line one\n${"x".repeat(400)}`));
    const { reason } = sessionOutcome({ metadata: {}, events });
    expect(reason.length).toBe(200);
    expect(reason.endsWith("…")).toBe(true);
    expect(reason).not.toContain("\n");
  });
});
