"use client";

import { useCallback, useEffect, useState } from "react";
import { readCompareRows, REPLAY_SIDES, sourceKey, type CompareSource, type SideLabels } from "./compare-source";
import { useRowWindows } from "@/components/ui/useRowWindows";
import { virtualItemStyle } from "@/components/ui/useWindowList";
import { compareSearch, type CompareFilter, type CompareRow } from "@/lib/session-view/compare-rows";
import { CompareRowLine, CompareToolbar, useNextChangeKeys, type FoundRow } from "./CompareParts";
import { PairDetail } from "./PairDetail";
import { preloadMonaco } from "@/components/ui/monaco";

const ROW_HEIGHT = 30;
const LIST_HEIGHT = 560;

export type { FoundRow };
/** One window of rows, as the server sends it. */
export type RowsWindow = { filter: CompareFilter; cursor: number; rows: CompareRow[] };

/**
 * Base and branch aligned step by step: a virtualized list of the rows a
 * filter shows, loaded a window at a time from the server (the first with the
 * page), the selected pair's diff, and the state in the URL. The next change
 * (j / k) and the first divergence are found by the server, in any window.
 */
export function CompareView({
  source,
  labels = REPLAY_SIDES,
  version,
  counts,
  window: rowsPerWindow,
  firstDivergence,
  initial,
}: {
  source: CompareSource;
  /** What the two sides are called (default: base and branch). */
  labels?: SideLabels;
  /** Changes when the comparison may have (a resumed branch): windows loaded before are not reused. */
  version: string;
  /** Rows each filter shows. */
  counts: Record<CompareFilter, number>;
  /** Rows per window. */
  window: number;
  /** The first divergence and its position among all rows. */
  firstDivergence: FoundRow | null;
  initial: { filter: CompareFilter; selected: FoundRow | null; rows: RowsWindow };
}) {
  const [filter, setFilter] = useState<CompareFilter>(initial.filter);
  const [selected, setSelected] = useState<CompareRow | null>(initial.selected?.row ?? null);
  const [error, setError] = useState<string | null>(null);
  const total = counts[filter];
  const { parentRef, virtualizer, items, rowAt, windowError } = useRowWindows<CompareRow>({
    key: ["compare-rows", ...sourceKey(source), version, filter],
    count: total,
    perWindow: rowsPerWindow,
    rowHeight: ROW_HEIGHT,
    listHeight: LIST_HEIGHT,
    overscan: 12,
    initialOffset:
      initial.selected && initial.selected.position >= 0
        ? Math.max(0, initial.selected.position * ROW_HEIGHT - LIST_HEIGHT / 2)
        : 0,
    initialWindow: initial.rows.filter === filter ? initial.rows : null,
    read: async (cursor) => {
      const result = await readCompareRows(source, { filter, cursor, limit: rowsPerWindow });
      if (!result.ok) throw new Error(result.error.message);
      return result.data.rows;
    },
  });

  // A changed pair opens as Monaco's diff: its code loads while the list is read, not when a pair is chosen.
  useEffect(preloadMonaco, []);

  useEffect(() => {
    const search = compareSearch({ pair: selected?.id ?? null, filter });
    if (window.location.search !== search)
      window.history.replaceState(window.history.state, "", `${window.location.pathname}${search}`);
  }, [selected, filter]);

  const select = useCallback(
    (found: FoundRow, nextFilter: CompareFilter = filter) => {
      setError(null);
      setFilter(nextFilter);
      setSelected(found.row);
      requestAnimationFrame(() => virtualizer.scrollToIndex(found.position, { align: "center" }));
    },
    [filter, virtualizer],
  );

  useNextChangeKeys({ source, filter, selected, onFound: select, onError: setError });

  const changeFilter = (next: CompareFilter) => {
    setFilter(next);
    virtualizer.scrollToOffset(0);
  };

  return (
    <div className="grid gap-4 xl:grid-cols-[minmax(0,1fr)_minmax(0,1fr)]">
      <div className="min-w-0">
        <CompareToolbar
          counts={counts}
          filter={filter}
          onFilter={changeFilter}
          firstDivergence={firstDivergence}
          onJump={() =>
            filter === "changes" ? select({ position: 0, row: firstDivergence!.row }) : select(firstDivergence!, "all")
          }
        />
        {error || windowError ? (
          <p role="alert" className="mb-2 text-sm text-rose-700">
            {error ?? windowError}
          </p>
        ) : null}
        <div className="grid grid-cols-[3.5rem_3.5rem_5.5rem_minmax(0,1fr)] border-b border-slate-200 bg-slate-50 px-2 py-1 text-xs text-slate-500">
          <span className="truncate">{labels.base}</span>
          <span className="truncate">{labels.branch}</span>
          <span>pair</span>
          <span>step</span>
        </div>
        <div
          ref={parentRef}
          style={{ height: LIST_HEIGHT }}
          className="overflow-auto rounded-b-lg border border-t-0 border-slate-200 bg-white"
          data-testid="compare-list"
          // A long list scrolls: it takes focus, so the keyboard can scroll it (j / k move between changes).
          tabIndex={0}
          role="listbox"
          aria-label="Aligned steps"
        >
          {total === 0 ? <p className="p-4 text-sm text-slate-500">No pairs match this filter; choose “all”.</p> : null}
          <div style={{ height: virtualizer.getTotalSize(), position: "relative" }}>
            {items.map((item) => {
              const row = rowAt(item.index);
              const style = virtualItemStyle(item.start, ROW_HEIGHT);
              if (!row)
                return (
                  <div
                    key={`pending-${item.index}`}
                    style={style}
                    aria-busy
                    className="border-b border-slate-100 px-2 py-1.5 text-xs text-slate-500"
                  >
                    Loading…
                  </div>
                );
              return (
                <CompareRowLine
                  key={row.id}
                  row={row}
                  style={style}
                  active={row.id === selected?.id}
                  onSelect={() => select({ position: item.index, row })}
                />
              );
            })}
          </div>
        </div>
      </div>
      <PairDetail
        source={source}
        labels={labels}
        row={selected}
        isFirstDivergence={selected !== null && selected.id === firstDivergence?.row.id}
      />
    </div>
  );
}
