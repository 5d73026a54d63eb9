"use client";

import { useQuery } from "@tanstack/react-query";
import { useCallback, useEffect, useId, useRef, useState } from "react";
import { comparisonFindAction, comparisonPairAction, comparisonRowsAction } from "@/lib/actions/replays";
import { Badge } from "@/components/ui/Badge";
import { useRowWindows } from "@/components/ui/useRowWindows";
import { virtualItemStyle } from "@/components/ui/useWindowList";
import { JsonBlock } from "@/components/ui/JsonBlock";
import { JsonDiff } from "@/components/ui/monaco";
import {
  COMPARE_FILTERS,
  compareSearch,
  comparableJson,
  TYPE_LABEL,
  type CompareFilter,
  type CompareRow,
} from "@/lib/session-view/compare-rows";
import { Button } from "@/components/ui/Button";
import { INPUT_ONLY_LABEL } from "@/components/counterfactual/labels";
import { PairTypeBadge } from "./PairTypeBadge";
import { Card } from "@/components/ui/Card";

const ROW_HEIGHT = 30;
const LIST_HEIGHT = 560;

/** A row and where it stands among the rows a filter shows (−1: the filter does not show it). */
export type FoundRow = { position: number; row: CompareRow };
/** One window of rows, as the server sends it. */
export type RowsWindow = { filter: CompareFilter; cursor: number; rows: CompareRow[] };

/**
 * Base and branch aligned step by step: a virtualized list of the rows a
 * filter shows, loaded a window at a time from the server (the first with the
 * page), the selected pair's diff, and the state in the URL. The next change
 * (j / k) and the first divergence are found by the server, in any window.
 */
export function CompareView({
  replayId,
  version,
  counts,
  window: rowsPerWindow,
  firstDivergence,
  initial,
}: {
  replayId: string;
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
  const filterId = useId();
  const [selected, setSelected] = useState<CompareRow | null>(initial.selected?.row ?? null);
  const [error, setError] = useState<string | null>(null);
  const total = counts[filter];
  const { parentRef, virtualizer, items, rowAt, windowError } = useRowWindows<CompareRow>({
    key: ["compare-rows", replayId, version, filter],
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
      const result = await comparisonRowsAction({ replayId, filter, cursor, limit: rowsPerWindow });
      if (!result.ok) throw new Error(result.error.message);
      return result.data.rows;
    },
  });

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

  // j / k: the next / previous change among the rows shown, found by the server in whichever window it is
  // (not while typing in a field or the editor).
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
      comparisonFindAction({
        replayId,
        filter,
        ...(selected ? { pair: selected.id } : {}),
        direction: e.key === "j" ? 1 : -1,
      })
        .then((result) => {
          if (!result.ok) setError(result.error.message);
          else if (result.data) select(result.data);
        })
        .catch(() => setError("The next change could not be found; try again."))
        .finally(() => {
          moving.current = false;
        });
    };
    window.addEventListener("keydown", onKey);
    return () => window.removeEventListener("keydown", onKey);
  }, [replayId, filter, selected, select]);

  const changeFilter = (next: CompareFilter) => {
    setFilter(next);
    virtualizer.scrollToOffset(0);
  };

  return (
    <div className="grid gap-4 xl:grid-cols-[minmax(0,1fr)_minmax(0,1fr)]">
      <div className="min-w-0">
        <div className="mb-2 flex flex-wrap items-center gap-2 text-sm">
          {firstDivergence ? (
            <Button
              onClick={() =>
                filter === "changes"
                  ? select({ position: 0, row: firstDivergence.row })
                  : select(firstDivergence, "all")
              }
            >
              Jump to first divergence
            </Button>
          ) : null}
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
            <label htmlFor={filterId} className="text-slate-500">
              Show
            </label>
            <select
              id={filterId}
              value={filter}
              onChange={(e) => changeFilter(e.target.value as CompareFilter)}
              className="rounded-md border border-slate-300 bg-white px-2 py-1"
            >
              {COMPARE_FILTERS.map((f) => (
                <option key={f} value={f}>
                  {f === "all"
                    ? `all (${counts.all})`
                    : f === "changes"
                      ? `all differences (${counts.changes})`
                      : `${TYPE_LABEL[f]} (${counts[f]})`}
                </option>
              ))}
            </select>
          </span>
        </div>
        {error || windowError ? (
          <p role="alert" className="mb-2 text-sm text-rose-700">
            {error ?? windowError}
          </p>
        ) : null}
        <div className="grid grid-cols-[3.5rem_3.5rem_5.5rem_minmax(0,1fr)] border-b border-slate-200 bg-slate-50 px-2 py-1 text-xs text-slate-500">
          <span>base</span>
          <span>branch</span>
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
              const active = row.id === selected?.id;
              return (
                <div
                  key={row.id}
                  role="option"
                  aria-selected={active}
                  data-testid="compare-row"
                  data-pair-type={row.type}
                  data-pair-id={row.id}
                  onClick={() => select({ position: item.index, row })}
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
                    {row.source && row.source !== "recorded" ? (
                      <span className="ml-1 text-indigo-700">[{row.source}]</span>
                    ) : null}
                    {row.inputOnly ? (
                      <span className="ml-1 text-slate-600" data-testid="input-only">
                        [{INPUT_ONLY_LABEL}]
                      </span>
                    ) : null}
                    <span className="ml-2 text-slate-600">{row.preview}</span>
                  </span>
                </div>
              );
            })}
          </div>
        </div>
      </div>
      <PairDetail
        replayId={replayId}
        row={selected}
        isFirstDivergence={selected !== null && selected.id === firstDivergence?.row.id}
      />
    </div>
  );
}

