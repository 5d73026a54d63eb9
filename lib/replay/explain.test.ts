import { describe, expect, it } from "vitest";
import { explainToolRule } from "./explain";
import { policyWith, sessionOf } from "./testing";

const base = sessionOf(
  [{ name: "poll", args: { job: 1 }, result: "first" }],
  [{ name: "poll", args: { job: 1 }, result: "second" }],
  [{ name: "refund", args: { id: 1 }, result: "ok" }],
);
const hist = policyWith({ type: "history", scope: "baseline", on_miss: "pause" });

describe("try a rule (explainToolRule)", () => {
  it("a recorded call is tried as its own occurrence and returns its recording", async () => {
    const second = base.filter((e) => e.name === "poll")[1]!;
    const e = await explainToolRule(hist, { seq: second.seq }, base);
    expect(e.occurrence).toBe(1);
    expect(e.verdict).toMatchObject({ type: "answer", source: "recorded", output: "second", recordedSeq: second.seq });
    expect(e.rulePath).toEqual(["tools", "default"]);
  });

  it("a call past the last occurrence says the occurrences were used up", async () => {
    const e = await explainToolRule(hist, { tool: "poll", args: { job: 1 }, occurrence: 2 }, base);
    expect(e.verdict.type).toBe("pause");
    expect(e.verdict.type === "pause" && e.verdict.miss.reason).toBe("occurrences_used_up");
  });

  it("a miss names the closest recorded call and the differing argument paths", async () => {
    const e = await explainToolRule(hist, { tool: "refund", args: { id: 2 } }, base);
    expect(e.verdict.type === "pause" && e.verdict.miss.closest[0]).toMatchObject({
      differingPaths: [["id"]],
      output: "ok",
    });
  });

  it("passthrough reports that it would run live, without running anything", async () => {
    const e = await explainToolRule(
      policyWith({ type: "passthrough" }),
      { seq: base.find((x) => x.name === "refund")!.seq },
      base,
      { tools: [{ name: "refund", sideEffect: "read" }] },
    );
    expect(e.verdict).toMatchObject({ type: "would_run_live", kind: "tool" });
  });

  it("static rules show the case result", async () => {
    const p = policyWith(
      { type: "history", scope: "baseline", on_miss: "fail" },
      { refund: { type: "static", cases: [{ match_mode: "subset", match: { id: 1 }, result: "S" }] } },
    );
    const e = await explainToolRule(p, { tool: "refund", args: { id: 1, extra: true } }, base);
    expect(e.verdict).toMatchObject({ type: "answer", source: "static", output: "S" });
    expect(e.rulePath).toEqual(["tools", "overrides", "refund"]);
  });

  it("a recorded call that never finished is not answered by an earlier recording: history skips it and on_miss applies", async () => {
    const session = sessionOf(
      [{ name: "poll", args: { job: 1 }, result: "first" }],
      [{ name: "poll", args: { job: 1 }, result: null, status: "incomplete" }],
    );
    const incomplete = session.filter((e) => e.name === "poll")[1]!;
    expect(incomplete.occurrence).toBeNull();
    const paused = await explainToolRule(hist, { seq: incomplete.seq }, session);
    expect(paused.occurrence).toBe(1);
    expect(paused.verdict.type).toBe("pause");
    expect(paused.verdict.miss).toMatchObject({
      reason: "recording_incomplete",
      occurrencesRecorded: 1,
      occurrencesUsed: 1,
    });
    expect(paused.verdict.miss?.message).toMatch(/never finished/);
    expect(paused.note).toMatch(/never finished/);

    const failed = await explainToolRule(
      policyWith({ type: "history", scope: "baseline", on_miss: "fail" }),
      { seq: incomplete.seq },
      session,
    );
    expect(failed.verdict).toMatchObject({
      type: "stop",
      code: "tool_miss_fail",
      miss: { reason: "recording_incomplete" },
    });
    expect(failed.verdict.type === "stop" && failed.verdict.message).toMatch(/never finished.*on_miss \(fail\)/);

    const errored = await explainToolRule(
      policyWith({ type: "history", scope: "baseline", on_miss: "error_result" }),
      { seq: incomplete.seq },
      session,
    );
    expect(errored.verdict).toMatchObject({
      type: "answer",
      source: "error_result",
      error: { type: "ReplayMiss" },
      miss: { reason: "recording_incomplete" },
    });
    expect(errored.verdict.type === "answer" && errored.verdict.error?.message).toMatch(/never finished/);
  });

  it("a recorded call that never finished is tried at its place, as a replay would: the next finished identical recording answers it", async () => {
    const session = sessionOf(
      [{ name: "poll", args: { job: 1 }, result: "first" }],
      [{ name: "poll", args: { job: 1 }, result: null, status: "incomplete" }],
      [{ name: "poll", args: { job: 1 }, result: "retried" }],
    );
    const [, incomplete, retried] = session.filter((e) => e.name === "poll");
    const e = await explainToolRule(hist, { seq: incomplete!.seq }, session);
    expect(e.occurrence).toBe(1);
    expect(e.verdict).toMatchObject({
      type: "answer",
      source: "recorded",
      output: "retried",
      recordedSeq: retried!.seq,
    });
    expect(e.note).toMatch(/never finished/);
  });

  it("a finished recorded call has no note", async () => {
    const e = await explainToolRule(hist, { seq: base.find((x) => x.name === "refund")!.seq }, base);
    expect(e.note).toBeNull();
  });

  it("a seq that is not a tool call is a RangeError", async () => {
    await expect(explainToolRule(hist, { seq: 0 }, base)).rejects.toThrow(RangeError);
  });
});
