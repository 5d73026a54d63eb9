import { deepEqual, isBaseOnly, type AlignedPair } from "@/lib/replay";
import { previewText } from "@/lib/format";
import { isChange, type CompareFilter, type CompareRow } from "./compare-rows";

/**
 * The comparison's pairs as the list's rows: what a row shows (kinds, names,
 * sources, a preview), never the events themselves. Server side: the browser
 * gets the rows a window at a time.
 */

/** A compared pair that differs only in the model's input: same model output, copied from the record. */
export function isInputOnlyPair(pair: {
  type: string;
  base?: { kind: string; output: unknown };
  branch?: { kind: string; output: unknown; source?: string };
}): boolean {
  return (
    pair.type === "changed" &&
    pair.branch?.kind === "model_call" &&
    pair.branch.source === "recorded" &&
    pair.base !== undefined &&
    deepEqual(pair.base.output, pair.branch.output)
  );
}

/** What a row shows of its step: an error, a tool call's arguments and result, a model call's reply or calls. */
export function previewOf(e: { kind: string; input: unknown; output: unknown; error: unknown }): string {
  const error = e.error as { type: string; message: string } | null;
  if (error) return `${error.type}: ${error.message}`;
  if (e.kind === "tool_call")
    return `${previewText((e.input as { args?: unknown } | null)?.args, 40)} ⇒ ${previewText(e.output, 50)}`;
  if (e.kind === "model_call") {
    const out = e.output as { content?: unknown; toolCalls?: { name: string }[] } | null;
    const calls = out?.toolCalls?.map((c) => c.name).join(", ");
    return calls ? `→ ${calls}` : previewText(out?.content, 90);
  }
  return previewText(e.output ?? e.input, 90);
}

/** A row without its preview, and the step the preview is of (the branch's, or the base's for a base-only pair). */
export type RowOutline = Omit<CompareRow, "preview"> & { shows: "base" | "branch" };

/** The pairs as rows without previews: what the comparison keeps per pair (its events may hold only digests). */
export function toRowOutlines(pairs: readonly AlignedPair[]): RowOutline[] {
  return pairs.map((p, index) => {
    const e = isBaseOnly(p) ? p.base : p.branch;
    return {
      id: p.id,
      index,
      type: p.type,
      kind: e.kind,
      name: e.name,
      baseSeq: p.type === "inserted" ? null : p.base.seq,
      branchSeq: isBaseOnly(p) ? null : p.branch.seq,
      source: isBaseOnly(p) ? null : (p.branch.source ?? null),
      ...(p.type === "changed" && isInputOnlyPair(p) ? { inputOnly: true as const } : {}),
      shows: isBaseOnly(p) ? "base" : "branch",
    };
  });
}

/** A row from its outline and the preview of the step it shows. */
export function withPreview({ shows: _, inputOnly, ...row }: RowOutline, preview: string): CompareRow {
  return { ...row, preview, ...(inputOnly ? { inputOnly } : {}) };
}

type StepContent = { kind: string; input: unknown; output: unknown; error: unknown };

/**
 * The rows with their previews, from the content of the steps they show (read for these rows only): `read` gets
 * the base seqs and the branch seqs shown and answers each side's content by them.
 */
export async function withPreviews(
  rows: readonly RowOutline[],
  read: (
    baseSeqs: number[],
    branchSeqs: number[],
  ) => Promise<{ base: ReadonlyMap<number, StepContent>; branch: ReadonlyMap<number, StepContent> }>,
): Promise<CompareRow[]> {
  const contents = await read(
    rows.flatMap((r) => (r.shows === "base" ? [r.baseSeq!] : [])),
    rows.flatMap((r) => (r.shows === "branch" ? [r.branchSeq!] : [])),
  );
  return rows.map((r) => {
    const content = r.shows === "base" ? contents.base.get(r.baseSeq!) : contents.branch.get(r.branchSeq!);
    // A step gone meanwhile (a run that stored new steps since): its kind alone.
    return withPreview(r, previewOf(content ?? { kind: r.kind, input: null, output: null, error: null }));
  });
}

/**
 * A pair as a stored comparison keeps it (lib/db/stored-comparison.ts): what a row shows but its preview, where
 * its steps are in both runs, and its ranks, so that a filter's window, and the next or previous change from any
 * pair, are ranges of an index rather than a scan of the pairs.
 */
export interface StoredPair {
  position: number;
  pairId: string;
  type: AlignedPair["type"];
  kind: string;
  name: string;
  baseSeq: number | null;
  baseIndex: number | null;
  branchSeq: number | null;
  branchIndex: number | null;
  source: string | null;
  inputOnly: boolean;
  /** Its position among the pairs of its type. */
  typeRank: number;
  /** A change's position among the changes (null for an equal or unreached pair). */
  changeRank: number | null;
  /** Changes before it. */
  changesBefore: number;
}