function PairDetail({
  replayId,
  row,
  isFirstDivergence,
}: {
  replayId: string;
  row: CompareRow | null;
  isFirstDivergence: boolean;
}) {
  const { data, error, isPending } = useQuery({
    queryKey: ["pair", replayId, row?.id],
    enabled: row !== null,
    queryFn: async () => {
      const result = await comparisonPairAction({ replayId, pairId: row!.id });
      if (!result.ok) throw new Error(result.error.message);
      return result.data;
    },
    staleTime: Infinity,
  });
  if (!row) {
    return (
      <div className="flex min-h-40 items-center justify-center rounded-lg border border-dashed border-slate-300 bg-white p-6 text-sm text-slate-500">
        Select a pair to see both sides; changed pairs open as a diff.
      </div>
    );
  }
  return (
    <Card
      className="min-w-0"

      aria-label="Selected pair"
      data-testid="pair-detail"
    >
      <h3 className="mb-2 flex flex-wrap items-center gap-2 text-sm font-semibold text-slate-900">
        <PairTypeBadge type={row.type} />
        <span className="font-mono">
          {row.kind} {row.name}
        </span>
        <span className="font-normal text-slate-500">
          base {row.baseSeq ?? "—"} · branch {row.branchSeq ?? "—"}
        </span>
        {isFirstDivergence ? <Badge tone="bad">first divergence</Badge> : null}
      </h3>
      {error ? (
        <p role="alert" className="text-sm text-rose-700">
          {error.message}
        </p>
      ) : null}
      {isPending || !data ? (
        <p className="text-sm text-slate-500">Loading…</p>
      ) : row.type === "changed" ? (
        <>
          {data.changedPaths.length > 0 ? (
            // Wraps: the paths are one unbroken run of chips otherwise, and ran past the panel's edge.
            <div className="mb-2 flex flex-wrap items-baseline gap-1 text-xs" data-testid="changed-paths">
              <span className="text-slate-500">Changed:</span>
              {data.changedPaths.map((p) => (
                <code key={p} className="rounded bg-amber-100 px-1 py-0.5 break-all text-amber-900">
                  {p}
                </code>
              ))}
            </div>
          ) : null}
          {/* Unchanged stretches are folded and the view opens at the first difference. */}
          <JsonDiff
            key={row.id}
            original={comparableJson(data.base)}
            modified={comparableJson(data.branch)}
            height={460}
            focusChanges
          />
        </>
      ) : row.type === "equal" ? (
        <JsonBlock label="Both sides (equal)" value={JSON.parse(comparableJson(data.branch)) as unknown} />
      ) : row.type === "unreached" ? (
        <JsonBlock
          label="Base step the branch never reached (it ended first); counted in no metric"
          value={JSON.parse(comparableJson(data.base)) as unknown}
        />
      ) : (
        <JsonBlock
          label={row.type === "inserted" ? "Only in the branch" : "Only in the base run"}
          value={JSON.parse(comparableJson(data.branch ?? data.base)) as unknown}
        />
      )}
    </Card>
  );
}
