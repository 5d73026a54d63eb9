// ---------------------------------------------------------------------------
// Pass rates and regressions: the Wilson score interval of a pass rate, the
// two-proportion z-test between two versions, and the rule that flags a
// version as a regression. Pure arithmetic, unit-tested against figures
// computed by hand.
// ---------------------------------------------------------------------------

/** The standard normal quantile for a two-sided 95% level. */
export const Z95 = 1.959963984540054;

export type Interval = { low: number; high: number };

/** A pass rate with its Wilson 95% interval; rate and interval null with no sessions. */
export type PassRate = { passed: number; total: number; rate: number | null; interval: Interval | null };

/** The Wilson score interval of `passed` out of `total` (null for no sessions). */
export function wilson(passed: number, total: number, z = Z95): Interval | null {
  if (total <= 0) return null;
  const p = passed / total;
  const z2 = z * z;
  const denominator = 1 + z2 / total;
  const center = (p + z2 / (2 * total)) / denominator;
  const half = (z / denominator) * Math.sqrt((p * (1 - p)) / total + z2 / (4 * total * total));
  // Rounding can leave the ends a hair outside [0, 1] at p = 0 or 1.
  return { low: Math.max(0, center - half), high: Math.min(1, center + half) };
}

export function passRate(passed: number, total: number): PassRate {
  return { passed, total, rate: total > 0 ? passed / total : null, interval: wilson(passed, total) };
}

/**
 * The two-proportion z statistic of rate a against rate b with the pooled standard error:
 * positive when a's rate is higher. 0 when either side is empty or both rates are 0 or 1 together.
 */
export function twoProportionZ(a: { passed: number; total: number }, b: { passed: number; total: number }): number {
  if (a.total <= 0 || b.total <= 0) return 0;
  const pooled = (a.passed + b.passed) / (a.total + b.total);
  const se = Math.sqrt(pooled * (1 - pooled) * (1 / a.total + 1 / b.total));
  if (se === 0) return 0;
  return (a.passed / a.total - b.passed / b.total) / se;
}

export type RegressionVerdict = {
  flagged: boolean;
  /** Why it is flagged: the intervals do not overlap, and/or the z-test rejects equal rates at 95% (two-sided). */
  reasons: ("intervals_apart" | "z_test")[];
  /** previous − current, in pass rate. */
  drop: number | null;
  z: number;
};

/** Whether `current` is a regression from `previous`: a lower pass rate, with intervals apart or a significant z-test. */
export function regression(previous: PassRate, current: PassRate): RegressionVerdict {
  const z = twoProportionZ(previous, current);
  if (previous.rate === null || current.rate === null || previous.interval === null || current.interval === null)
    return { flagged: false, reasons: [], drop: null, z };
  const drop = previous.rate - current.rate;
  const reasons: RegressionVerdict["reasons"] = [];
  if (drop > 0) {
    if (current.interval.high < previous.interval.low) reasons.push("intervals_apart");
    if (z > Z95) reasons.push("z_test");
  }
  return { flagged: reasons.length > 0, reasons, drop, z };
}

/** Cluster growth between two versions: each cluster's share of the version's sessions, before and after. */
export type ClusterGrowth = { clusterId: string; before: number; after: number; growth: number };

/**
 * The clusters that grew most from `previous` to `current` (share of each version's sessions in the
 * cluster), largest growth first, only those that grew; ties by id so the order is stable.
 */
export function clustersThatGrew(
  counts: readonly { clusterId: string; previous: number; current: number }[],
  previousTotal: number,
  currentTotal: number,
  limit = 3,
): ClusterGrowth[] {
  if (currentTotal <= 0) return [];
  return counts
    .map((c) => {
      const before = previousTotal > 0 ? c.previous / previousTotal : 0;
      const after = c.current / currentTotal;
      return { clusterId: c.clusterId, before, after, growth: after - before };
    })
    .filter((c) => c.growth > 0)
    .sort((a, b) => b.growth - a.growth || (a.clusterId < b.clusterId ? -1 : a.clusterId > b.clusterId ? 1 : 0))
    .slice(0, limit);
}
