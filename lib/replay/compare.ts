import { diffWordsWithSpace } from "diff";
import { create, type Delta } from "jsondiffpatch";
import type { SessionEvent } from "./events";
import { deepEqual, differingPaths, formatPath, isPlainObject } from "./json";
import { signatureOf } from "./replay-evidence";
import { editDistance, matchSequences, type AlignStats } from "./align";

export { editDistance, type AlignStats } from "./align";
import type { ReplayStep } from "./replay-types";

/**
 * Comparison of a base run and a branch: both aligned as sequences by event
 * signature with Myers' diff, so inserted and removed steps line up instead of
 * shifting every later pair; each pair tagged.
 */

export type CompareEvent = SessionEvent & Partial<Pick<ReplayStep, "source" | "baseSeq" | "equalsBase">>;

export type AlignedPair =
  | { type: "equal"; id: string; base: SessionEvent; branch: CompareEvent; baseIndex: number; branchIndex: number }
  | {
      type: "changed";
      id: string;
      base: SessionEvent;
      branch: CompareEvent;
      baseIndex: number;
      branchIndex: number;
      delta: Delta;
    }
  | { type: "inserted"; id: string; branch: CompareEvent; branchIndex: number }
  | { type: "removed"; id: string; base: SessionEvent; baseIndex: number }
  /**
   * A base step the branch never got to: it paused, failed or stopped first. Not a removal (the
   * branch did not decide against it), and left out of every metric. Its id is the removed form.
   */
  | { type: "unreached"; id: string; base: SessionEvent; baseIndex: number };

/** The pair types that hold only a base step. */
export type BaseOnlyPair = Extract<AlignedPair, { type: "removed" | "unreached" }>;
export const isBaseOnly = (p: AlignedPair): p is BaseOnlyPair => p.type === "removed" || p.type === "unreached";

export interface FirstDivergence {
  pairIndex: number;
  id: string;
  type: Exclude<AlignedPair["type"], "equal" | "unreached">;
  baseSeq: number | null;
  branchSeq: number | null;
  /** e.g. "tool_call get_order: result changed". */
  summary: string;
}

export interface RunMetrics {
  steps: number;
  toolCalls: number;
  toolCallsByTool: Record<string, number>;
  errors: number;
  inputTokens: number;
  outputTokens: number;
  costUsd: number;
  latencyMs: number;
}

export interface MetricDelta {
  base: number;
  branch: number;
  delta: number;
}

export interface ComparisonMetrics {
  steps: MetricDelta;
  toolCalls: MetricDelta;
  toolCallsByTool: Record<string, MetricDelta>;
  errors: MetricDelta;
  inputTokens: MetricDelta;
  outputTokens: MetricDelta;
  costUsd: MetricDelta;
  latencyMs: MetricDelta;
  /** Index of the first non-equal pair (= number of leading equal steps), null when none. */
  first_divergence_step: number | null;
  /** Levenshtein distance of the two tool-name sequences. */
  tool_sequence_distance: number;
  fixture_dependency_count: number;
  tool_argument_changed: boolean;
  /** Base steps the branch never reached (it ended before its end): counted in no metric above. */
  not_reached: number;
}

export type TextDiffPart = { type: "equal" | "added" | "removed"; value: string };

export interface Comparison {
  pairs: AlignedPair[];
  firstDivergence: FirstDivergence | null;
  finalOutputDiff: TextDiffPart[] | null;
  metrics: ComparisonMetrics;
}

const differ = create({
  // Arrays of messages and tool calls: match elements by their ids when they have one.
  objectHash: (item: object, index?: number) => {
    const record = item as Record<string, unknown>;
    const id = record.id ?? record.toolCallId ?? record.callId;
    return typeof id === "string" ? id : `$$index:${index ?? 0}`;
  },
  arrays: { detectMove: false },
});

/** The structural diff of two events' comparable parts, or undefined when equal. */
export function eventDelta(base: SessionEvent, branch: SessionEvent): Delta {
  return differ.diff(comparable(base), comparable(branch));
}

const comparable = (e: SessionEvent) => ({
  name: e.name,
  input: e.input,
  output: e.output,
  error: e.error,
  status: e.status,
});

