import { describe, expect, it } from "vitest";
import { runPassed } from "./checks";
import {
  firstDivergenceOf,
  outcomeSummary,
  probeDivergence,
  stepDeparts,
  trialStats,
  wilsonInterval,
  type TrialRun,
} from "./trials";

describe("Wilson 95 % interval", () => {
  it.each<[number, number, number, number]>([
    // Reference values (Newcombe 1998, Table I; and direct computation).
    [10, 20, 0.2993, 0.7007],
    [0, 10, 0, 0.2775],
    [10, 10, 0.7225, 1],
    [81, 263, 0.2553, 0.3662],
  ])("%i of %i → [%f, %f]", (k, n, low, high) => {
    const r = wilsonInterval(k, n);
    expect(r.rate).toBeCloseTo(k / n, 10);
    expect(r.low).toBeCloseTo(low, 4);
    expect(r.high).toBeCloseTo(high, 4);
  });

  it("no trials: nothing is known", () => {
    expect(wilsonInterval(0, 0)).toEqual({ successes: 0, n: 0, rate: null, low: 0, high: 1 });
  });

  it("refuses impossible counts", () => {
    expect(() => wilsonInterval(3, 2)).toThrow(RangeError);
    expect(() => wilsonInterval(-1, 2)).toThrow(RangeError);
  });
});

const follow = (n: number): TrialRun["steps"] => Array.from({ length: n }, (_, k) => ({ baseSeq: k, departs: false }));

describe("first divergence", () => {
  it.each<[string, TrialRun["steps"], number | null]>([
    ["follows the base", follow(5), null],
    ["departs at 3", [...follow(3), { baseSeq: 3, departs: true }, { baseSeq: 4, departs: true }], 3],
    ["an inserted step after 2", [...follow(3), { baseSeq: null, departs: true }], 3],
    ["skips base step 2", [...follow(2), { baseSeq: 3, departs: false }, { baseSeq: 4, departs: false }], 2],
    ["ends early", follow(3), 3],
  ])("%s", (_name, steps, expected) => {
    expect(firstDivergenceOf({ passed: null, steps }, 5)).toBe(expected);
  });
});

describe("trial statistics", () => {
  it("pass rate over decided trials, per-step rates and the first-divergence histogram", () => {
    const departAt3: TrialRun["steps"] = [...follow(3), { baseSeq: 3, departs: true }, { baseSeq: 4, departs: true }];
    const trials: TrialRun[] = [
      { passed: true, steps: departAt3 },
      { passed: true, steps: departAt3 },
      { passed: false, steps: follow(5) },
      { passed: null, steps: follow(5) },
    ];
    const stats = trialStats(trials, 5);
    expect(stats.n).toBe(4);
    expect(stats.undecided).toBe(1);
    expect(stats.pass).toMatchObject({ successes: 2, n: 3 });
    expect(stats.steps.map((s) => s.rate)).toEqual([0, 0, 0, 0.5, 0.5]);
    expect(stats.steps.map((s) => s.first)).toEqual([0, 0, 0, 2, 0]);
    expect(stats.firstDivergence).toEqual([
      { baseSeq: 3, count: 2 },
      { baseSeq: null, count: 2 },
    ]);
  });
});

describe("stepDeparts", () => {
  const base = {
    kind: "model_call" as const,
    name: "m",
    output: { content: "a" },
    error: null,
    cacheKey: null,
    baseSeq: 0,
  };
  it("an edit is the premise, not a departure; a model step departs on its output only", () => {
    expect(stepDeparts({ ...base, source: "edit", output: "x" }, base)).toBe(false);
    expect(stepDeparts({ ...base, source: "live" }, base)).toBe(false);
    expect(stepDeparts({ ...base, source: "live", output: { content: "b" } }, base)).toBe(true);
    expect(stepDeparts({ ...base, baseSeq: null }, undefined)).toBe(true);
    const call = { kind: "tool_call" as const, name: "t", output: 1, error: null, cacheKey: "k", baseSeq: 1 };
    expect(stepDeparts({ ...call, cacheKey: "other" }, call)).toBe(true);
    expect(stepDeparts({ ...call, output: 2 }, call)).toBe(true);
    expect(stepDeparts(call, call)).toBe(false);
  });
});

it("the determinism probe in the same shape", () => {
  const strip = probeDivergence(
    [{ step: 1, runs: 4, matchesRecorded: 1 }],
    [
      { seq: 0, baseSeq: 0 },
      { seq: 1, baseSeq: 1 },
    ],
    3,
  );
  expect(strip.map((s) => [s.baseSeq, s.diverged, s.n, s.rate])).toEqual([
    [0, 0, 0, 0],
    [1, 3, 4, 0.75],
    [2, 0, 0, 0],
  ]);
});

describe("outcomes over a cohort", () => {
  it("counts what moved from base to branch, and rates only pairs judged on both sides", () => {
    const summary = outcomeSummary([
      { base: false, branch: true },
      { base: false, branch: true },
      { base: true, branch: false },
      { base: true, branch: true },
      { base: false, branch: false },
      { base: null, branch: true },
      { base: true, branch: null },
    ]);
    expect(summary).toMatchObject({ judged: 5, unjudged: 2, fixed: 2, broke: 1, stillPassing: 1, stillFailing: 1 });
    expect(summary.base).toEqual(wilsonInterval(2, 5));
    expect(summary.branch).toEqual(wilsonInterval(3, 5));
  });

  it("a run passes only when every check passed; an error or no check is no verdict", () => {
    expect(runPassed([{ outcome: "pass" }, { outcome: "pass" }])).toBe(true);
    expect(runPassed([{ outcome: "pass" }, { outcome: "fail" }])).toBe(false);
    expect(runPassed([{ outcome: "fail" }, { outcome: "check_error" }])).toBeNull();
    expect(runPassed([])).toBeNull();
    expect(runPassed(null)).toBeNull();
  });
});
