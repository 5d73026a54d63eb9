/**
 * The colour theme: "system" follows the OS, "light" and "dark" are the
 * user's choice. The choice lives in a cookie so the server renders <html>
 * with the right class and the page never flashes the wrong theme (no inline
 * script is needed, so a strict Content-Security-Policy stays possible).
 */
export const THEME_COOKIE = "branchpoint-theme";
export const THEMES = ["system", "light", "dark"] as const;
export type Theme = (typeof THEMES)[number];

export function parseTheme(value: string | undefined | null): Theme {
  return value === "light" || value === "dark" ? value : "system";
}

/** The class on <html> for a theme ("" lets the system preference decide). */
export function themeClass(theme: Theme): string {
  return theme === "system" ? "" : theme;
}
