import { describe, expect, it } from "vitest";
import type { ExperimentResult } from "@/lib/server/experiments/experiments";
import { deltaRows, divergenceHistogram, missRateRows, passRateRows, signedMs, signedUsd } from "./chart-data";

const member = (over: Partial<ExperimentResult>): ExperimentResult => ({
  replayId: over.replayId ?? "r",
  session: { id: "s", label: "s" },
  status: "completed",
  comparability: "aligned",
  evidenceStrength: "recorded",
  firstDivergence: null,
  error: null,
  stepCount: 3,
  deltas: { costUsd: 0, latencyMs: 0 },
  outcome: { base: null, branch: null },
  edit: null,
  ...over,
});
const at = (pairIndex: number) => ({ pairIndex, baseSeq: pairIndex, branchSeq: pairIndex, summary: "" });

describe("experiment chart data", () => {
  it("pass rates are percents with the Wilson interval as distances below and above", () => {
    const rows = passRateRows({
      checks: ["c"],
      judged: 5,
      unjudged: 0,
      base: { successes: 1, n: 5, rate: 0.2, low: 0.0362, high: 0.6245 },
      branch: { successes: 4, n: 5, rate: 0.8, low: 0.3755, high: 0.9638 },
      fixed: 3,
      broke: 0,
      stillPassing: 1,
      stillFailing: 1,
    });
    expect(rows).toEqual([
      { name: "Base runs", rate: 20, interval: [16, 42], low: 4, high: 62, successes: 1, n: 5 },
      { name: "Branches", rate: 80, interval: [42, 16], low: 38, high: 96, successes: 4, n: 5 },
    ]);
    expect(
      passRateRows({
        checks: ["c"],
        judged: 0,
        unjudged: 2,
        base: { successes: 0, n: 0, rate: null, low: 0, high: 1 },
        branch: { successes: 0, n: 0, rate: null, low: 0, high: 1 },
        fixed: 0,
        broke: 0,
        stillPassing: 0,
        stillFailing: 0,
      }),
    ).toEqual([]);
  });

  it("the histogram counts finished branches by the step they first diverged at; running ones are left out", () => {
    const h = divergenceHistogram([
      member({ firstDivergence: at(4) }),
      member({ firstDivergence: at(2) }),
      member({ firstDivergence: at(4) }),
      member({ comparability: "exact" }),
      member({ status: "running", deltas: null, firstDivergence: null }),
    ]);
    expect(h).toEqual({
      compared: 4,
      never: 1,
      buckets: [
        { step: 2, count: 1 },
        { step: 4, count: 2 },
      ],
    });
  });

  it("miss rates count the calls that missed (at most every call), highest first, tools without calls left out", () => {
    const sources = { recorded: 0, static: 0, fixture: 0, live: 0, llm: 0, error_result: 0, blocked: 0 };
    // Summed over an experiment: counts, no steps.
    const miss = (count: number) => ({
      reason: "no_recorded_call" as const,
      count,
      steps: [],
      pending: true,
      closest: null,
      differingPaths: [],
    });
    expect(
      missRateRows([
        { tool: "a", calls: 4, bySource: sources, edited: 0, misses: [miss(1)], unused: [] },
        { tool: "b", calls: 2, bySource: sources, edited: 0, misses: [miss(3)], unused: [] },
        { tool: "c", calls: 0, bySource: sources, edited: 0, misses: [miss(1)], unused: [] },
      ]),
    ).toEqual([
      { tool: "b", calls: 2, missed: 2, rate: 100 },
      { tool: "a", calls: 4, missed: 1, rate: 25 },
    ]);
  });

  it("deltas per finished branch, in words with their sign", () => {
    expect(
      deltaRows([
        member({ replayId: "x", deltas: { costUsd: 0.00123456, latencyMs: -40.4 } }),
        member({ deltas: null }),
      ]),
    ).toEqual([{ session: "s", replayId: "x", costUsd: 0.0012, latencyMs: -40 }]);
    expect([signedUsd(0.0012), signedUsd(-0.5), signedUsd(0)]).toEqual(["+$0.0012", "−$0.5", "$0"]);
    expect([signedMs(120), signedMs(-40), signedMs(0)]).toEqual(["+120 ms", "−40 ms", "0 ms"]);
  });
});
