"use client";

import { THEMES, type Theme } from "./theme";
import { useTheme } from "./useTheme";

const LABELS: Record<Theme, string> = { system: "System", light: "Light", dark: "Dark" };

/** Three-way theme choice: follow the system, or always light, or always dark. */
export function ThemeToggle() {
  const { theme, setTheme } = useTheme();
  return (
    <div role="radiogroup" aria-label="Colour theme" className="flex rounded-md border border-slate-200 p-0.5 text-xs">
      {THEMES.map((t) => (
        <button
          key={t}
          type="button"
          role="radio"
          aria-checked={theme === t}
          title={`${LABELS[t]} theme`}
          onClick={() => setTheme(t)}
          className={`rounded px-2 py-1 ${theme === t ? "bg-slate-100 font-medium text-slate-900" : "text-slate-600 hover:text-slate-900"}`}
        >
          {LABELS[t]}
        </button>
      ))}
    </div>
  );
}
