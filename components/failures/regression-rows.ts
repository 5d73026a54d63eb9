/**
 * What the regressions page draws and lists: pass rates in percent with their interval as distances for the
 * chart's error bars. Pure, so the numbers of the text alternative are tested without a browser.
 */
import type { PassRate } from "@/lib/clusters/stats";

export interface RateRow {
  name: string;
  /** Percent passed, one decimal. */
  rate: number;
  /** Distances from `rate` down to the interval's low end and up to its high end, in points. */
  interval: [number, number];
  low: number;
  high: number;
  passed: number;
  total: number;
}

const pct = (x: number) => Math.round(x * 1000) / 10;

/** A named pass rate as a chart row; null with no sessions. */
export function rateRow(name: string, r: PassRate): RateRow | null {
  if (r.rate === null || r.interval === null) return null;
  const rate = pct(r.rate);
  const low = pct(r.interval.low);
  const high = pct(r.interval.high);
  return {
    name,
    rate,
    interval: [Math.round((rate - low) * 10) / 10, Math.round((high - rate) * 10) / 10],
    low,
    high,
    passed: r.passed,
    total: r.total,
  };
}

export function rateRows<T extends PassRate>(items: readonly T[], name: (item: T) => string): RateRow[] {
  return items.flatMap((item) => {
    const row = rateRow(name(item), item);
    return row ? [row] : [];
  });
}
