"use client";

import { useQuery } from "@tanstack/react-query";
import { useVirtualizer } from "@tanstack/react-virtual";
import { useCallback, useEffect, useMemo, useRef, useState } from "react";
import { comparisonPairAction } from "@/app/(dashboard)/replays/actions";
import { Badge, type Tone } from "@/components/ui/Badge";
import { JsonBlock } from "@/components/ui/JsonBlock";
import { JsonDiff } from "@/components/ui/monaco";
import {
  COMPARE_FILTERS,
  compareSearch,
  comparableJson,
  filterRows,
  nextChange,
  TYPE_LABEL,
  unpackRows,
  type CompareFilter,
  type CompareRow,
  type CompareState,
  type PackedRows,
} from "./rows";
import { Button } from "@/components/ui/Button";
import { INPUT_ONLY_LABEL } from "@/components/counterfactual/labels";

const TYPE_TONE: Record<CompareRow["type"], Tone> = {
  equal: "neutral",
  changed: "warn",
  inserted: "good",
  removed: "bad",
  unreached: "neutral",
};
const ROW_HEIGHT = 30;
const LIST_HEIGHT = 560;

/** Base and branch aligned step by step: a virtualized list, filters and the selected pair's diff, with the state in the URL. */
export function CompareView({
  replayId,
  packed,
  firstDivergenceId,
  initial,
}: {
  replayId: string;
  packed: PackedRows;
  firstDivergenceId: string | null;
  initial: CompareState;
}) {
  const rows = useMemo(() => unpackRows(packed), [packed]);
  const [state, setState] = useState<CompareState>(initial);
  const visible = useMemo(() => filterRows(rows, state.filter), [rows, state.filter]);
  const parentRef = useRef<HTMLDivElement>(null);
  const virtualizer = useVirtualizer({
    count: visible.length,
    getScrollElement: () => parentRef.current,
    estimateSize: () => ROW_HEIGHT,
    overscan: 12,
    // The server renders the first screen of rows, so they show before the page hydrates.
    initialRect: { width: 0, height: LIST_HEIGHT },
  });

  useEffect(() => {
    const search = compareSearch(state);
    if (window.location.search !== search)
      window.history.replaceState(window.history.state, "", `${window.location.pathname}${search}`);
  }, [state]);

  const select = useCallback(
    (id: string | null, filter: CompareFilter = state.filter) => {
      setState({ pair: id, filter });
      if (id === null) return;
      const list = filterRows(rows, filter);
      const index = list.findIndex((r) => r.id === id);
      if (index >= 0) requestAnimationFrame(() => virtualizer.scrollToIndex(index, { align: "center" }));
    },
    [rows, state.filter, virtualizer],
  );

  // j / k: the next / previous change among the rows shown (not while typing in a field or the editor).
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if (e.key !== "j" && e.key !== "k") return;
      if (e.altKey || e.ctrlKey || e.metaKey || e.defaultPrevented) return;
      const target = e.target as HTMLElement | null;
      if (target?.closest("input, textarea, select, [contenteditable=true], .monaco-editor")) return;
      const id = nextChange(visible, state.pair, e.key === "j" ? 1 : -1);
      if (id === null) return;
      e.preventDefault();
      select(id);
    };
    window.addEventListener("keydown", onKey);
    return () => window.removeEventListener("keydown", onKey);
  }, [visible, state.pair, select]);

  // On load, bring the selected pair into view.
  const scrolled = useRef(false);
  useEffect(() => {
    if (scrolled.current || !initial.pair) return;
    scrolled.current = true;
    const index = visible.findIndex((r) => r.id === initial.pair);
    if (index >= 0) virtualizer.scrollToIndex(index, { align: "center" });
  }, [initial.pair, visible, virtualizer]);

  const selected = state.pair ? (rows.find((r) => r.id === state.pair) ?? null) : null;
  const counts = useMemo(() => {
    const c = { equal: 0, changed: 0, inserted: 0, removed: 0, unreached: 0 };
    for (const r of rows) c[r.type]++;
    return c;
  }, [rows]);

  return (
    <div className="grid gap-4 xl:grid-cols-[minmax(0,1fr)_minmax(0,1fr)]">
      <div className="min-w-0">
        <div className="mb-2 flex flex-wrap items-center gap-2 text-sm">
          {firstDivergenceId ? (
            <Button
              onClick={() =>
                select(firstDivergenceId, state.filter === "all" || state.filter === "changes" ? state.filter : "all")
              }
            >
              Jump to first divergence
            </Button>
          ) : null}
          {firstDivergenceId ? (
            <span className="text-xs text-slate-500">
              <kbd className="rounded border border-slate-300 px-1 font-mono">j</kbd> /{" "}
              <kbd className="rounded border border-slate-300 px-1 font-mono">k</kbd> next / previous change
            </span>
          ) : (
            <Badge tone="good">
              {counts.unreached > 0 ? "no divergence up to where the branch ended" : "no divergence: every step equal"}
            </Badge>
          )}
          <label className="ml-auto flex items-center gap-1.5">
            <span className="text-slate-500">Show</span>
            <select
              aria-label="Filter pairs"
              value={state.filter}
              onChange={(e) => setState({ ...state, filter: e.target.value as CompareFilter })}
              className="rounded-md border border-slate-300 bg-white px-2 py-1"
            >
              {COMPARE_FILTERS.map((f) => (
                <option key={f} value={f}>
                  {f === "all"
                    ? `all (${rows.length})`
                    : f === "changes"
                      ? `all differences (${counts.changed + counts.inserted + counts.removed})`
                      : `${TYPE_LABEL[f]} (${counts[f]})`}
                </option>
              ))}
            </select>
          </label>
        </div>
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
          role="listbox"
          aria-label="Aligned steps"
        >
          {visible.length === 0 ? (
            <p className="p-4 text-sm text-slate-500">No pairs match this filter; choose “all”.</p>
          ) : null}
          <div style={{ height: virtualizer.getTotalSize(), position: "relative" }}>
            {virtualizer.getVirtualItems().map((item) => {
              const row = visible[item.index]!;
              const active = row.id === state.pair;
              return (
                <div
                  key={row.id}
                  role="option"
                  aria-selected={active}
                  data-testid="compare-row"
                  data-pair-type={row.type}
                  data-pair-id={row.id}
                  onClick={() => select(row.id)}
                  style={{
                    position: "absolute",
                    top: 0,
                    left: 0,
                    right: 0,
                    height: ROW_HEIGHT,
                    transform: `translateY(${item.start}px)`,
                  }}
                  className={`grid cursor-pointer grid-cols-[3.5rem_3.5rem_5.5rem_minmax(0,1fr)] items-center border-b border-slate-100 px-2 text-xs ${active ? "bg-indigo-50 ring-1 ring-indigo-300 ring-inset" : row.type === "equal" ? "hover:bg-slate-50" : "bg-amber-50/40 hover:bg-amber-50"}`}
                >
                  <span className="font-mono text-slate-500">{row.baseSeq ?? "—"}</span>
                  <span className="font-mono text-slate-500">{row.branchSeq ?? "—"}</span>
                  <span>
                    {row.inputOnly ? (
                      <Badge tone="neutral" title={INPUT_ONLY_LABEL}>
                        input only
                      </Badge>
                    ) : (
                      <Badge tone={TYPE_TONE[row.type]}>{TYPE_LABEL[row.type]}</Badge>
                    )}
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
                    <span className="ml-2 text-slate-500">{row.preview}</span>
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
        isFirstDivergence={selected !== null && selected.id === firstDivergenceId}
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
    <section
      className="min-w-0 rounded-lg border border-slate-200 bg-white p-4"
      aria-label="Selected pair"
      data-testid="pair-detail"
    >
      <h3 className="mb-2 flex flex-wrap items-center gap-2 text-sm font-semibold text-slate-900">
        <Badge tone={TYPE_TONE[row.type]}>{TYPE_LABEL[row.type]}</Badge>
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
            <div className="mb-2 text-xs" data-testid="changed-paths">
              <span className="text-slate-500">Changed: </span>
              {data.changedPaths.map((p) => (
                <code key={p} className="mr-1 rounded bg-amber-100 px-1 py-0.5 text-amber-900">
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
    </section>
  );
}
