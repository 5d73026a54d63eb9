"use client";

import { useQueries } from "@tanstack/react-query";
import { useVirtualizer } from "@tanstack/react-virtual";
import { useRef, useState } from "react";
import { comparisonRowsAction } from "@/app/(dashboard)/replays/actions";
import { Badge, type Tone } from "@/components/ui/Badge";
import { virtualItemStyle } from "@/components/ui/useWindowList";
import { pairChoice, type PairChoice } from "@/lib/reports/pair-choice";
import { COMPARE_FILTERS, TYPE_LABEL, type CompareFilter } from "@/lib/session-view/compare-rows";

const PAIR_TONES: Record<PairChoice["type"], Tone> = {
  equal: "neutral",
  changed: "warn",
  inserted: "info",
  removed: "bad",
  unreached: "neutral",
};
const ROW_HEIGHT = 32;
const LIST_HEIGHT = 320;
/** Windows of pairs kept in the browser after they scroll away (they load again when scrolled back to). */
const WINDOW_GC_MS = 30_000;

export interface PairPickerProps {
  replayId: string;
  /** What the comparison is as the page read it (the replay's state): windows are cached under it. */
  version: string;
  /** Pairs each filter shows. */
  counts: Record<CompareFilter, number>;
  /** Pairs per window. */
  window: number;
  firstDivergence: PairChoice | null;
  /** The filter the picker opens on and its first window of pairs (sent with the page). */
  initial: { filter: CompareFilter; choices: PairChoice[] };
  /** The pinned pairs by id, kept across filters and windows. */
  pinned: ReadonlyMap<string, PairChoice>;
  onPin: (pair: PairChoice, pin: boolean) => void;
}

const filterWords = (f: CompareFilter, counts: Record<CompareFilter, number>) =>
  f === "all"
    ? `all (${counts.all})`
    : f === "changes"
      ? `all differences (${counts.changes})`
      : `${TYPE_LABEL[f]} (${counts[f]})`;

/**
 * The comparison's pairs to pin into a report: a virtualized list of the
 * pairs a filter shows, read a window at a time as it scrolls (as the
 * comparison page reads them), and a summary of what is pinned, whichever
 * windows are on screen. The first divergence is always pinned.
 */
