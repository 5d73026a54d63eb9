"use client";

import { useCallback, useSyncExternalStore } from "react";
import { THEME_COOKIE, parseTheme, themeClass, type Theme } from "./theme";

const listeners = new Set<() => void>();
const notify = () => listeners.forEach((l) => l());

function readChoice(): Theme {
  const root = document.documentElement;
  return root.classList.contains("dark") ? "dark" : root.classList.contains("light") ? "light" : "system";
}

function subscribe(listener: () => void) {
  listeners.add(listener);
  const media = window.matchMedia("(prefers-color-scheme: dark)");
  media.addEventListener("change", listener);
  return () => {
    listeners.delete(listener);
    media.removeEventListener("change", listener);
  };
}

/** The user's theme choice, and whether the page is dark now (the choice, or the system's when "system"). */
export function useTheme(): { theme: Theme; dark: boolean; setTheme: (t: Theme) => void } {
  const theme = useSyncExternalStore(subscribe, readChoice, (): Theme => "system");
  const systemDark = useSyncExternalStore(
    subscribe,
    () => window.matchMedia("(prefers-color-scheme: dark)").matches,
    () => false,
  );
  const setTheme = useCallback((next: Theme) => {
    const root = document.documentElement;
    root.classList.remove("light", "dark");
    const cls = themeClass(parseTheme(next));
    if (cls) root.classList.add(cls);
    // A year; the server reads it to render the same class on the next page load.
    document.cookie = `${THEME_COOKIE}=${next}; path=/; max-age=31536000; samesite=lax`;
    notify();
  }, []);
  return { theme, dark: theme === "dark" || (theme === "system" && systemDark), setTheme };
}
