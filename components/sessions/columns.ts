/**
 * The session list's columns and the links of its sortable headers: pure, so the table, the
 * column chooser and their tests share them. The session's own column is always shown.
 */
import type { SessionSort, SessionSortKey } from "@/lib/session-list/query";

export const SESSION_COLUMNS = [
  { id: "agent", label: "Agent" },
  { id: "status", label: "Status" },
  { id: "steps", label: "Steps", sort: "steps", align: "right" },
  { id: "toolCalls", label: "Tool calls", align: "right" },
  { id: "errors", label: "Errors", sort: "errorCount", align: "right" },
  { id: "tokens", label: "Tokens", align: "right" },
  { id: "cost", label: "Cost", sort: "costUsd", align: "right" },
  { id: "duration", label: "Duration", sort: "durationMs", align: "right" },
  { id: "started", label: "Started (UTC)", sort: "startedAt" },
  { id: "imported", label: "Imported (UTC)", sort: "createdAt" },
] as const satisfies readonly {
  id: string;
  label: string;
  sort?: SessionSortKey;
  align?: "right";
}[];
export type SessionColumnId = (typeof SESSION_COLUMNS)[number]["id"];
export const SESSION_COLUMN_IDS: SessionColumnId[] = SESSION_COLUMNS.map((c) => c.id);

/** Shown until someone chooses: all but tool calls (the tool names are under the title). */
export const DEFAULT_COLUMNS: SessionColumnId[] = SESSION_COLUMN_IDS.filter((id) => id !== "toolCalls");

/** A stored choice as the columns it names, in the table's order; anything unreadable is the default. */
export function parseColumns(stored: string | null): SessionColumnId[] {
  if (!stored) return DEFAULT_COLUMNS;
  try {
    const value: unknown = JSON.parse(stored);
    if (!Array.isArray(value)) return DEFAULT_COLUMNS;
    return SESSION_COLUMN_IDS.filter((id) => value.includes(id));
  } catch {
    return DEFAULT_COLUMNS;
  }
}

/** How a header reads to a screen reader: the order the rows are in now, by that column. */
export function ariaSort(current: SessionSort, key: SessionSortKey): "ascending" | "descending" | "none" {
  if (current === key) return "ascending";
  if (current === `-${key}`) return "descending";
  return "none";
}

/**
 * The URL a header's link goes to: the same filters, the first page, sorted by its column. A click
 * on the column the rows are sorted by turns the order round; on another, the largest (or latest)
 * first, what one sorts a column of costs or errors for.
 */
export function sortHref(params: URLSearchParams, current: SessionSort, key: SessionSortKey): string {
  const next = new URLSearchParams(params);
  next.delete("cursor");
  const sort: SessionSort = current === `-${key}` ? key : `-${key}`;
  next.set("sort", sort);
  return `/sessions?${next.toString()}`;
}