function sameContent(a: SessionEvent, b: SessionEvent): boolean {
  if ((b as CompareEvent).equalsBase === true && (b as CompareEvent).baseSeq === a.seq && a.name === b.name)
    return true;
  return (
    a.name === b.name &&
    a.status === b.status &&
    (a.input === b.input || deepEqual(a.input, b.input)) &&
    (a.output === b.output || deepEqual(a.output, b.output)) &&
    (a.error === b.error || deepEqual(a.error, b.error))
  );
}

/**
 * Aligns two event sequences by signature: a longest common subsequence over interned signatures (kind, name,
 * cache key; see ./align.ts for its cost), then each gap between two matched steps aligned again by kind and name.
 * With `deltas: false` a changed pair's `delta` is left undefined (a reader that shows no diffs, e.g. the
 * comparison list, saves a structural diff per changed pair). `stats` counts the work done.
 */
export function alignEvents(
  base: readonly SessionEvent[],
  branch: readonly CompareEvent[],
  options: { deltas?: boolean; stats?: AlignStats } = {},
): AlignedPair[] {
  const deltas = options.deltas ?? true;
  const stats = options.stats ?? { steps: 0 };
  const intern = new Map<string, number>();
  const code = (s: string) => {
    let n = intern.get(s);
    if (n === undefined) intern.set(s, (n = intern.size));
    return n;
  };
  const a = Int32Array.from(base, (e) => code(signatureOf(e)));
  const b = Int32Array.from(branch, (e) => code(signatureOf(e)));

  const pairs: AlignedPair[] = [];
  const matched = (i: number, j: number) => {
    const x = base[i]!;
    const y = branch[j]!;
    const id = `p${x.seq}-${y.seq}`;
    if (sameContent(x, y)) pairs.push({ type: "equal", id, base: x, branch: y, baseIndex: i, branchIndex: j });
    else
      pairs.push({
        type: "changed",
        id,
        base: x,
        branch: y,
        baseIndex: i,
        branchIndex: j,
        delta: deltas ? eventDelta(x, y) : undefined,
      });
  };
  const removed = (i: number) => pairs.push({ type: "removed", id: `r${base[i]!.seq}`, base: base[i]!, baseIndex: i });
  const inserted = (j: number) =>
    pairs.push({ type: "inserted", id: `i${branch[j]!.seq}`, branch: branch[j]!, branchIndex: j });

  // A run of removed and inserted steps between two matched ones is a gap. Inside it, a call of the
  // same tool at the same place is one changed pair (its arguments were edited, so its cache key
  // differs), not a removal plus an insertion: the gap is aligned again by kind and name only.
  // Within a gap, and after its last match, the base's steps come before the branch's.
  const coarse = new Map<string, number>();
  const coarseCode = (e: SessionEvent) => {
    const s = `${e.kind}\u0000${e.name}`;
    let n = coarse.get(s);
    if (n === undefined) coarse.set(s, (n = coarse.size));
    return n;
  };
  const gap = (i0: number, i1: number, j0: number, j1: number) => {
    if (i0 === i1 || j0 === j1) {
      for (let i = i0; i < i1; i++) removed(i);
      for (let j = j0; j < j1; j++) inserted(j);
      return;
    }
    const ga = Int32Array.from({ length: i1 - i0 }, (_, k) => coarseCode(base[i0 + k]!));
    const gb = Int32Array.from({ length: j1 - j0 }, (_, k) => coarseCode(branch[j0 + k]!));
    const inner = matchSequences(ga, gb, coarse.size, stats);
    let i = i0;
    let j = j0;
    for (let k = 0; k < inner.length; k += 2) {
      const mi = i0 + inner[k]!;
      const mj = j0 + inner[k + 1]!;
      while (i < mi) removed(i++);
      while (j < mj) inserted(j++);
      matched(i++, j++);
    }
    while (i < i1) removed(i++);
    while (j < j1) inserted(j++);
  };
  const matches = matchSequences(a, b, intern.size, stats);
  let i = 0;
  let j = 0;
  for (let k = 0; k < matches.length; k += 2) {
    const mi = matches[k]!;
    const mj = matches[k + 1]!;
    gap(i, mi, j, mj);
    matched(mi, mj);
    i = mi + 1;
    j = mj + 1;
  }
  gap(i, base.length, j, branch.length);
  stats.steps += pairs.length;
  return pairs;
}

