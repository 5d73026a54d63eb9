/** An investigation's result in a few words (lists, headings). */
export function resultInWords(kind: string, result: unknown): string {
  const r = result as { kind?: string; modelStep?: number; baseSeq?: number; kept?: number[] } | null | undefined;
  if (!r?.kind) return "no result yet";
  switch (r.kind) {
    case "decided":
      return `decided at model step ${r.modelStep} (base step ${r.baseSeq})`;
    case "not_fixable":
      return "re-running the model does not fix it";
    case "minimal":
      return `${r.kept?.length ?? 0} edit${r.kept?.length === 1 ? "" : "s"} needed`;
    case "not_fixing":
      return "the edits together do not fix it";
    case "checked": {
      const c = result as { stale: number; fresh: number; unchecked: number };
      return `${c.stale} stale, ${c.fresh} still the same${c.unchecked > 0 ? `, ${c.unchecked} not reached` : ""}`;
    }
    case "cancelled":
      return "cancelled";
    default:
      return kind;
  }
}

/** What kind of search an investigation is, in words. */
export function investigationKindWords(kind: string): string {
  return kind === "blame" ? "Deciding step" : kind === "stale" ? "Stale recordings" : "Smallest fixing change";
}
