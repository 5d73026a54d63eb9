import Link from "next/link";
import { Badge, StatusBadge } from "@/components/ui/Badge";
import { DataTable } from "@/components/ui/DataTable";
import type { SessionListItem } from "@/lib/db/session-reads";
import { formatCost, formatDateTime, formatTokens, plural } from "@/lib/format";

/**
 * What a session is called: its title; else the id its source gave it, unless that is an OTLP
 * group key (`trace:<hex>`), which no one recognises; else its agent (an OTLP service) and start.
 */
export function sessionLabel(
  s: Pick<SessionListItem, "title" | "externalId" | "format" | "startedAt"> & { agent: { name: string } },
): string {
  if (s.title) return s.title;
  if (s.externalId && !s.format.startsWith("otlp")) return s.externalId;
  return s.startedAt ? `${s.agent.name} · ${formatDateTime(s.startedAt)}` : s.agent.name;
}

/**
 * A phone shows the first column only, the rest past the frame's edge: status, steps and when it
 * ran go under the title there, and their columns are left out.
 */
const NARROW_HIDDEN = "hidden sm:table-cell";

/** "2025-03-11 14:02 UTC". */
const toMinute = (d: Date) => `${formatDateTime(d).slice(0, 16)} UTC`;

export function SessionTable({ sessions }: { sessions: SessionListItem[] }) {
  return (
    <DataTable
      label="Sessions"
      columns={[
        "Session",
        "Agent",
        // On a phone these two sit under the title instead (see below): the table scrolls sideways, past them.
        { label: "Status", className: NARROW_HIDDEN },
        { label: "Steps", align: "right", className: NARROW_HIDDEN },
        { label: "Tool calls", align: "right" },
        { label: "Errors", align: "right" },
        { label: "Tokens", align: "right" },
        { label: "Cost", align: "right" },
        { label: "Imported (UTC)", nowrap: true },
      ]}
    >
      {sessions.map((s) => (
        <tr key={s.id} className="hover:bg-slate-50" data-testid="session-row">
          <td className="max-w-xs px-3 py-2">
            <Link href={`/sessions/${s.id}`} className="block truncate font-medium text-indigo-700 hover:underline">
              {sessionLabel(s)}
            </Link>
            <div className="truncate text-xs text-slate-500">
              {s.format}
              {s.toolNames.length ? ` · ${s.toolNames.slice(0, 4).join(", ")}` : " · no tool calls"}
              {s.toolNames.length > 4 ? ` +${s.toolNames.length - 4}` : ""}
            </div>
            <div
              className="mt-1 flex flex-wrap items-center gap-x-1 text-xs text-slate-600 sm:hidden"
              data-testid="session-facts"
            >
              <StatusBadge status={s.status} /> {plural(s.eventCount, "step")} ·{" "}
              {s.startedAt ? `ran ${toMinute(s.startedAt)}` : `imported ${toMinute(s.createdAt)}`}
            </div>
          </td>
          <td className="px-3 py-2 whitespace-nowrap">
            {s.agent.name} <Badge>{s.agent.adapter}</Badge>
          </td>
          <td className={`px-3 py-2 ${NARROW_HIDDEN}`}>
            <StatusBadge status={s.status} />
          </td>
          <td className={`px-3 py-2 text-right tabular-nums ${NARROW_HIDDEN}`}>{s.eventCount}</td>
          <td className="px-3 py-2 text-right tabular-nums">{s.toolCallCount}</td>
          <td
            className={`px-3 py-2 text-right tabular-nums ${s.errorCount ? "font-semibold text-rose-700" : "text-slate-500"}`}
          >
            {s.errorCount || "0"}
          </td>
          <td className="px-3 py-2 text-right tabular-nums">{formatTokens(s.inputTokens + s.outputTokens)}</td>
          <td className="px-3 py-2 text-right tabular-nums">{formatCost(s.costUsd)}</td>
          <td className="px-3 py-2 text-xs whitespace-nowrap text-slate-500">
            {formatDateTime(s.createdAt).slice(5, 16)}
          </td>
        </tr>
      ))}
    </DataTable>
  );
}