export interface CompareOptions {
  /**
   * False when the branch ended before a terminal state (paused, awaiting approval, failed,
   * stopped, out of budget, cancelled): the base steps after the last one it reached are then
   * "unreached", not "removed". Default true (two finished runs).
   */
  branchComplete?: boolean;
  /** False: changed pairs carry no `delta` (see `alignEvents`). Default true. */
  deltas?: boolean;
  /** Counts the work of the alignment and the tool-sequence distance (see ./align.ts). */
  stats?: AlignStats;
}

export function compareRuns(
  base: readonly SessionEvent[],
  branch: readonly CompareEvent[],
  options: CompareOptions = {},
): Comparison {
  const pairs = markUnreached(
    alignEvents(base, branch, { deltas: options.deltas, stats: options.stats }),
    options.branchComplete ?? true,
  );
  const firstIndex = pairs.findIndex((p) => p.type !== "equal" && p.type !== "unreached");
  const first = firstIndex >= 0 ? pairs[firstIndex]! : null;
  const firstDivergence: FirstDivergence | null =
    first && first.type !== "equal" && first.type !== "unreached"
      ? {
          pairIndex: firstIndex,
          id: first.id,
          type: first.type,
          baseSeq: first.type === "inserted" ? null : first.base.seq,
          branchSeq: first.type === "removed" ? null : first.branch.seq,
          summary: summarize(first),
        }
      : null;

  const baseFinal = [...base].reverse().find((e) => e.kind === "final_output");
  const branchFinal = [...branch].reverse().find((e) => e.kind === "final_output");
  const finalOutputDiff =
    baseFinal || branchFinal
      ? diffWordsWithSpace(asText(baseFinal?.output), asText(branchFinal?.output)).map((c) => ({
          type: c.added ? ("added" as const) : c.removed ? ("removed" as const) : ("equal" as const),
          value: c.value,
        }))
      : null;

  // Metrics compare what both runs covered: the base steps the branch never reached count on neither side.
  const unreached = new Set<number>();
  for (const p of pairs) if (p.type === "unreached") unreached.add(p.baseIndex);
  const reachedBase = unreached.size === 0 ? base : base.filter((_, i) => !unreached.has(i));
  const m0 = metricsOf(reachedBase);
  const m1 = metricsOf(branch);
  const d = (x: number, y: number): MetricDelta => ({ base: x, branch: y, delta: y - x });
  const toolNames = new Set([...Object.keys(m0.toolCallsByTool), ...Object.keys(m1.toolCallsByTool)]);
  const toolCallsByTool: Record<string, MetricDelta> = {};
  for (const name of [...toolNames].sort())
    toolCallsByTool[name] = d(m0.toolCallsByTool[name] ?? 0, m1.toolCallsByTool[name] ?? 0);

  return {
    pairs,
    firstDivergence,
    finalOutputDiff,
    metrics: {
      steps: d(m0.steps, m1.steps),
      toolCalls: d(m0.toolCalls, m1.toolCalls),
      toolCallsByTool,
      errors: d(m0.errors, m1.errors),
      inputTokens: d(m0.inputTokens, m1.inputTokens),
      outputTokens: d(m0.outputTokens, m1.outputTokens),
      costUsd: d(m0.costUsd, m1.costUsd),
      latencyMs: d(m0.latencyMs, m1.latencyMs),
      first_divergence_step: firstIndex >= 0 ? firstIndex : null,
      tool_sequence_distance: editDistance(toolNames0(reachedBase), toolNames0(branch), options.stats),
      fixture_dependency_count: branch.filter((e) => e.source === "fixture").length,
      tool_argument_changed: toolArgumentChanged(base, branch, pairs),
      not_reached: unreached.size,
    },
  };
}

/**
 * For a branch that ended early: the base steps after the last base step it reached (an equal or
 * changed pair) become "unreached" and move to the end, after the branch's own last steps.
 */
