/**
 * The comparison of a long branch a window at a time. The alignment is
 * computed once over both runs' step summaries (no model inputs: a digest
 * stands for each; lib/db/replays.ts loadReplayComparison), reduced to the
 * list's light rows and kept in memory for the replay as it is now (a run that
 * stores new steps, or a re-imported base, makes a new one). A page then costs
 * the rows it shows: filters, their counts, the next change (j / k) and the
 * first divergence are answered from the kept rows by position, and a row's
 * preview is made from its step's content as its window is read.
 */
import { z } from "zod";
import type { Db } from "@/lib/db";
import { plainContents, replayStamp } from "@/lib/db/replay-window";
import { loadReplayComparison } from "@/lib/db/replay-comparison";
import { isTerminal, loadReplayMeta, type ReplayPageMeta } from "@/lib/db/replays";
import { notFound, parseInput } from "@/lib/errors";
import { isBaseOnly, type ComparisonMetrics, type FirstDivergence } from "@/lib/replay";
import { defaultPickerFilter, pairChoice, type PairChoice } from "@/lib/reports/pair-choice";
import { suggestValidityOf } from "@/lib/reports/snapshot";
import type { ValiditySuggestion } from "@/lib/reports/validity";
import { previewOf, toRowOutlines, withPreview, type RowOutline } from "@/lib/session-view/compare-pairs";
import {
  COMPARE_FILTERS,
  nextChangeAt,
  shownBy,
  type CompareFilter,
  type CompareRow,
} from "@/lib/session-view/compare-rows";
import { authorize } from "../authz";
import type { Principal } from "../principal";

/** Rows per window when none is asked for, and at most. */
export const ROWS_DEFAULT = 100;
export const ROWS_MAX = 500;
/** Comparisons kept in memory (each about 250 bytes a pair). */
const KEPT = 8;

const ReplayId = z.string().min(1, "Name the replay.").max(200);
const PairId = z.string().regex(/^(p\d+-\d+|i\d+|r\d+)$/, "not a pair id (p<base>-<branch>, i<branch> or r<base>)");
const Filter = z.enum(COMPARE_FILTERS).default("all");

export const ComparisonRowsInput = z.object({
  replayId: ReplayId,
  filter: Filter,
  /** The position of the window's first row among the rows the filter shows, default 0. */
  cursor: z.coerce.number().int().min(0).max(2_147_483_647).optional(),
  limit: z.coerce.number().int().min(1).max(ROWS_MAX).default(ROWS_DEFAULT),
});
export type ComparisonRowsInput = z.input<typeof ComparisonRowsInput>;

export const ComparisonFindInput = z.object({
  replayId: ReplayId,
  filter: Filter,
  /** The pair to find, or to move from (none: from the top or the bottom). */
  pair: PairId.optional(),
  /** Move to the next (1) or previous (−1) change among the rows the filter shows; absent: find `pair` itself. */
  direction: z.union([z.literal(1), z.literal(-1)]).optional(),
});
export type ComparisonFindInput = z.input<typeof ComparisonFindInput>;

export type ComparisonCounts = Record<CompareFilter, number>;

interface ComparisonIndex {
  replayId: string;
  sessionId: string;
  /** The rows without their previews: a window reads the steps it shows for them (see withPreviews). */
  rows: RowOutline[];
  positionOf: Map<string, number>;
  /** Per filter but "all": the positions (in `rows`) of the rows it shows, built when first asked for. */
  lists: Map<CompareFilter, number[]>;
  counts: ComparisonCounts;
  firstDivergence: FirstDivergence | null;
  /** Each pair's position in the branch (null for a pair only in the base): where the validity suggestion places a divergence. */
  pairBranchIndex: (number | null)[];
  metrics: ComparisonMetrics;
  baseCount: number;
  branchCount: number;
  baseFinalOutput: unknown;
  branchFinalOutput: unknown;
}

const kept = new Map<string, { key: string; index: Promise<ComparisonIndex | null> }>();

