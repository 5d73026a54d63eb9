import type { SessionEvent } from "./events";
import { deepEqual } from "./json";

/**
 * Statistics over repeated trials of one branch (the same base, policy and
 * edits, run N times with a live model): the outcome pass rate with its 95 %
 * Wilson score interval, how often the trials departed from the base run at
 * each base step, and where each trial first departed. Pure functions.
 */

/** Most trials one request may ask for. */
export const MAX_TRIALS = 50;

/** z for a two-sided 95 % interval. */
const Z95 = 1.959963984540054;

export interface RateInterval {
  successes: number;
  n: number;
  /** successes / n; null when n is 0. */
  rate: number | null;
  /** The 95 % Wilson score interval; [0, 1] when n is 0 (nothing is known). */
  low: number;
  high: number;
}

/**
 * Wilson score interval (Wilson 1927): unlike the normal approximation it stays
 * inside [0, 1] and is sensible for small n and rates near 0 or 1.
 */
export function wilsonInterval(successes: number, n: number, z = Z95): RateInterval {
  if (!Number.isInteger(n) || n < 0 || !Number.isInteger(successes) || successes < 0 || successes > n)
    throw new RangeError(`wilsonInterval: need integers 0 ≤ successes ≤ n, got ${successes} of ${n}`);
  if (n === 0) return { successes, n, rate: null, low: 0, high: 1 };
  const p = successes / n;
  const z2 = z * z;
  const denom = 1 + z2 / n;
  const centre = (p + z2 / (2 * n)) / denom;
  const half = (z / denom) * Math.sqrt((p * (1 - p)) / n + z2 / (4 * n * n));
  return {
    successes,
    n,
    rate: p,
    low: Math.max(0, centre - half),
    high: Math.min(1, centre + half),
  };
}

/** What a trial statistic reads of one trial. */
export interface TrialRun {
  /** Every check passed (true), some failed (false), or no verdict (no checks, a check_error, unfinished): null. */
  passed: boolean | null;
  /** The branch's steps in order, each with whether the agent departed from the base there (see `stepDeparts`). */
  steps: readonly { baseSeq: number | null; departs: boolean }[];
}

type EventLike = Pick<SessionEvent, "kind" | "name" | "output" | "error" | "cacheKey">;
type StepLike = EventLike & { baseSeq: number | null; source?: string };

/**
 * Whether the run did something other than the base run at this step. An
 * analyst's edit is the premise of the branch, not a departure; a model step
 * departs when its output differs (its input always differs after an edit),
 * a tool step when it is another call or got another result; a step with no
 * base step is a departure.
 */
export function stepDeparts(step: StepLike, baseEvent: EventLike | undefined): boolean {
  if (step.source === "edit") return false;
  if (!baseEvent || step.baseSeq === null) return true;
  if (step.kind !== baseEvent.kind) return true;
  switch (step.kind) {
    case "model_call":
    case "final_output":
      return !deepEqual(step.output, baseEvent.output);
    case "tool_call":
      return (
        step.name !== baseEvent.name ||
        step.cacheKey !== baseEvent.cacheKey ||
        !deepEqual(step.output, baseEvent.output) ||
        !deepEqual(step.error, baseEvent.error)
      );
    case "user_message":
      return false;
  }
}

/** A replay's steps as a trial statistic reads them. */
export function trialSteps(
  steps: readonly StepLike[],
  /** The base events, indexed by seq. */
  base: readonly EventLike[],
): TrialRun["steps"] {
  return steps.map((s) => ({
    baseSeq: s.baseSeq,
    departs: stepDeparts(s, s.baseSeq === null ? undefined : base[s.baseSeq]),
  }));
}

export interface StepDivergence {
  baseSeq: number;
  /** Trials whose step at this base step was missing or differed from the base. */
  diverged: number;
  /** Trials that first departed from the base here. */
  first: number;
  n: number;
  rate: number;
}

export interface TrialStats {
  n: number;
  /** Pass rate over trials with a verdict (`passed` not null). */
  pass: RateInterval;
  /** Trials without a verdict (no checks, a check that could not be evaluated, or a run that did not finish). */
  undecided: number;
  /** One entry per base event, in base order. */
  steps: StepDivergence[];
  /**
   * Where each trial first departed from the base, as a histogram: base seq →
   * count; `null` counts the trials that never departed.
   */
  firstDivergence: { baseSeq: number | null; count: number }[];
}