export function PairPicker({
  replayId,
  version,
  counts,
  window: perWindow,
  firstDivergence,
  initial,
  pinned,
  onPin,
}: PairPickerProps) {
  const [filter, setFilter] = useState<CompareFilter>(initial.filter);
  const total = counts[filter];
  const parentRef = useRef<HTMLDivElement>(null);
  const virtualizer = useVirtualizer({
    count: total,
    getScrollElement: () => parentRef.current,
    estimateSize: () => ROW_HEIGHT,
    overscan: 8,
    // The server renders the first rows, so they show before the page hydrates.
    initialRect: { width: 0, height: LIST_HEIGHT },
  });
  const items = virtualizer.getVirtualItems();
  const windows = [...new Set(items.map((i) => Math.floor(i.index / perWindow)))];
  const loaded = useQueries({
    queries: windows.map((w) => ({
      queryKey: ["pair-picker", replayId, version, filter, w * perWindow, perWindow],
      staleTime: Infinity,
      // A refusal (the replay gone, a bad window) is not helped by asking again at once: Retry asks.
      retry: false,
      gcTime: WINDOW_GC_MS,
      initialData: initial.filter === filter && w === 0 ? initial.choices : undefined,
      queryFn: async () => {
        const result = await comparisonRowsAction({ replayId, filter, cursor: w * perWindow, limit: perWindow });
        if (!result.ok) throw new Error(result.error.message);
        return result.data.rows.map(pairChoice);
      },
    })),
  });
  const pairAt = (index: number): PairChoice | undefined => {
    const k = windows.indexOf(Math.floor(index / perWindow));
    return k < 0 ? undefined : loaded[k]?.data?.[index % perWindow];
  };
  const failed = loaded.find((q) => q.error);
  const windowError = failed?.error?.message ?? null;
  const isPinned = (p: PairChoice) => p.id === firstDivergence?.id || pinned.has(p.id);
  const summary = [
    ...new Map([...(firstDivergence ? [firstDivergence] : []), ...pinned.values()].map((p) => [p.id, p])).values(),
  ].sort((a, b) => a.index - b.index);

  if (counts.all === 0) {
    return (
      <p
        className="rounded-md border border-dashed border-slate-300 px-3 py-4 text-sm text-slate-500"
        data-testid="pair-picker-empty"
      >
        This replay&apos;s comparison has no pairs: there is no step to pin.
      </p>
    );
  }
  return (
    <div>
      <div className="mb-2 flex flex-wrap items-center gap-2 text-sm">
        <label className="flex items-center gap-1.5">
          <span className="text-slate-500">Show</span>
          <select
            aria-label="Filter pairs to pin"
            value={filter}
            onChange={(e) => {
              setFilter(e.target.value as CompareFilter);
              virtualizer.scrollToOffset(0);
            }}
            className="rounded-md border border-slate-300 bg-white px-2 py-1"
          >
            {COMPARE_FILTERS.map((f) => (
              <option key={f} value={f}>
                {filterWords(f, counts)}
              </option>
            ))}
          </select>
        </label>
      </div>
      {windowError ? (
        <p role="alert" className="mb-2 flex items-center gap-2 text-sm text-rose-700">
          <span>Some pairs could not be loaded: {windowError}</span>
          <button
            type="button"
            onClick={() => void Promise.all(loaded.filter((q) => q.error).map((q) => q.refetch()))}
            className="rounded-md border border-rose-300 px-2 py-0.5 text-xs font-medium hover:bg-rose-50"
          >
            Retry
          </button>
        </p>
      ) : null}
      <div
        ref={parentRef}
        // As tall as its pairs, up to a screenful.
        style={{ height: Math.min(LIST_HEIGHT, Math.max(total, 2) * ROW_HEIGHT + 2) }}
        className="overflow-auto rounded-md border border-slate-200"
        data-testid="pair-picker"
        // The list scrolls: it takes focus, so the keyboard can scroll it.
        tabIndex={0}
        role="group"
        aria-label={`Pairs to pin, ${total} shown`}
      >
        {total === 0 ? <p className="p-3 text-sm text-slate-500">No pairs match this filter; choose “all”.</p> : null}
        <ul style={{ height: virtualizer.getTotalSize(), position: "relative" }}>
          {items.map((item) => {
            const p = pairAt(item.index);
            const style = virtualItemStyle(item.start, ROW_HEIGHT);
            if (!p) {
              const w = loaded[windows.indexOf(Math.floor(item.index / perWindow))];
              return (
                <li
                  key={`pending-${item.index}`}
                  style={style}
                  aria-busy={!w?.error}
                  className="border-b border-slate-100 px-3 py-1.5 text-xs text-slate-400"
                >
                  {w?.error ? "Not loaded (see above)" : "Loading pairs…"}
                </li>
              );
            }
            const first = p.id === firstDivergence?.id;
            return (
              <li
                key={p.id}
                style={style}
                aria-setsize={total}
                aria-posinset={item.index + 1}
                data-testid="pair-choice"
                data-pair-id={p.id}
                className="border-b border-slate-100"
              >
                <label className="flex h-full cursor-pointer items-center gap-2 px-3 text-sm hover:bg-slate-50">
                  <input
                    type="checkbox"
                    checked={isPinned(p)}
                    disabled={first}
                    onChange={(e) => onPin(p, e.target.checked)}
                    aria-label={`Pin pair ${p.index}: ${p.label}`}
                  />
                  <span className="w-12 shrink-0 text-right text-xs text-slate-500 tabular-nums">{p.index}</span>
                  <Badge tone={PAIR_TONES[p.type]}>{TYPE_LABEL[p.type]}</Badge>
                  <span className="truncate font-mono text-xs">{p.label}</span>
                  {first ? (
                    <span className="ml-auto shrink-0">
                      <Badge tone="bad">first divergence</Badge>
                    </span>
                  ) : null}
                </label>
              </li>
            );
          })}
        </ul>
      </div>
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
                {p.id === firstDivergence?.id ? (
                  <span className="text-slate-500">(first divergence, always included)</span>
                ) : (
                  <button
                    type="button"
                    onClick={() => onPin(p, false)}
                    aria-label={`Unpin pair ${p.index}: ${p.label}`}
                    className="rounded px-1 text-slate-500 hover:bg-slate-200 hover:text-slate-900"
                  >
                    ×
                  </button>
                )}
              </li>
            ))}
          </ul>
        ) : null}
      </div>
    </div>
  );
}
