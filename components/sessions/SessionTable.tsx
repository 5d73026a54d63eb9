"use client";

import Link from "next/link";
import { useState } from "react";
import type { DatasetOption } from "@/components/datasets/DatasetForms";
import { SaveFilterButton } from "@/components/datasets/SaveFilterButton";
import { SelectionBar } from "@/components/datasets/SelectionBar";
import { Badge, StatusBadge } from "@/components/ui/Badge";
import { DataTable, type Column } from "@/components/ui/DataTable";
import type { SessionListItem } from "@/lib/db/session-reads";
import { formatDateTime, formatDuration, formatTokens, plural } from "@/lib/format";
import { CostValue, costText } from "./CostValue";
import { MAX_EXPORT_SESSIONS, type SessionSort } from "@/lib/session-list/query";
import { ColumnChooser } from "./ColumnChooser";
import { SESSION_COLUMNS, ariaSort, sortHref, type SessionColumnId } from "./columns";
import { sessionLabel, sourceId } from "@/lib/session-list/labels";
import { useSessionColumns } from "./useSessionColumns";
import { OutcomeBadge } from "./OutcomeBadge";

/**
 * A phone shows the session's column only: its status, steps, when it ran and its figures go under
 * the title there, and the other columns are left out, so nothing sits past the screen's edge.
 */
const NARROW_HIDDEN = "hidden sm:table-cell";

/** "2025-03-11 14:02 UTC". */
const toMinute = (d: Date) => `${formatDateTime(d).slice(0, 16)} UTC`;

/** A date over its time, so the column is as narrow as a date. */
function When({ at }: { at: Date | null }) {
  if (!at) return <span>—</span>;
  const text = formatDateTime(at);
  return (
    <time dateTime={at.toISOString()} className="block leading-tight">
      {text.slice(0, 10)}
      <span className="block">{text.slice(11, 16)}</span>
    </time>
  );
}

/** The figures a phone shows under the title: those the session has. */
function phoneFigures(s: SessionListItem): string {
  const tokens = s.inputTokens + s.outputTokens;
  return [
    s.agent.name,
    plural(s.errorCount, "error"),
    tokens ? `${formatTokens(tokens)} tokens` : null,
    costText(s.costUsd, s.costSource),
    s.durationMs === null ? null : formatDuration(s.durationMs),
  ]
    .filter(Boolean)
    .join(" · ");
}

type Cell = (s: SessionListItem) => React.ReactNode;
const CELLS: Record<SessionColumnId, Cell> = {
  agent: (s) => (
    <span className="block break-words">
      {s.agent.name} <Badge>{s.agent.adapter}</Badge>
    </span>
  ),
  status: (s) => (
    <span className="inline-flex flex-wrap gap-1">
      <StatusBadge status={s.status} /> <OutcomeBadge outcome={s.outcome} reason={s.outcomeReason} />
    </span>
  ),
  steps: (s) => s.eventCount,
  toolCalls: (s) => s.toolCallCount,
  errors: (s) => (
    <span className={s.errorCount ? "font-semibold text-rose-700" : "text-slate-500"}>{s.errorCount}</span>
  ),
  tokens: (s) => formatTokens(s.inputTokens + s.outputTokens),
  cost: (s) => <CostValue usd={s.costUsd} source={s.costSource} />,
  duration: (s) => formatDuration(s.durationMs),
  started: (s) => <When at={s.startedAt} />,
  imported: (s) => <When at={s.createdAt} />,
};

