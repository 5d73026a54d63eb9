"use client";

import { useState } from "react";
import { pairChoicesAction } from "@/lib/actions/reports";
import { useRowWindows } from "@/components/ui/useRowWindows";
import { virtualItemStyle } from "@/components/ui/useWindowList";
import type { PairChoice } from "@/lib/reports/pair-choice";
import type { CompareFilter } from "@/lib/session-view/compare-rows";
import { CompareFilterSelect } from "@/components/compare/CompareFilterSelect";
import { Button } from "@/components/ui/Button";
import { DroppedPinsNote, PairChoiceRow, PinnedSummary } from "./PairPickerParts";

const ROW_HEIGHT = 32;
const LIST_HEIGHT = 320;

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
  /** The draft's pins the comparison no longer has (left out when it is saved). */
  dropped: readonly string[];
  /** The pinned pairs by id, kept across filters and windows. */
  pinned: ReadonlyMap<string, PairChoice>;
  onPin: (pair: PairChoice, pin: boolean) => void;
}

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
  dropped,
  pinned,
  onPin,
}: PairPickerProps) {
  const [filter, setFilter] = useState<CompareFilter>(initial.filter);
  const total = counts[filter];
  const {
    parentRef,
    virtualizer,
    items,
    rowAt: pairAt,
    windowAt,
    windowError,
    retryFailed,
  } = useRowWindows<PairChoice>({
    key: ["pair-picker", replayId, version, filter],
    count: total,
    perWindow,
    rowHeight: ROW_HEIGHT,
    listHeight: LIST_HEIGHT,
    overscan: 8,
    initialWindow: initial.filter === filter ? { cursor: 0, rows: initial.choices } : null,
    // A refusal (the replay gone, a bad window) is not helped by asking again at once: Retry asks.
    retry: false,
    // What a row shows of a pair (no preview: the picker shows none).
    read: async (cursor) => {
      const result = await pairChoicesAction({ replayId, filter, cursor, limit: perWindow });
      if (!result.ok) throw new Error(result.error.message);
      return result.data.choices;
    },
  });
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
      {dropped.length > 0 ? <DroppedPinsNote dropped={dropped} /> : null}
      <div className="mb-2 flex flex-wrap items-center gap-1.5 text-sm">
        <CompareFilterSelect
          filter={filter}
          counts={counts}
          onFilter={(next) => {
            setFilter(next);
            virtualizer.scrollToOffset(0);
          }}
          labelClassName="text-slate-600"
        />
      </div>
      {windowError ? (
        <p role="alert" className="mb-2 flex items-center gap-2 text-sm text-rose-700">
          <span>Some pairs could not be loaded: {windowError}</span>
          <Button variant="dangerOutline" size="xs" onClick={() => void retryFailed()}>
            Retry
          </Button>
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
              const w = windowAt(item.index);
              return (
                <li
                  key={`pending-${item.index}`}
                  style={style}
                  aria-busy={!w?.error}
                  className="border-b border-slate-100 px-3 py-1.5 text-xs text-slate-500"
                >
                  {w?.error ? "Not loaded (see above)" : "Loading pairs…"}
                </li>
              );
            }
            return (
              <PairChoiceRow
                key={p.id}
                pair={p}
                style={style}
                position={item.index}
                total={total}
                pinned={isPinned(p)}
                first={p.id === firstDivergence?.id}
                onPin={onPin}
              />
            );
          })}
        </ul>
      </div>
      <PinnedSummary summary={summary} firstDivergenceId={firstDivergence?.id} onPin={onPin} />
    </div>
  );
}
