import { describe, expect, it } from "vitest";
import { suggestValidityFor } from "./snapshot";
import { demoSource, FIXTURE_POLICY, refundFixture } from "./testing";
import { suggestValidity, type ValidityInput } from "./validity";

const base: ValidityInput = {
  status: "completed",
  comparability: "exact",
  strength: "recorded",
  fixtureSteps: [],
  firstDivergence: null,
  pairBranchIndex: [0, 1, 2, 3],
  probes: [],
  liveModelSteps: 0,
};

describe("suggestValidity", () => {
  it.each<[string, Partial<ValidityInput>, string]>([
    ["exact with recorded evidence", {}, "confirmed_by_replay"],
    [
      "aligned with recorded evidence",
      { comparability: "aligned", firstDivergence: { pairIndex: 2, branchSeq: 2 } },
      "confirmed_by_replay",
    ],
    [
      "aligned with controlled evidence (static cases)",
      { comparability: "aligned", strength: "controlled" },
      "confirmed_by_replay",
    ],
    ["non-comparable", { comparability: "non_comparable", status: "paused" }, "non_comparable"],
    ["no comparability at all", { comparability: null, status: "running" }, "non_comparable"],
    [
      "a fixture before the first divergence",
      {
        comparability: "aligned",
        strength: "controlled",
        fixtureSteps: [1],
        firstDivergence: { pairIndex: 2, branchSeq: 2 },
      },
      "sensitive_to_fixture",
    ],
    [
      "a fixture at the first divergence",
      {
        comparability: "aligned",
        strength: "controlled",
        fixtureSteps: [2],
        firstDivergence: { pairIndex: 2, branchSeq: 2 },
      },
      "sensitive_to_fixture",
    ],
    [
      "a fixture in a branch that never diverged",
      { strength: "controlled", fixtureSteps: [3] },
      "sensitive_to_fixture",
    ],
    [
      "a fixture after the first divergence only",
      {
        comparability: "aligned",
        strength: "controlled",
        fixtureSteps: [3],
        firstDivergence: { pairIndex: 2, branchSeq: 2 },
      },
      "confirmed_by_replay",
    ],
    [
      "a removed step diverges first: the next branch step counts",
      {
        comparability: "diverged_but_comparable",
        strength: "controlled",
        fixtureSteps: [2],
        firstDivergence: { pairIndex: 1, branchSeq: null },
        pairBranchIndex: [0, null, 2, 3],
      },
      "sensitive_to_fixture",
    ],
    ["a determinism probe that varied", { probes: [{ variance: 0.5 }] }, "model_nondeterministic"],
    ["a probe that always agreed", { probes: [{ variance: 0 }] }, "confirmed_by_replay"],
    ["a live model step", { strength: "live", liveModelSteps: 1 }, "model_nondeterministic"],
    ["a drifting model", { strength: "drifting" }, "model_nondeterministic"],
    ["a simulated tool result", { strength: "simulated" }, "unsupported"],
    [
      "diverged but comparable",
      { comparability: "diverged_but_comparable", firstDivergence: { pairIndex: 1, branchSeq: 1 } },
      "diverged_but_comparable",
    ],
    ["live read-only tools only", { strength: "live" }, "diverged_but_comparable"],
  ])("%s → %s", (_name, overrides, label) => {
    const s = suggestValidity({ ...base, ...overrides });
    expect(s.label).toBe(label);
    expect(s.reasons.length).toBeGreaterThan(0);
  });

  it("non-comparable wins over everything else", () => {
    expect(
      suggestValidity({
        ...base,
        comparability: "non_comparable",
        strength: "simulated",
        fixtureSteps: [0],
        probes: [{ variance: 1 }],
      }).label,
    ).toBe("non_comparable");
  });
});

describe("suggestValidityFor a real replay of the demo refund session", () => {
  it("an unchanged recorded replay is confirmed", async () => {
    expect(suggestValidityFor(await demoSource()).label).toBe("confirmed_by_replay");
  });
  it("an analyst fixture at the first divergence makes it sensitive to that fixture", async () => {
    const s = suggestValidityFor(await demoSource({ policy: FIXTURE_POLICY, log: [refundFixture("refund pending")] }));
    expect(s.label).toBe("sensitive_to_fixture");
    expect(s.reasons[0]).toContain("step 6");
  });
  it("a paused replay is not comparable", async () => {
    expect(suggestValidityFor(await demoSource({ policy: FIXTURE_POLICY })).label).toBe("non_comparable");
  });
});