/** A pair as a comparison document lists it: its id, its type and where its steps are in both runs. */
export function pairOutline(p: StoredPair) {
  return {
    id: p.pairId,
    type: p.type,
    baseSeq: p.baseSeq,
    baseIndex: p.baseIndex,
    branchSeq: p.branchSeq,
    branchIndex: p.branchIndex,
  };
}

/** A comparison document's window of pairs: where it starts, its size, the total and where the next starts. */
export function pairWindow(from: number, limit: number, total: number) {
  return { from, limit, total, nextFrom: from + limit < total ? from + limit : null };
}

/** A stored pair's position among the rows a filter shows, or −1 when it does not show it. */
export function positionIn(filter: CompareFilter, p: StoredPair): number {
  if (filter === "all") return p.position;
  if (filter === "changes") return p.changeRank ?? -1;
  return p.type === filter ? p.typeRank : -1;
}

/**
 * The rank among the changes of the next (1) or previous (−1) change from a pair shown at `at` (from the top or
 * the bottom when `at` is −1 or there is no pair), or null when there is none that way.
 */
export function nextChangeRank(at: number, pair: StoredPair | null | undefined, direction: 1 | -1, changes: number) {
  const rank =
    at >= 0 && pair
      ? direction === 1
        ? pair.changesBefore + (isChange(pair) ? 1 : 0)
        : pair.changesBefore - 1
      : direction === 1
        ? 0
        : changes - 1;
  return rank >= 0 && rank < changes ? rank : null;
}

/**
 * A row by its pair among the rows a filter shows (null when it does not show it), or with `direction` the next (1)
 * or previous (−1) change from it (from the top or the bottom without a pair; null when there is none that way).
 * `pairAt` reads the pair at position `k` among those a filter shows: in "all" the change is found by its rank
 * among the changes, elsewhere by its position in the filter.
 */
export async function findPair(
  filter: CompareFilter,
  from: StoredPair | undefined,
  direction: 1 | -1 | undefined,
  counts: Record<CompareFilter, number>,
  pairAt: (among: CompareFilter, k: number) => Promise<StoredPair | undefined> | StoredPair | undefined,
): Promise<{ position: number; pair: StoredPair } | null> {
  const at = from ? positionIn(filter, from) : -1;
  if (direction === undefined) return at < 0 || !from ? null : { position: at, pair: from };
  // The filters of one type of change show only changes; "unreached" shows none.
  if (filter === "unreached") return null;
  if (filter === "all") {
    const rank = nextChangeRank(at, from, direction, counts.changes);
    const pair = rank === null ? undefined : await pairAt("changes", rank);
    return pair ? { position: pair.position, pair } : null;
  }
  const k = at >= 0 ? at + direction : direction === 1 ? 0 : counts[filter] - 1;
  const pair = k >= 0 && k < counts[filter] ? await pairAt(filter, k) : undefined;
  return pair ? { position: k, pair } : null;
}

/** The pairs as stored, in one pass. */
export function toStoredPairs(pairs: readonly AlignedPair[]): StoredPair[] {
  const byType = new Map<string, number>();
  let changes = 0;
  return toRowOutlines(pairs).map((r, position) => {
    const p = pairs[position]!;
    const typeRank = byType.get(r.type) ?? 0;
    byType.set(r.type, typeRank + 1);
    const change = isChange(r);
    const stored: StoredPair = {
      position,
      pairId: r.id,
      type: r.type,
      kind: r.kind,
      name: r.name,
      baseSeq: r.baseSeq,
      baseIndex: p.type === "inserted" ? null : p.baseIndex,
      branchSeq: r.branchSeq,
      branchIndex: isBaseOnly(p) ? null : p.branchIndex,
      source: r.source,
      inputOnly: r.inputOnly === true,
      typeRank,
      changeRank: change ? changes : null,
      changesBefore: changes,
    };
    if (change) changes++;
    return stored;
  });
}

/** A stored pair as the list's row outline. */
export function outlineOfStored(p: StoredPair): RowOutline {
  const baseOnly = p.type === "removed" || p.type === "unreached";
  return {
    id: p.pairId,
    index: p.position,
    type: p.type,
    kind: p.kind,
    name: p.name,
    baseSeq: p.baseSeq,
    branchSeq: p.branchSeq,
    source: p.source,
    ...(p.inputOnly ? { inputOnly: true as const } : {}),
    shows: baseOnly ? "base" : "branch",
  };
}
