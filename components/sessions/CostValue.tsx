import { formatCost } from "@/lib/format";

/** Words for where a cost came from, for a reader. */
export const ESTIMATED_TITLE = "Estimated from the price table: the source recorded tokens but no cost.";

/** A session's cost, marked "est." when the price table worked it out (the source gave none). */
export function CostValue({ usd, source }: { usd: number; source: string | null }) {
  if (source !== "price_table") return <>{formatCost(usd)}</>;
  return (
    <span title={ESTIMATED_TITLE}>
      {formatCost(usd)}{" "}
      <abbr title={ESTIMATED_TITLE} className="text-xs font-normal text-slate-500 no-underline">
        est.
      </abbr>
    </span>
  );
}

/** The same as text (a phone's line of figures). */
export function costText(usd: number, source: string | null): string | null {
  if (!usd) return null;
  return source === "price_table" ? `${formatCost(usd)} est.` : formatCost(usd);
}
