"use client";

import type { ReactNode } from "react";
import { THEMES, type Theme } from "./theme";
import { useTheme } from "./useTheme";

const LABELS: Record<Theme, string> = { system: "System", light: "Light", dark: "Dark" };

/** Small line icons, so that the choice fits beside ten sections at 1280 px (the words show on wider screens). */
const ICONS: Record<Theme, ReactNode> = {
  system: (
    <>
      <rect x="2.5" y="3.5" width="11" height="7.5" rx="1" />
      <path d="M6 13.5h4M8 11v2.5" />
    </>
  ),
  light: (
    <>
      <circle cx="8" cy="8" r="2.75" />
      <path d="M8 1.5v1.75M8 12.75v1.75M1.5 8h1.75M12.75 8h1.75M3.4 3.4l1.25 1.25M11.35 11.35l1.25 1.25M3.4 12.6l1.25-1.25M11.35 4.65l1.25-1.25" />
    </>
  ),
  dark: <path d="M13 10.2A5.5 5.5 0 0 1 5.8 3a5.5 5.5 0 1 0 7.2 7.2Z" />,
};

/**
 * Three-way theme choice: follow the system, or always light, or always dark. `labelled` shows the words at
 * every width (the phone menu has room); otherwise icons only, with the words from 1536 px.
 */
export function ThemeToggle({ labelled = false }: { labelled?: boolean }) {
  const { theme, setTheme } = useTheme();
  return (
    <div role="radiogroup" aria-label="Colour theme" className="flex rounded-md border border-slate-200 p-0.5 text-xs">
      {THEMES.map((t) => (
        <button
          key={t}
          type="button"
          role="radio"
          aria-checked={theme === t}
          aria-label={LABELS[t]}
          title={`${LABELS[t]} theme`}
          onClick={() => setTheme(t)}
          className={`flex items-center gap-1 rounded px-2 py-1 ${theme === t ? "bg-slate-100 font-medium text-slate-900" : "text-slate-600 hover:text-slate-900"}`}
        >
          <svg
            width="14"
            height="14"
            viewBox="0 0 16 16"
            aria-hidden="true"
            fill="none"
            stroke="currentColor"
            strokeWidth="1.4"
            strokeLinecap="round"
            strokeLinejoin="round"
            className={labelled ? "hidden" : "2xl:hidden"}
          >
            {ICONS[t]}
          </svg>
          <span className={labelled ? "" : "hidden 2xl:inline"}>{LABELS[t]}</span>
        </button>
      ))}
    </div>
  );
}
