"use client";

import { useEffect, type RefObject } from "react";

/** The name the global stylesheet paints (`::highlight(session-search)`). */
export const SEARCH_HIGHLIGHT = "session-search";

/** Where `query` occurs in `text`, case-insensitively: [start, end) offsets (pure; unit-tested). */
export function matchOffsets(text: string, query: string): [number, number][] {
  const needle = query.trim().toLowerCase();
  if (needle === "") return [];
  const hay = text.toLowerCase();
  const out: [number, number][] = [];
  for (let at = hay.indexOf(needle); at >= 0; at = hay.indexOf(needle, at + needle.length)) {
    out.push([at, at + needle.length]);
  }
  return out;
}

/**
 * Paints every occurrence of the search in the results with the CSS Custom Highlight API: the text is
 * not re-rendered or wrapped, so the entries keep their own markup, and what opens later (a step's
 * body, a folded message) is painted as it appears. The first match is scrolled into view once.
 */
export function useSearchHighlight(container: RefObject<HTMLElement | null>, query: string) {
  useEffect(() => {
    const root = container.current;
    const registry = typeof CSS !== "undefined" && "highlights" in CSS ? CSS.highlights : null;
    if (!root || !registry || typeof Highlight === "undefined") return;
    let scrolled = false;
    const paint = () => {
      const ranges: Range[] = [];
      const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
      for (let node = walker.nextNode(); node; node = walker.nextNode()) {
        for (const [start, end] of matchOffsets(node.nodeValue ?? "", query)) {
          const range = document.createRange();
          range.setStart(node, start);
          range.setEnd(node, end);
          ranges.push(range);
        }
      }
      registry.set(SEARCH_HIGHLIGHT, new Highlight(...ranges));
      root.dataset.highlighted = String(ranges.length);
      const first = ranges[0];
      if (!scrolled && first) {
        scrolled = true;
        first.startContainer.parentElement?.scrollIntoView({ block: "nearest" });
      }
    };
    paint();
    const observer = new MutationObserver(paint);
    observer.observe(root, { childList: true, subtree: true, characterData: true });
    return () => {
      observer.disconnect();
      registry.delete(SEARCH_HIGHLIGHT);
    };
  }, [container, query]);
}
