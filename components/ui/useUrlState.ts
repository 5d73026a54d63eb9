"use client";

import { usePathname, useRouter, useSearchParams } from "next/navigation";
import { useCallback } from "react";

/**
 * One choice (a tab, a mode) kept in the URL's query, so a link or a reload
 * shows the same view. An absent or unknown value reads as `fallback`, and
 * choosing the fallback removes the parameter to keep URLs short. Replaces the
 * history entry and keeps the scroll position.
 */
export function useUrlState<const T extends string>(
  key: string,
  values: readonly T[],
  fallback: T,
): [T, (next: T) => void] {
  const params = useSearchParams();
  const pathname = usePathname();
  const router = useRouter();
  const raw = params.get(key);
  const value = values.find((v) => v === raw) ?? fallback;
  const set = useCallback(
    (next: T) => {
      const updated = new URLSearchParams(window.location.search);
      if (next === fallback) updated.delete(key);
      else updated.set(key, next);
      const query = updated.toString();
      router.replace(`${pathname}${query ? `?${query}` : ""}${window.location.hash}`, { scroll: false });
    },
    [key, fallback, pathname, router],
  );
  return [value, set];
}
