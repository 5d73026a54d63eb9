/**
 * The comparison of a long branch a window at a time, from the comparison
 * stored for the replay as it is now (lib/server/replays/comparison-store.ts:
 * built after the run stored its steps, or by the first read). A page costs
 * the rows it shows: a filter's window, a pair's position, the next change
 * (j / k) and the first divergence are ranges or lookups of the stored pairs'
 * indexes, and a row's preview is made from its step's content as its window
 * is read.
 */
import { z } from "zod";
import type { Db } from "@/lib/db";
import { plainContents } from "@/lib/db/replay-window";
import { storedPairs, storedPairsById, type PairRange } from "@/lib/db/stored-comparison";
import { isTerminal, loadReplayMeta, type ReplayPageMeta } from "@/lib/db/replays";
import { notFound, parseInput } from "@/lib/errors";
import type { FirstDivergence } from "@/lib/replay";
import { defaultPickerFilter, pairChoice, type PairChoice } from "@/lib/reports/pair-choice";
import { suggestValidityOf } from "@/lib/reports/snapshot";
import type { ValiditySuggestion } from "@/lib/reports/validity";
import { findPair, outlineOfStored, withPreviews, type RowOutline } from "@/lib/session-view/compare-pairs";
import { PAIR_ID, type ComparisonPanels, type CompareFilter, type CompareRow } from "@/lib/session-view/compare-rows";
import { COMPARE_ROWS_MAX, compareFindFields, compareWindowFields } from "@/lib/session-view/compare-input";
import { authorize } from "../authz";
import type { Principal } from "../principal";
import {
  currentComparison,
  type ComparisonCounts,
  type ComparisonHeader,
  type CurrentComparison,
} from "./comparison-store";

export { comparisonBuilds, type ComparisonCounts } from "./comparison-store";

const ReplayId = z.string().min(1, "Name the replay.").max(200);
const PairId = z.string().regex(PAIR_ID, "not a pair id (p<base>-<branch>, i<branch> or r<base>)");

export const ComparisonRowsInput = z.object({ replayId: ReplayId, ...compareWindowFields });
export type ComparisonRowsInput = z.input<typeof ComparisonRowsInput>;

export const ComparisonFindInput = z.object({ replayId: ReplayId, ...compareFindFields(PairId) });
export type ComparisonFindInput = z.input<typeof ComparisonFindInput>;

/** The rows with their previews, from the content of the base events and branch steps they show. */
function previewRows(prisma: Db, ids: { sessionId: string; replayId: string }, rows: readonly RowOutline[]) {
  return withPreviews(rows, (baseSeqs, branchIdxs) => plainContents(prisma, ids, baseSeqs, branchIdxs));
}

/** The stored range a filter's positions [from, to) are. */
function rangeOf(filter: CompareFilter, from: number, to: number): PairRange {
  if (filter === "all") return { by: "position", from, to };
  if (filter === "changes") return { by: "change", from, to };
  return { by: "type", type: filter, from, to };
}

export interface ComparisonPageView extends ReplayPageMeta, ComparisonPanels {}

/** The comparison page's header and panels: everything but its rows. */
export async function getComparisonPage(
  principal: Principal,
  input: { replayId: string },
  prisma: Db,
): Promise<ComparisonPageView> {
  authorize(principal, "replays.read");
  const { replayId } = parseInput(z.object({ replayId: ReplayId }), input);
  const [meta, current] = await Promise.all([
    loadReplayMeta(prisma, replayId, { inputDrift: false }),
    currentComparison(prisma, replayId),
  ]);
  if (!meta) throw notFound("replay", replayId);
  return {
    ...meta,
    baseCount: current.baseCount,
    branchCount: current.branchCount,
    baseFinalOutput: current.baseFinalOutput,
    branchFinalOutput: current.branchFinalOutput,
    metrics: current.metrics,
    firstDivergence: current.firstDivergence,
    counts: current.counts,
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
  const current = await currentComparison(prisma, replayId);
  const { shown, ...window } = await windowOf(prisma, current, filter, cursor, limit);
  return { ...window, rows: await previewRows(prisma, current, shown) };
}

/** The rows at positions [cursor, cursor + limit) among those a filter shows, and where the next window starts. */
async function windowOf(prisma: Db, current: CurrentComparison, filter: CompareFilter, cursor: number, limit: number) {
  const total = current.counts[filter];
  const shown = (
    await storedPairs(prisma, current.replayId, rangeOf(filter, cursor, Math.min(cursor + limit, total)))
  ).map(outlineOfStored);
  return { filter, cursor, nextCursor: cursor + limit < total ? cursor + limit : null, total, shown };
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
  const current = await currentComparison(prisma, replayId);
  const [from] = pair === undefined ? [] : await storedPairsById(prisma, replayId, [pair]);
  const found = await findPair(filter, from, direction, current.counts, async (among, k) => {
    const [p] = await storedPairs(prisma, replayId, rangeOf(among, k, k + 1));
    return p;
  });
  if (!found) return null;
  const [row] = await previewRows(prisma, current, [outlineOfStored(found.pair)]);
  return { position: found.position, row: row! };
}

/** Pairs per window of the report form's pair picker: the first is sent with the page, the others load as it scrolls. */
export const PICKER_WINDOW = 100;

export const PairChoicesInput = ComparisonRowsInput.extend({
  limit: z.coerce.number().int().min(1).max(COMPARE_ROWS_MAX).default(PICKER_WINDOW),
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
  const current = await currentComparison(prisma, replayId);
  const { shown, ...window } = await windowOf(prisma, current, filter, cursor, limit);
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
 * comparison stored for the replay as it is now (the comparison page's: built
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
  const current = await currentComparison(prisma, replayId);
  const fd = current.firstDivergence;
  const filter = defaultPickerFilter(current.counts);
  const pins = [...new Set(pinned ?? (fd ? [fd.id] : []))];
  const [held, first, initial] = await Promise.all([
    storedPairsById(prisma, replayId, pins),
    fd ? storedPairsById(prisma, replayId, [fd.id]) : [],
    windowOf(prisma, current, filter, 0, PICKER_WINDOW),
  ]);
  const heldIds = new Set(held.map((p) => p.pairId));
  return {
    ...meta,
    branchCount: current.branchCount,
    firstDivergence: fd,
    picker: {
      version: `${meta.replay.status}:${current.branchCount}:${meta.replay.finishedAt?.toISOString() ?? ""}`,
      counts: current.counts,
      window: PICKER_WINDOW,
      firstDivergence: first[0] ? pairChoice(outlineOfStored(first[0])) : null,
      pinned: held.map((p) => pairChoice(outlineOfStored(p))),
      dropped: pins.filter((id) => !heldIds.has(id)),
      initial: { filter, choices: initial.shown.map(pairChoice) },
    },
    suggestion: suggestValidityOf({
      replay: meta.replay,
      evidence: meta.evidence,
      firstDivergence: fd,
      pairBranchIndex: pairBranchIndexOf(current),
    }),
  };
}

/**
 * What the validity suggestion reads of the pairs' branch indexes: the first one after the first divergence
 * (where a step only in the base diverges), at its place; the pairs before it are not read.
 */
function pairBranchIndexOf(current: ComparisonHeader): (number | null)[] {
  const fd = current.firstDivergence;
  if (!fd) return [];
  const list: (number | null)[] = new Array<number | null>(fd.pairIndex + 1).fill(null);
  if (current.divergenceBranchIndex !== null) list.push(current.divergenceBranchIndex);
  return list;
}