/**
 * The base step a trial first departed at: its first departing step (an
 * inserted step counts at the base step after the last one it covered), or
 * the first base step it skipped or never reached; null when it followed the
 * base run throughout.
 */
export function firstDivergenceOf(trial: TrialRun, baseLength: number): number | null {
  let next = 0; // the base step the trial should cover next
  for (const s of trial.steps) {
    if (s.baseSeq === null) return Math.min(next, Math.max(0, baseLength - 1));
    if (s.baseSeq > next) return next;
    if (s.departs) return s.baseSeq;
    next = s.baseSeq + 1;
  }
  return next < baseLength ? next : null;
}

export function trialStats(trials: readonly TrialRun[], baseLength: number): TrialStats {
  const decided = trials.filter((t) => t.passed !== null);
  const pass = wilsonInterval(decided.filter((t) => t.passed === true).length, decided.length);
  const diverged = new Array<number>(baseLength).fill(0);
  const first = new Array<number>(baseLength).fill(0);
  const histogram = new Map<number | null, number>();
  for (const trial of trials) {
    const equalAt = new Set<number>();
    for (const s of trial.steps) if (!s.departs && s.baseSeq !== null) equalAt.add(s.baseSeq);
    for (let b = 0; b < baseLength; b++) if (!equalAt.has(b)) diverged[b]!++;
    const f = firstDivergenceOf(trial, baseLength);
    if (f !== null && f < baseLength) first[f]!++;
    histogram.set(f, (histogram.get(f) ?? 0) + 1);
  }
  const n = trials.length;
  return {
    n,
    pass,
    undecided: n - decided.length,
    steps: diverged.map((d, b) => ({ baseSeq: b, diverged: d, first: first[b]!, n, rate: n === 0 ? 0 : d / n })),
    firstDivergence: [...histogram.entries()]
      .map(([baseSeq, count]) => ({ baseSeq, count }))
      .sort((a, b) => (a.baseSeq ?? Infinity) - (b.baseSeq ?? Infinity)),
  };
}

/**
 * The determinism probe's variance in the same shape as trials: per base model
 * step, how many of the probe's runs answered differently from the recording.
 */
export function probeDivergence(
  probes: readonly { step: number; runs: number; matchesRecorded: number }[],
  steps: readonly { seq: number; baseSeq: number | null }[],
  baseLength: number,
): StepDivergence[] {
  const out: StepDivergence[] = [];
  const baseSeqOfStep = new Map(steps.map((s) => [s.seq, s.baseSeq]));
  const byBase = new Map<number, { runs: number; matches: number }>();
  for (const p of probes) {
    const b = baseSeqOfStep.get(p.step);
    if (b === null || b === undefined) continue;
    byBase.set(b, { runs: p.runs, matches: p.matchesRecorded });
  }
  for (let b = 0; b < baseLength; b++) {
    const p = byBase.get(b);
    const n = p?.runs ?? 0;
    const d = p ? p.runs - p.matches : 0;
    out.push({ baseSeq: b, diverged: d, first: d, n, rate: n === 0 ? 0 : d / n });
  }
  return out;
}

/** Outcomes of many base/branch pairs (an experiment's cohort): pass rates with intervals, and what changed. */
export interface OutcomeSummary {
  /** Pairs with a verdict on both sides; the rates and moves count only these. */
  judged: number;
  /** Pairs missing a verdict on either side (not yet run, no checks, a check that could not be evaluated). */
  unjudged: number;
  base: RateInterval;
  branch: RateInterval;
  /** base failed → branch passed. */
  fixed: number;
  /** base passed → branch failed. */
  broke: number;
  stillPassing: number;
  stillFailing: number;
}

export function outcomeSummary(pairs: readonly { base: boolean | null; branch: boolean | null }[]): OutcomeSummary {
  let basePasses = 0;
  let branchPasses = 0;
  let fixed = 0;
  let broke = 0;
  let stillPassing = 0;
  let stillFailing = 0;
  let judged = 0;
  for (const { base, branch } of pairs) {
    if (base === null || branch === null) continue;
    judged += 1;
    if (base) basePasses += 1;
    if (branch) branchPasses += 1;
    if (base && branch) stillPassing += 1;
    else if (base) broke += 1;
    else if (branch) fixed += 1;
    else stillFailing += 1;
  }
  return {
    judged,
    unjudged: pairs.length - judged,
    base: wilsonInterval(basePasses, judged),
    branch: wilsonInterval(branchPasses, judged),
    fixed,
    broke,
    stillPassing,
    stillFailing,
  };
}