/** How many comparisons were built (aligned over both runs) since the process started: what tests count. */
let builds = 0;
export const comparisonBuilds = () => builds;

async function buildIndex(prisma: Db, replayId: string): Promise<ComparisonIndex | null> {
  builds++;
  const view = await loadReplayComparison(prisma, replayId, { inputDrift: false });
  if (!view) return null;
  const rows = toRowOutlines(view.comparison.pairs);
  const counts = Object.fromEntries(COMPARE_FILTERS.map((f) => [f, 0])) as ComparisonCounts;
  for (const r of rows) for (const f of COMPARE_FILTERS) if (shownBy(f, r)) counts[f]++;
  return {
    replayId,
    sessionId: view.replay.sessionId,
    rows,
    positionOf: new Map(rows.map((r, k) => [r.id, k])),
    lists: new Map(),
    counts,
    firstDivergence: view.comparison.firstDivergence,
    pairBranchIndex: view.comparison.pairs.map((p) => (isBaseOnly(p) ? null : p.branchIndex)),
    metrics: view.comparison.metrics,
    baseCount: view.baseCount,
    branchCount: view.branchCount,
    baseFinalOutput: view.baseFinalOutput,
    branchFinalOutput: view.branchFinalOutput,
  };
}

/** The replay's comparison as it is now: kept while neither the replay nor its base changes. */
async function comparisonIndex(prisma: Db, replayId: string): Promise<ComparisonIndex> {
  const stamp = await replayStamp(prisma, replayId);
  if (!stamp) throw notFound("replay", replayId);
  let entry = kept.get(replayId);
  if (!entry || entry.key !== stamp.key) {
    const built = { key: stamp.key, index: buildIndex(prisma, replayId) };
    // A failed build is not kept (nor does it take a newer one with it).
    built.index.catch(() => {
      if (kept.get(replayId) === built) kept.delete(replayId);
    });
    entry = built;
  }
  // Newest use last; the oldest goes first.
  kept.delete(replayId);
  kept.set(replayId, entry);
  while (kept.size > KEPT) kept.delete(kept.keys().next().value!);
  const index = await entry.index;
  if (!index) throw notFound("replay", replayId);
  return index;
}

/** The rows with their previews, from the content of the steps they show (read for these rows only). */
async function withPreviews(prisma: Db, index: ComparisonIndex, rows: readonly RowOutline[]): Promise<CompareRow[]> {
  const contents = await plainContents(
    prisma,
    { sessionId: index.sessionId, replayId: index.replayId },
    rows.flatMap((r) => (r.shows === "base" ? [r.baseSeq!] : [])),
    rows.flatMap((r) => (r.shows === "branch" ? [r.branchSeq!] : [])),
  );
  return rows.map((r) => {
    const content = r.shows === "base" ? contents.base.get(r.baseSeq!) : contents.branch.get(r.branchSeq!);
    // A step gone meanwhile (a run that stored new steps since): its kind alone.
    return withPreview(r, previewOf(content ?? { kind: r.kind, input: null, output: null, error: null }));
  });
}

/** The positions (in all rows) of the rows a filter shows, in order. */
function listOf(index: ComparisonIndex, filter: CompareFilter): { length: number; at: (k: number) => number } {
  if (filter === "all") return { length: index.rows.length, at: (k) => k };
  let list = index.lists.get(filter);
  if (!list) {
    list = [];
    for (let k = 0; k < index.rows.length; k++) if (shownBy(filter, index.rows[k]!)) list.push(k);
    index.lists.set(filter, list);
  }
  const positions = list;
  return { length: positions.length, at: (k) => positions[k]! };
}

/** The position of the row at `all` (a position in all rows) among the filter's rows, or −1 when it does not show it. */
function positionIn(index: ComparisonIndex, filter: CompareFilter, all: number): number {
  if (filter === "all") return all;
  if (!shownBy(filter, index.rows[all]!)) return -1;
  const list = index.lists.get(filter)!;
  let lo = 0;
  let hi = list.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    if (list[mid]! === all) return mid;
    if (list[mid]! < all) lo = mid + 1;
    else hi = mid - 1;
  }
  return -1;
}