export function SessionTable({
  sessions,
  sort,
  query,
  matching,
  datasets = null,
  filter = null,
  maxDatasetSessions = 0,
}: {
  sessions: SessionListItem[];
  sort: SessionSort;
  /** The page's filters as a query string (no cursor): what a header's link keeps. */
  query: string;
  /** How many sessions the filters match (on every page): what an export of them holds, up to its limit. */
  matching: number;
  /** The datasets chosen sessions may be added to; null: the reader may not make or change datasets (no selection). */
  datasets?: readonly DatasetOption[] | null;
  /** The filters alone, when any is set and the reader may save them as a dataset. */
  filter?: Record<string, string> | null;
  maxDatasetSessions?: number;
}) {
  const [shown, choose] = useSessionColumns();
  const [selected, setSelected] = useState<string[]>([]);
  const selectable = datasets !== null;
  const pageIds = sessions.map((s) => s.id);
  const allChosen = pageIds.length > 0 && pageIds.every((id) => selected.includes(id));
  const someChosen = !allChosen && pageIds.some((id) => selected.includes(id));
  const toggle = (id: string) => setSelected((now) => (now.includes(id) ? now.filter((x) => x !== id) : [...now, id]));
  const toggleAll = () => setSelected(allChosen ? [] : pageIds);
  const columns = SESSION_COLUMNS.filter((c) => shown.includes(c.id));
  const params = new URLSearchParams(query);
  const header: Column[] = [
    selectable
      ? {
          label: "Session",
          content: (
            <span className="inline-flex items-center gap-2">
              <input
                type="checkbox"
                aria-label="Select all sessions on this page"
                checked={allChosen}
                ref={(el) => {
                  if (el) el.indeterminate = someChosen;
                }}
                onChange={toggleAll}
                className="size-4 accent-indigo-600"
              />
              Session
            </span>
          ),
        }
      : "Session",
    ...columns.map((c): Column => {
      const base = { label: c.label, className: NARROW_HIDDEN, ...("align" in c ? { align: c.align } : {}) };
      if (!("sort" in c)) return base;
      const state = ariaSort(sort, c.sort);
      const arrow = state === "ascending" ? "↑" : state === "descending" ? "↓" : "";
      return {
        ...base,
        ariaSort: state,
        content: (
          <Link
            href={sortHref(params, sort, c.sort)}
            className="inline-flex items-center gap-0.5 uppercase hover:text-slate-900 hover:underline"
          >
            {c.label}
            <span aria-hidden="true" className="inline-block w-2">
              {arrow}
            </span>
          </Link>
        ),
      };
    }),
  ];
  return (
    <>
      <div className="mb-2 flex flex-wrap items-center justify-end gap-x-4 gap-y-2">
        <a
          href={`/api/sessions/export${query ? `?${query}` : ""}`}
          download
          className="text-sm text-indigo-700 hover:underline"
          data-testid="export-sessions"
        >
          Export {plural(Math.min(matching, MAX_EXPORT_SESSIONS), "session")} (JSON Lines)
        </a>
        {filter ? <SaveFilterButton filter={filter} matching={matching} max={maxDatasetSessions} /> : null}
        <ColumnChooser shown={shown} onChange={choose} />
      </div>
      <DataTable label="Sessions" columns={header}>
        {sessions.map((s) => (
          <tr
            key={s.id}
            className={`align-top hover:bg-slate-50 ${selected.includes(s.id) ? "shadow-[inset_3px_0_0_0_#6366f1]" : ""}`}
            data-testid="session-row"
          >
            <td className={`min-w-48 px-3 py-2 ${selectable ? "relative pl-9" : ""}`}>
              {selectable ? (
                <input
                  type="checkbox"
                  aria-label={`Select ${sessionLabel(s)}`}
                  checked={selected.includes(s.id)}
                  onChange={() => toggle(s.id)}
                  className="absolute top-2.5 left-3 size-4 accent-indigo-600"
                  data-testid="session-select"
                />
              ) : null}
              <Link
                href={`/sessions/${s.id}`}
                className="line-clamp-2 font-medium break-words text-indigo-700 hover:underline"
              >
                {sessionLabel(s)}
              </Link>
              <div className="text-xs break-words text-slate-500" data-testid="session-source">
                {[sourceId(s), s.format].filter(Boolean).join(" · ")}
                {s.toolNames.length ? ` · ${s.toolNames.slice(0, 4).join(", ")}` : " · no tool calls"}
                {s.toolNames.length > 4 ? ` +${s.toolNames.length - 4}` : ""}
              </div>
              <div
                className="mt-1 flex flex-wrap items-center gap-x-1 text-xs text-slate-600 sm:hidden"
                data-testid="session-facts"
              >
                <StatusBadge status={s.status} /> <OutcomeBadge outcome={s.outcome} reason={s.outcomeReason} />{" "}
                {plural(s.eventCount, "step")} ·{" "}
                {s.startedAt ? `ran ${toMinute(s.startedAt)}` : `imported ${toMinute(s.createdAt)}`}
              </div>
              <div className="text-xs text-slate-600 sm:hidden" data-testid="session-figures">
                {phoneFigures(s)}
              </div>
            </td>
            {columns.map((c) => (
              <td
                key={c.id}
                className={`px-3 py-2 ${NARROW_HIDDEN} ${"align" in c ? "text-right tabular-nums" : ""} ${c.id === "started" || c.id === "imported" ? "text-xs whitespace-nowrap text-slate-500" : ""}`}
              >
                {CELLS[c.id](s)}
              </td>
            ))}
          </tr>
        ))}
      </DataTable>
      {selectable ? <SelectionBar selected={selected} datasets={datasets} onClear={() => setSelected([])} /> : null}
    </>
  );
}
