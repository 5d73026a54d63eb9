import { describe, expect, it } from "vitest";
import { clustersThatGrew, passRate, regression, twoProportionZ, wilson } from "./stats";

// The figures below were worked by hand from the formulas (z = 1.959964, z² = 3.841459):
// Wilson centre (p + z²/2n) / (1 + z²/n), half-width z / (1 + z²/n) · √(p(1−p)/n + z²/4n²).
describe("Wilson interval", () => {
  it.each([
    // 8/10: centre 0.99207 / 1.384146 = 0.716740, half 0.313616 / 1.384146 = 0.226577
    [8, 10, 0.490162, 0.943318],
    // 0/10: centre = half = 0.192073 / 1.384146 = 0.138766
    [0, 10, 0, 0.277533],
    [10, 10, 0.722467, 1],
    [90, 100, 0.825634, 0.944771],
    [80, 100, 0.711171, 0.866633],
  ])("%i of %i is [%f, %f]", (passed, total, low, high) => {
    const interval = wilson(passed, total)!;
    expect(interval.low).toBeCloseTo(low, 6);
    expect(interval.high).toBeCloseTo(high, 6);
  });

  it("has no interval and no rate without sessions", () => {
    expect(wilson(0, 0)).toBeNull();
    expect(passRate(0, 0)).toEqual({ passed: 0, total: 0, rate: null, interval: null });
  });
});

describe("two-proportion z-test and the regression rule", () => {
  it("computes the pooled z statistic", () => {
    // pooled 0.85, se √(0.85·0.15·0.02) = 0.0504975, z = 0.10 / 0.0504975
    expect(twoProportionZ({ passed: 90, total: 100 }, { passed: 80, total: 100 })).toBeCloseTo(1.980295, 6);
    // pooled 0.875, se √(0.875·0.125·0.02) = 0.0467707, z = 0.05 / 0.0467707
    expect(twoProportionZ({ passed: 90, total: 100 }, { passed: 85, total: 100 })).toBeCloseTo(1.069045, 6);
    expect(twoProportionZ({ passed: 10, total: 10 }, { passed: 5, total: 5 })).toBe(0);
    expect(twoProportionZ({ passed: 1, total: 0 }, { passed: 5, total: 5 })).toBe(0);
  });

  it("flags a drop whose intervals are apart, and one the z-test finds with overlapping intervals", () => {
    const apart = regression(passRate(90, 100), passRate(70, 100));
    expect(apart.flagged).toBe(true);
    expect(apart.reasons).toEqual(["intervals_apart", "z_test"]);
    expect(apart.drop).toBeCloseTo(0.2, 12);
    // 80/100's interval reaches 0.8666, above 90/100's low end 0.8256: only the test flags it (z 1.9803 > 1.96).
    const zOnly = regression(passRate(90, 100), passRate(80, 100));
    expect(zOnly.reasons).toEqual(["z_test"]);
  });

  it("does not flag a small drop, a rise, or an empty side", () => {
    expect(regression(passRate(90, 100), passRate(85, 100)).flagged).toBe(false);
    expect(regression(passRate(70, 100), passRate(90, 100))).toMatchObject({ flagged: false, reasons: [] });
    expect(regression(passRate(0, 0), passRate(1, 10))).toMatchObject({ flagged: false, drop: null });
  });
});

describe("clusters that grew", () => {
  it("ranks by growth of the share of each version's sessions, only growth, ties by id", () => {
    const grew = clustersThatGrew(
      [
        { clusterId: "b", previous: 10, current: 60 }, // 0.10 → 0.30
        { clusterId: "a", previous: 0, current: 20 }, // 0 → 0.10
        { clusterId: "c", previous: 50, current: 20 }, // shrank
        { clusterId: "d", previous: 0, current: 20 }, // tie with a
      ],
      100,
      200,
    );
    expect(grew.map((g) => g.clusterId)).toEqual(["b", "a", "d"]);
    expect(grew[0]).toEqual({ clusterId: "b", before: 0.1, after: 0.3, growth: 0.3 - 0.1 });
  });
});
