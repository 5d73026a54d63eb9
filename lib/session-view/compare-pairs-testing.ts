/**
 * Comparison rows with their previews made from whole pairs: what the
 * comparison page's rows were before they were made from outlines and the few
 * contents shown, kept for tests as the oracle they must agree with. Never
 * used by the app.
 */
import { isBaseOnly, type AlignedPair } from "@/lib/replay";
import { previewOf, toRowOutlines, withPreview } from "./compare-pairs";
import type { CompareRow } from "./compare-rows";

export function toRows(pairs: readonly AlignedPair[]): CompareRow[] {
  const outlines = toRowOutlines(pairs);
  return pairs.map((p, k) => withPreview(outlines[k]!, previewOf(isBaseOnly(p) ? p.base : p.branch)));
}
