/** Pure helpers for the keyboard shortcuts (unit-tested; no DOM globals at import time). */
import { NAV_LINKS } from "./navLinks";

/** True when a key press belongs to what the user is typing, not to a shortcut. */
export function isTypingTarget(target: EventTarget | null): boolean {
  if (!target || typeof (target as Partial<HTMLElement>).tagName !== "string") return false;
  const el = target as HTMLElement;
  const tag = el.tagName;
  if (tag === "TEXTAREA" || tag === "SELECT") return true;
  if (tag === "INPUT") {
    const type = (el as HTMLInputElement).type;
    return !["checkbox", "radio", "button", "submit", "reset", "range", "color", "file"].includes(type);
  }
  return el.isContentEditable || el.closest?.("[contenteditable=''], [contenteditable='true'], .monaco-editor") != null;
}

/** The next index when moving through `count` items with j (+1) or k (−1); starts at the first or the last item. */
export function stepIndex(current: number, count: number, delta: 1 | -1): number {
  if (count === 0) return -1;
  if (current < 0 || current >= count) return delta === 1 ? 0 : count - 1;
  return Math.min(count - 1, Math.max(0, current + delta));
}

/** "g" then a section's key, one line per section, read from the navigation itself. */
function goShortcuts(): { keys: string[]; does: string }[] {
  return NAV_LINKS.map((l) => ({
    keys: ["g", l.key],
    does: `Go to ${l.label}${l.also ? ` (g ${l.also.join(", g ")} also works)` : ""}`,
  }));
}

/** The shortcuts, as the "?" overlay lists them. */
export const SHORTCUTS: { keys: string[]; does: string }[] = [
  { keys: ["Ctrl K", "⌘ K"], does: "Open the command palette: go to a session, policy, replay… by name" },
  { keys: ["/"], does: "Focus the search or filter box of this page" },
  { keys: ["j", "k"], does: "Next / previous row of a list; Enter opens it" },
  ...goShortcuts(),
  { keys: ["?"], does: "Show this list" },
  { keys: ["Esc"], does: "Close a dialog" },
];
