/**
 * Chart colours, as the theme's palette variables: the dark theme swaps the palette (app/globals.css), so a
 * chart drawn with these reads in both themes without a colour of its own per theme.
 */
export const CHART_COLORS = {
  base: "var(--color-slate-400)",
  branch: "var(--color-indigo-500)",
  good: "var(--color-emerald-500)",
  bad: "var(--color-rose-500)",
  warn: "var(--color-amber-500)",
  marked: "var(--color-amber-500)",
  threshold: "var(--color-rose-600)",
  grid: "var(--color-slate-200)",
  axis: "var(--color-slate-300)",
  cursor: "var(--color-slate-100)",
  text: "var(--color-slate-600)",
  strong: "var(--color-slate-900)",
  surface: "var(--color-white)",
} as const;
export type ChartColor = keyof typeof CHART_COLORS;
