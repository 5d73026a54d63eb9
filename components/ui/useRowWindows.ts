"use client";

import { useQueries } from "@tanstack/react-query";
import { useVirtualizer } from "@tanstack/react-virtual";
import { useRef } from "react";

/** Windows of rows kept in the browser after they scroll away (they load again when scrolled back to). */
const WINDOW_GC_MS = 30_000;

/**
 * A virtualized list of `count` fixed-height rows read from the server a
 * window of `perWindow` rows at a time: the windows the visible rows fall in
 * are queried (under `key` and their cursor), the first screen is sent with
 * the page (`initialWindow`) so it shows before hydration. `rowAt(index)` is
 * the row once its window has loaded; `windowAt(index)` its window's query.
 */
export function useRowWindows<Row>({
  key,
  count,
  perWindow,
  rowHeight,
  listHeight,
  overscan,
  initialOffset = 0,
  initialWindow,
  retry,
  read,
}: {
  /** What the windows are cached under, before their cursor and size (the list, its version and filter). */
  key: readonly unknown[];
  count: number;
  perWindow: number;
  rowHeight: number;
  listHeight: number;
  overscan: number;
  initialOffset?: number;
  /** The rows sent with the page, at their cursor (none: every window is read). */
  initialWindow: { cursor: number; rows: Row[] } | null;
  /** Whether a failed window is asked for again at once (react-query's default: three times). */
  retry?: false;
  /** One window of rows from `cursor`; throws what the list shows when it fails. */
  read: (cursor: number) => Promise<Row[]>;
}) {
  const parentRef = useRef<HTMLDivElement>(null);
  const virtualizer = useVirtualizer({
    count,
    getScrollElement: () => parentRef.current,
    estimateSize: () => rowHeight,
    overscan,
    // The server renders the first screen of rows, so they show before the page hydrates.
    initialRect: { width: 0, height: listHeight },
    initialOffset,
  });
  const items = virtualizer.getVirtualItems();
  const windows = [...new Set(items.map((i) => Math.floor(i.index / perWindow)))];
  const loaded = useQueries({
    queries: windows.map((w) => ({
      queryKey: [...key, w * perWindow, perWindow],
      staleTime: Infinity,
      gcTime: WINDOW_GC_MS,
      ...(retry === false ? { retry } : {}),
      initialData: initialWindow?.cursor === w * perWindow ? initialWindow.rows : undefined,
      queryFn: () => read(w * perWindow),
    })),
  });
  const windowAt = (index: number) => {
    const k = windows.indexOf(Math.floor(index / perWindow));
    return k < 0 ? undefined : loaded[k];
  };
  const failed = loaded.filter((q) => q.error);
  return {
    parentRef,
    virtualizer,
    items,
    rowAt: (index: number): Row | undefined => windowAt(index)?.data?.[index % perWindow],
    windowAt,
    /** The message of the first window that failed, or null. */
    windowError: failed[0]?.error?.message ?? null,
    /** Asks again for the windows that failed. */
    retryFailed: () => Promise.all(failed.map((q) => q.refetch())),
  };
}
