"use client";

import type { CSSProperties } from "react";
import { Badge } from "@/components/ui/Badge";
import { Button } from "@/components/ui/Button";
import { PairTypeBadge, pairTypeWord } from "@/components/compare/PairTypeBadge";
import type { PairChoice } from "@/lib/reports/pair-choice";

/** The draft's pins the comparison no longer has: named, and left out when the draft is saved. */
export function DroppedPinsNote({ dropped }: { dropped: readonly string[] }) {
  return (
    <p role="status" className="mb-2 rounded-md border border-amber-300 bg-amber-50 px-3 py-2 text-sm text-amber-900">
      {dropped.length === 1 ? "One pinned pair of this draft is" : `${dropped.length} pinned pairs of this draft are`}{" "}
      no longer in the comparison (the replay or its base run changed since the draft was saved), so{" "}
      {dropped.length === 1 ? "it is" : "they are"} left out: <span className="font-mono">{dropped.join(", ")}</span>.
      Saving the draft removes {dropped.length === 1 ? "it" : "them"} from the report.
    </p>
  );
}

/** One pair of the list, with its pin (the first divergence is pinned for good). */
export function PairChoiceRow({
  pair: p,
  style,
  position,
  total,
  pinned,
  first,
  onPin,
}: {
  pair: PairChoice;
  style: CSSProperties;
  position: number;
  total: number;
  pinned: boolean;
  first: boolean;
  onPin: (pair: PairChoice, pin: boolean) => void;
}) {
  return (
    <li
      key={p.id}
      style={style}
      aria-setsize={total}
      aria-posinset={position + 1}
      data-testid="pair-choice"
      data-pair-id={p.id}
      className="border-b border-slate-100"
    >
      <label className="flex h-full cursor-pointer items-center gap-2 px-3 text-sm hover:bg-slate-50">
        <input
          type="checkbox"
          checked={pinned}
          disabled={first}
          onChange={(e) => onPin(p, e.target.checked)}
          aria-label={`Pin pair ${p.index}, ${pairTypeWord(p)}: ${p.label}`}
        />
        <span className="w-12 shrink-0 text-right text-xs text-slate-500 tabular-nums">{p.index}</span>
        <PairTypeBadge type={p.type} inputOnly={p.inputOnly} />
        <span className="truncate font-mono text-xs">{p.label}</span>
        {first ? (
          <span className="ml-auto shrink-0">
            <Badge tone="bad">first divergence</Badge>
          </span>
        ) : null}
      </label>
    </li>
  );
}

/** What is pinned, whichever windows are on screen, each with a way to unpin it. */
export function PinnedSummary({
  summary,
  firstDivergenceId,
  onPin,
}: {
  summary: readonly PairChoice[];
  firstDivergenceId: string | undefined;
  onPin: (pair: PairChoice, pin: boolean) => void;
}) {
  return (
    <div className="mt-2 text-sm" data-testid="pinned-summary">
      <p className="font-medium text-slate-800" aria-live="polite">
        {summary.length} pinned
      </p>
      {summary.length > 0 ? (
        <ul className="mt-1 flex flex-wrap gap-1.5" aria-label="Pinned pairs">
          {summary.map((p) => (
            <li
              key={p.id}
              data-pair-id={p.id}
              className="flex items-center gap-1 rounded border border-slate-200 bg-slate-50 px-1.5 py-0.5 text-xs"
            >
              <span className="text-slate-500 tabular-nums">pair {p.index}</span>
              <span className="max-w-md truncate font-mono" title={p.label}>
                {p.label}
              </span>
              {p.id === firstDivergenceId ? (
                <span className="text-slate-500">(first divergence, always included)</span>
              ) : (
                <Button
                  variant="ghost"
                  size="icon"
                  onClick={() => onPin(p, false)}
                  aria-label={`Unpin pair ${p.index}, ${pairTypeWord(p)}: ${p.label}`}
                >
                  ×
                </Button>
              )}
            </li>
          ))}
        </ul>
      ) : null}
    </div>
  );
}
