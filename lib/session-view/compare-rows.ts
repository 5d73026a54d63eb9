import type { AlignedPair, ComparisonMetrics, FirstDivergence } from "@/lib/replay";

/** One line of the comparison list (the server sends them a window at a time). */
export interface CompareRow {
  id: string;
  /** The pair's position among all pairs of the comparison (as "pair N" counts them). */
  index: number;
  type: AlignedPair["type"];
  kind: string;
  name: string;
  baseSeq: number | null;
  branchSeq: number | null;
  source: string | null;
  preview: string;
  /** A model step whose input changed while its output was copied from the record ("input changed, output recorded"). */
  inputOnly?: true;
}

/** A pair's id: `p<base>-<branch>` (a pair), `i<branch>` (inserted in the branch), `r<base>` (removed from it). */
/** What a comparison page shows above its rows, of a replay against its base or of two sessions. */
export interface ComparisonPanels {
  baseCount: number;
  branchCount: number;
  baseFinalOutput: unknown;
  branchFinalOutput: unknown;
  metrics: ComparisonMetrics;
  firstDivergence: FirstDivergence | null;
  /** Rows each filter shows. */
  counts: Record<CompareFilter, number>;
}

export const PAIR_ID = /^(p\d+-\d+|i\d+|r\d+)$/;

export const COMPARE_FILTERS = ["all", "changes", "changed", "inserted", "removed", "unreached"] as const;
export type CompareFilter = (typeof COMPARE_FILTERS)[number];

/** A difference the branch made: not an equal pair, nor a base step the branch never reached. */
export const isChange = (r: Pick<CompareRow, "type">) => r.type !== "equal" && r.type !== "unreached";

/** Words for a pair type, as the list and the detail show it. */
export const TYPE_LABEL: Record<CompareRow["type"], string> = {
  equal: "equal",
  changed: "changed",
  inserted: "inserted",
  removed: "removed",
  unreached: "not reached",
};

/**
 * The row j (+1) or k (−1) moves to: the next or previous change after the
 * selected row (or from the top / bottom when nothing is selected), among the
 * rows shown. Null when there is none in that direction.
 */
export function nextChange(rows: readonly CompareRow[], selectedId: string | null, direction: 1 | -1): string | null {
  const at = selectedId === null ? -1 : rows.findIndex((r) => r.id === selectedId);
  const k = nextChangeAt(rows.length, (k) => rows[k]!, at, direction);
  return k === null ? null : rows[k]!.id;
}

/** `nextChange` by position among `length` rows: the position of the next change after `at` (−1: none selected), or null. */
export function nextChangeAt(
  length: number,
  rowAt: (k: number) => Pick<CompareRow, "type">,
  at: number,
  direction: 1 | -1,
): number | null {
  const start = at >= 0 ? at + direction : direction === 1 ? 0 : length - 1;
  for (let k = start; k >= 0 && k < length; k += direction) if (isChange(rowAt(k))) return k;
  return null;
}

/** Whether the filter shows the row. */
export const shownBy = (filter: CompareFilter, r: Pick<CompareRow, "type">) =>
  filter === "all" || (filter === "changes" ? isChange(r) : r.type === filter);

export function filterRows(rows: readonly CompareRow[], filter: CompareFilter): readonly CompareRow[] {
  return filter === "all" ? rows : rows.filter((r) => shownBy(filter, r));
}

export interface CompareState {
  pair: string | null;
  filter: CompareFilter;
}

/** The view's state from the URL: an unknown filter falls back to all, a malformed pair id to none. */
export function parseCompareState(params: {
  pair?: string | string[] | undefined;
  filter?: string | string[] | undefined;
}): CompareState {
  const pair = typeof params.pair === "string" && /^(p\d+-\d+|i\d+|r\d+)$/.test(params.pair) ? params.pair : null;
  const filter = (COMPARE_FILTERS as readonly string[]).includes(String(params.filter))
    ? (params.filter as CompareFilter)
    : "all";
  return { pair, filter };
}

export function compareSearch(state: CompareState): string {
  const q = new URLSearchParams();
  if (state.pair) q.set("pair", state.pair);
  if (state.filter !== "all") q.set("filter", state.filter);
  const s = q.toString();
  return s ? `?${s}` : "";
}

/** The fields a pair's diff compares, as pretty JSON. */
export function comparableJson(
  e: { name: string; input: unknown; output: unknown; error: unknown; status: string } | null,
): string {
  if (!e) return "";
  return JSON.stringify({ name: e.name, status: e.status, input: e.input, output: e.output, error: e.error }, null, 2);
}

export function finalText(value: unknown): string {
  if (value === undefined || value === null) return "";
  return typeof value === "string" ? value : JSON.stringify(value, null, 2);
}