export interface ComparisonPageView extends ReplayPageMeta {
  baseCount: number;
  branchCount: number;
  baseFinalOutput: unknown;
  branchFinalOutput: unknown;
  metrics: ComparisonMetrics;
  firstDivergence: FirstDivergence | null;
  /** Rows each filter shows. */
  counts: ComparisonCounts;
}

/** The comparison page's header and panels: everything but its rows. */
export async function getComparisonPage(
  principal: Principal,
  input: { replayId: string },
  prisma: Db,
): Promise<ComparisonPageView> {
  authorize(principal, "replays.read");
  const { replayId } = parseInput(z.object({ replayId: ReplayId }), input);
  const [meta, index] = await Promise.all([
    loadReplayMeta(prisma, replayId, { inputDrift: false }),
    comparisonIndex(prisma, replayId),
  ]);
  if (!meta) throw notFound("replay", replayId);
  return {
    ...meta,
    baseCount: index.baseCount,
    branchCount: index.branchCount,
    baseFinalOutput: index.baseFinalOutput,
    branchFinalOutput: index.branchFinalOutput,
    metrics: index.metrics,
    firstDivergence: index.firstDivergence,
    counts: index.counts,
  };
}

export type ComparisonRowsWindow = {
  filter: CompareFilter;
  cursor: number;
  nextCursor: number | null;
  /** Rows the filter shows in all. */
  total: number;
  rows: CompareRow[];
};

/** One window of the rows a filter shows: positions [cursor, cursor + limit). */
export async function listComparisonRows(
  principal: Principal,
  input: ComparisonRowsInput,
  prisma: Db,
): Promise<ComparisonRowsWindow> {
  authorize(principal, "replays.read");
  const { replayId, filter, cursor = 0, limit } = parseInput(ComparisonRowsInput, input);
  const index = await comparisonIndex(prisma, replayId);
  const { shown, ...window } = windowOf(index, filter, cursor, limit);
  return { ...window, rows: await withPreviews(prisma, index, shown) };
}

/** The rows at positions [cursor, cursor + limit) among those a filter shows, and where the next window starts. */
function windowOf(index: ComparisonIndex, filter: CompareFilter, cursor: number, limit: number) {
  const list = listOf(index, filter);
  const shown: RowOutline[] = [];
  for (let k = cursor; k < Math.min(cursor + limit, list.length); k++) shown.push(index.rows[list.at(k)]!);
  return {
    filter,
    cursor,
    nextCursor: cursor + limit < list.length ? cursor + limit : null,
    total: list.length,
    shown,
  };
}

export type FoundRow = { position: number; row: CompareRow };

/**
 * A row by pair id among the rows a filter shows (null when it does not show
 * it), or with `direction` the next or previous change from it (from the top
 * or the bottom without a pair; null when there is none that way).
 */
export async function findComparisonRow(
  principal: Principal,
  input: ComparisonFindInput,
  prisma: Db,
): Promise<FoundRow | null> {
  authorize(principal, "replays.read");
  const { replayId, filter, pair, direction } = parseInput(ComparisonFindInput, input);
  const index = await comparisonIndex(prisma, replayId);
  const list = listOf(index, filter);
  const all = pair === undefined ? undefined : index.positionOf.get(pair);
  const at = all === undefined ? -1 : positionIn(index, filter, all);
  const found =
    direction === undefined
      ? at < 0
        ? null
        : at
      : nextChangeAt(list.length, (k) => index.rows[list.at(k)]!, at, direction);
  if (found === null) return null;
  const [row] = await withPreviews(prisma, index, [index.rows[list.at(found)]!]);
  return { position: found, row: row! };
}

/** Pairs per window of the report form's pair picker: the first is sent with the page, the others load as it scrolls. */
export const PICKER_WINDOW = 100;

export const PairChoicesInput = ComparisonRowsInput.extend({
  limit: z.coerce.number().int().min(1).max(ROWS_MAX).default(PICKER_WINDOW),
});
export type PairChoicesInput = z.input<typeof PairChoicesInput>;

