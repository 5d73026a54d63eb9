"use client";

import { useSearchParams } from "next/navigation";
import { useState } from "react";

/**
 * One choice (a tab, a mode) kept in the URL's query, so a link or a reload
 * shows the same view. An absent or unknown value reads as `fallback`, and
 * choosing the fallback removes the parameter to keep URLs short. The choice
 * shows at once (local state); the URL is updated with history.replaceState,
 * which Next.js keeps in step with useSearchParams, without a server round trip.
 */
export function useUrlState<const T extends string>(
  key: string,
  values: readonly T[],
  fallback: T,
): [T, (next: T) => void] {
  const params = useSearchParams();
  const fromUrl = values.find((v) => v === params.get(key)) ?? fallback;
  // A choice made here, with the URL's value when it was made: it holds until the URL's value changes
  // (Next.js syncing the replaceState below, back/forward, a link), after which the URL is the truth.
  const [chosen, setChosen] = useState<{ value: T; url: T } | null>(null);
  const value = chosen && chosen.url === fromUrl ? chosen.value : fromUrl;
  const set = (next: T) => {
    setChosen({ value: next, url: fromUrl });
    const updated = new URLSearchParams(window.location.search);
    if (next === fallback) updated.delete(key);
    else updated.set(key, next);
    const query = updated.toString();
    window.history.replaceState(
      window.history.state,
      "",
      `${window.location.pathname}${query ? `?${query}` : ""}${window.location.hash}`,
    );
  };
  return [value, set];
}
