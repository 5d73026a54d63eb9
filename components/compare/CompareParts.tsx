"use client";

import { useEffect, useLayoutEffect, useRef, type CSSProperties } from "react";
import { findCompareRow, type CompareSource } from "./compare-source";
import { Badge } from "@/components/ui/Badge";
import { Button } from "@/components/ui/Button";
import type { CompareFilter, CompareRow } from "@/lib/session-view/compare-rows";
import { INPUT_ONLY_LABEL } from "@/components/counterfactual/labels";
import { CompareFilterSelect } from "./CompareFilterSelect";
import { PairTypeBadge } from "./PairTypeBadge";

/** A row and where it stands among the rows a filter shows (−1: the filter does not show it). */
export type FoundRow = { position: number; row: CompareRow };

/** Above the aligned steps: jump to the first divergence, the j / k hint, and the filter. */
export function CompareToolbar({
  counts,
  filter,
  onFilter,
  firstDivergence,
  onJump,
}: {
  counts: Record<CompareFilter, number>;
  filter: CompareFilter;
  onFilter: (next: CompareFilter) => void;
  firstDivergence: FoundRow | null;
  onJump: () => void;
}) {
  return (
    <div className="mb-2 flex flex-wrap items-center gap-2 text-sm">
      {firstDivergence ? <Button onClick={onJump}>Jump to first divergence</Button> : null}
      {firstDivergence ? (
        <span className="text-xs text-slate-500">
          <kbd className="rounded border border-slate-300 px-1 font-mono">j</kbd> /{" "}
          <kbd className="rounded border border-slate-300 px-1 font-mono">k</kbd> next / previous change
        </span>
      ) : (
        <Badge tone="good">
          {counts.unreached > 0 ? "no divergence up to where the branch ended" : "no divergence: every step equal"}
        </Badge>
      )}
      <span className="ml-auto flex items-center gap-1.5">
        <CompareFilterSelect filter={filter} counts={counts} onFilter={onFilter} labelClassName="text-slate-500" />
      </span>
    </div>
  );
}

/** One aligned pair in the list: base and branch step, the pair's type, the step's name and a preview. */
export function CompareRowLine({
  row,
  style,
  active,
  onSelect,
}: {
  row: CompareRow;
  style: CSSProperties;
  active: boolean;
  onSelect: () => void;
}) {
  return (
    <div
      role="option"
      aria-selected={active}
      data-testid="compare-row"
      data-pair-type={row.type}
      data-pair-id={row.id}
      onClick={onSelect}
      style={style}
      className={`grid cursor-pointer grid-cols-[3.5rem_3.5rem_5.5rem_minmax(0,1fr)] items-center border-b border-slate-100 px-2 text-xs ${active ? "bg-indigo-50 ring-1 ring-indigo-300 ring-inset" : row.type === "equal" ? "hover:bg-slate-50" : "bg-amber-50/40 hover:bg-amber-50"}`}
    >
      {/* slate-600, not 500: the selected row's indigo tint left 500 under 4.5:1 */}
      <span className="font-mono text-slate-600">{row.baseSeq ?? "—"}</span>
      <span className="font-mono text-slate-600">{row.branchSeq ?? "—"}</span>
      <span>
        <PairTypeBadge type={row.type} inputOnly={row.inputOnly} />
      </span>
      <span className="truncate">
        <span className="font-mono">{row.name}</span>
        {row.source && row.source !== "recorded" ? <span className="ml-1 text-indigo-700">[{row.source}]</span> : null}
        {row.inputOnly ? (
          <span className="ml-1 text-slate-600" data-testid="input-only">
            [{INPUT_ONLY_LABEL}]
          </span>
        ) : null}
        <span className="ml-2 text-slate-600">{row.preview}</span>
      </span>
    </div>
  );
}

/**
 * j / k: the next / previous change among the rows shown, found by the server in whichever window it is
 * (not while typing in a field or the editor). The key reads the selection the page shows: the listener is
 * registered once and reads the latest props from a ref set before paint, since a listener re-registered by an
 * effect (after paint) could take a key pressed in between with the selection before, and j j k then went from
 * the second row back past the first.
 */
export function useNextChangeKeys(props: {
  source: CompareSource;
  filter: CompareFilter;
  selected: CompareRow | null;
  onFound: (found: FoundRow) => void;
  onError: (message: string) => void;
}) {
  const latest = useRef(props);
  useLayoutEffect(() => {
    latest.current = props;
  });
  const moving = useRef(false);
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if (e.key !== "j" && e.key !== "k") return;
      if (e.altKey || e.ctrlKey || e.metaKey || e.defaultPrevented) return;
      const target = e.target as HTMLElement | null;
      if (target?.closest("input, textarea, select, [contenteditable=true], .monaco-editor")) return;
      e.preventDefault();
      if (moving.current) return;
      moving.current = true;
      const { source, filter, selected, onFound, onError } = latest.current;
      findCompareRow(source, {
        filter,
        ...(selected ? { pair: selected.id } : {}),
        direction: e.key === "j" ? 1 : -1,
      })
        .then((result) => {
          if (!result.ok) onError(result.error.message);
          else if (result.data) onFound(result.data);
        })
        .catch(() => onError("The next change could not be found; try again."))
        .finally(() => {
          moving.current = false;
        });
    };
    window.addEventListener("keydown", onKey);
    return () => window.removeEventListener("keydown", onKey);
  }, []);
}
