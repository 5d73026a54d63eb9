import type { CompareFilter, CompareRow } from "@/lib/session-view/compare-rows";

/** A comparison pair as the report form offers it to pin: its id, its number among all pairs, its type and words. */
export interface PairChoice {
  id: string;
  index: number;
  type: CompareRow["type"];
  /** A changed model call whose only difference is its input (the comparison page's "input only"). */
  inputOnly?: true;
  label: string;
}

/**
 * A row of the comparison as a pair to pin; its label is the pair's title
 * in the report's export without the type ("tool_call lookup_order (base #1 ↔ branch #1)").
 */
export function pairChoice(
  row: Pick<CompareRow, "id" | "index" | "type" | "kind" | "name" | "baseSeq" | "branchSeq" | "inputOnly">,
): PairChoice {
  const where =
    row.type === "removed" || row.type === "unreached"
      ? `base #${row.baseSeq}`
      : row.type === "inserted"
        ? `branch #${row.branchSeq}`
        : `base #${row.baseSeq} ↔ branch #${row.branchSeq}`;
  return {
    id: row.id,
    index: row.index,
    type: row.type,
    ...(row.inputOnly ? { inputOnly: true as const } : {}),
    label: `${row.kind} ${row.name} (${where})`,
  };
}

/** The picker opens on the differences when there are any (they are what a report pins), else on every pair. */
export function defaultPickerFilter(counts: Record<CompareFilter, number>): CompareFilter {
  return counts.changes > 0 ? "changes" : "all";
}

/** The pinned pairs in the comparison's order, as the report stores them: the first divergence always among them. */
export function pinnedIds(pinned: Iterable<PairChoice>, firstDivergence: PairChoice | null): string[] {
  const byId = new Map<string, PairChoice>();
  for (const p of pinned) byId.set(p.id, p);
  if (firstDivergence) byId.set(firstDivergence.id, firstDivergence);
  return [...byId.values()].sort((a, b) => a.index - b.index).map((p) => p.id);
}