export const ReportPickerInput = z.object({
  replayId: ReplayId,
  /** The draft's pins (none: a new report, which pins the first divergence). */
  pinned: z.array(z.string().max(200)).max(100_000).optional(),
});
export type ReportPickerInput = z.input<typeof ReportPickerInput>;

export type PairChoicesWindow = Omit<ComparisonRowsWindow, "rows"> & { choices: PairChoice[] };

/**
 * One window of the pairs a filter shows, as the report form's picker lists
 * them: what a pair is (its id, number, type, kind, name and seqs), without
 * the preview listComparisonRows reads each step's content for.
 */
export async function listPairChoices(
  principal: Principal,
  input: PairChoicesInput,
  prisma: Db,
): Promise<PairChoicesWindow> {
  authorize(principal, "replays.read");
  const { replayId, filter, cursor = 0, limit } = parseInput(PairChoicesInput, input);
  const { shown, ...window } = windowOf(await comparisonIndex(prisma, replayId), filter, cursor, limit);
  return { ...window, choices: shown.map(pairChoice) };
}

export interface ReportPicker {
  /** What the picker's windows are cached under: another run of the replay makes another comparison. */
  version: string;
  counts: ComparisonCounts;
  window: number;
  firstDivergence: PairChoice | null;
  /** The pins the comparison has, in its order (a new report's: its first divergence). */
  pinned: PairChoice[];
  /** The draft's pins the comparison no longer has (its base imported again, or the replay run again): left out. */
  dropped: string[];
  /** The filter the picker opens on and its first window. */
  initial: { filter: CompareFilter; choices: PairChoice[] };
}

export interface ReportPickerView extends ReplayPageMeta {
  branchCount: number;
  firstDivergence: FirstDivergence | null;
  /** Null while the replay has not finished (a report needs a finished one). */
  picker: ReportPicker | null;
  suggestion: ValiditySuggestion | null;
}

/**
 * What the report form shows of a finished replay's comparison: the counts,
 * the first window of pairs, the first divergence and the pins, from the
 * comparison kept for the replay as it is now (the comparison page's: built
 * once per run, not per render). Without the picker while the replay runs.
 */
export async function getReportPicker(
  principal: Principal,
  input: ReportPickerInput,
  prisma: Db,
): Promise<ReportPickerView> {
  authorize(principal, "replays.read");
  const { replayId, pinned } = parseInput(ReportPickerInput, input);
  const meta = await loadReplayMeta(prisma, replayId, { inputDrift: false });
  if (!meta) throw notFound("replay", replayId);
  if (!isTerminal(meta.replay.status))
    return { ...meta, branchCount: meta.replay.stepCount, firstDivergence: null, picker: null, suggestion: null };
  const index = await comparisonIndex(prisma, replayId);
  const fd = index.firstDivergence;
  const filter = defaultPickerFilter(index.counts);
  const pins = [...new Set(pinned ?? (fd ? [fd.id] : []))];
  const held = pins.filter((id) => index.positionOf.has(id));
  return {
    ...meta,
    branchCount: index.branchCount,
    firstDivergence: fd,
    picker: {
      version: `${meta.replay.status}:${index.branchCount}:${meta.replay.finishedAt?.toISOString() ?? ""}`,
      counts: index.counts,
      window: PICKER_WINDOW,
      firstDivergence: fd ? pairChoice(index.rows[index.positionOf.get(fd.id)!]!) : null,
      pinned: held
        .map((id) => index.positionOf.get(id)!)
        .sort((a, b) => a - b)
        .map((k) => pairChoice(index.rows[k]!)),
      dropped: pins.filter((id) => !index.positionOf.has(id)),
      initial: { filter, choices: windowOf(index, filter, 0, PICKER_WINDOW).shown.map(pairChoice) },
    },
    suggestion: suggestValidityOf({
      replay: meta.replay,
      evidence: meta.evidence,
      firstDivergence: fd,
      pairBranchIndex: index.pairBranchIndex,
    }),
  };
}