function markUnreached(pairs: AlignedPair[], branchComplete: boolean): AlignedPair[] {
  if (branchComplete) return pairs;
  let lastReached = -1;
  for (const p of pairs)
    if (p.type === "equal" || p.type === "changed") lastReached = Math.max(lastReached, p.baseIndex);
  const kept: AlignedPair[] = [];
  const tail: AlignedPair[] = [];
  for (const p of pairs) {
    if (p.type === "removed" && p.baseIndex > lastReached) tail.push({ ...p, type: "unreached" });
    else kept.push(p);
  }
  return tail.length === 0 ? pairs : [...kept, ...tail];
}

/** The first divergence's words for a pair that differs, e.g. "tool_call get_order: result changed". */
export function summarize(pair: Exclude<AlignedPair, { type: "equal" | "unreached" }>): string {
  const e = pair.type === "removed" ? pair.base : pair.branch;
  const what = `${e.kind} ${e.name}`;
  if (pair.type === "inserted") return `${what}: only in the branch`;
  if (pair.type === "removed") return `${what}: only in the base run`;
  return `${what}: ${changedParts(pair.base, pair.branch).join(", ") || "content"} changed`;
}

/** What differs between the two sides of a changed pair, in the words of its kind. */
export function changedParts(base: SessionEvent, branch: SessionEvent): string[] {
  const parts: string[] = [];
  if (base.kind === "tool_call" && branch.kind === "tool_call") {
    const args = (e: SessionEvent) => (isPlainObject(e.input) ? e.input.args : e.input);
    if (!deepEqual(args(base), args(branch))) parts.push("arguments");
    else if (!deepEqual(base.input, branch.input)) parts.push("input");
    if (!deepEqual(base.output, branch.output)) parts.push("result");
  } else {
    if (!deepEqual(base.input, branch.input)) parts.push("input");
    if (!deepEqual(base.output, branch.output)) parts.push("output");
  }
  if (!deepEqual(base.error, branch.error) || base.status !== branch.status) parts.push("error/status");
  if (base.name !== branch.name) parts.push("name");
  return parts;
}

/**
 * The paths at which the two sides of a pair differ, over the fields a comparison shows
 * (`name`, `status`, `input`, `output`, `error`), e.g. `input.args.amount`.
 */
export function changedPaths(base: SessionEvent | null, branch: SessionEvent | null, limit = 20): string[] {
  if (!base || !branch) return [];
  return differingPaths(comparable(base), comparable(branch), limit).map(formatPath);
}

export function metricsOf(events: readonly SessionEvent[]): RunMetrics {
  const m: RunMetrics = {
    steps: events.length,
    toolCalls: 0,
    toolCallsByTool: {},
    errors: 0,
    inputTokens: 0,
    outputTokens: 0,
    costUsd: 0,
    latencyMs: 0,
  };
  for (const e of events) {
    if (e.kind === "tool_call") {
      m.toolCalls++;
      m.toolCallsByTool[e.name] = (m.toolCallsByTool[e.name] ?? 0) + 1;
    }
    if (e.status === "failed" || e.error !== null) m.errors++;
    m.inputTokens += e.usage?.inputTokens ?? 0;
    m.outputTokens += e.usage?.outputTokens ?? 0;
    m.costUsd += e.usage?.costUsd ?? 0;
    m.latencyMs += e.durationMs ?? 0;
  }
  return m;
}

const toolNames0 = (events: readonly SessionEvent[]) => events.filter((e) => e.kind === "tool_call").map((e) => e.name);

/** Whether a tool call of the branch runs with other arguments than the base call it stands for. */
function toolArgumentChanged(
  base: readonly SessionEvent[],
  branch: readonly CompareEvent[],
  pairs: readonly AlignedPair[],
): boolean {
  const bySeq = new Map(base.map((e) => [e.seq, e]));
  for (const e of branch) {
    if (e.kind !== "tool_call" || e.baseSeq === undefined || e.baseSeq === null) continue;
    const b = bySeq.get(e.baseSeq);
    if (b && b.kind === "tool_call" && b.name === e.name && b.cacheKey !== e.cacheKey) return true;
  }
  // Without replay alignment: a changed pair of one tool whose cache keys differ.
  for (const p of pairs)
    if (p.type === "changed" && p.base.kind === "tool_call" && p.base.cacheKey !== p.branch.cacheKey) return true;
  return false;
}

function asText(value: unknown): string {
  if (value === undefined || value === null) return "";
  if (typeof value === "string") return value;
  return JSON.stringify(value, null, 2);
}
