"use client";

import { useVirtualizer } from "@tanstack/react-virtual";
import { useEffect, useRef } from "react";

/**
 * A long list shown a window of steps at a time: one virtual item per window
 * (`windowHeight` its estimated height), opened at `startWindow`, and, once
 * that window is measured, scrolled to the element `step-<focusSeq>` (a deep
 * link's step). The first screen renders on the server, before hydration.
 */
export function useWindowList({
  windows,
  windowHeight,
  startWindow,
  focusSeq,
}: {
  windows: number;
  windowHeight: number;
  startWindow: number;
  focusSeq: number | null;
}) {
  const parentRef = useRef<HTMLDivElement>(null);
  const virtualizer = useVirtualizer({
    count: windows,
    getScrollElement: () => parentRef.current,
    estimateSize: () => windowHeight,
    overscan: 1,
    initialRect: { width: 0, height: 800 },
    initialOffset: startWindow * windowHeight,
  });
  useEffect(() => {
    if (focusSeq === null) return;
    const t = setTimeout(() => document.getElementById(`step-${focusSeq}`)?.scrollIntoView({ block: "start" }), 300);
    return () => clearTimeout(t);
  }, [focusSeq]);
  return { parentRef, virtualizer };
}

/** Where a virtualized list places an item: across the list, `start` pixels down (of `height`, when fixed). */
export function virtualItemStyle(start: number, height?: number) {
  return { position: "absolute", top: 0, left: 0, right: 0, height, transform: `translateY(${start}px)` } as const;
}
