import { Badge } from "@/components/ui/Badge";
import { DataTable, numberColumn } from "@/components/ui/DataTable";
import { EmptyState } from "@/components/ui/EmptyState";
import { Notice } from "@/components/ui/Notice";
import { ProgressBar } from "@/components/ui/ProgressBar";
import type { OnlineCheck } from "@/lib/server/checks/online";
import { AttachmentActions } from "./AttachmentActions";

const usd = (n: number) => `$${n.toFixed(4).replace(/0+$/, "").replace(/\.$/, "")}`;

const BACKFILL_WORDS: Record<string, string> = {
  none: "not run",
  queued: "queued",
  running: "running",
  completed: "done",
  failed: "failed",
};

/** The agents a check is attached to: verdict counts, the backfill's progress, and an LLM judge's budget today. */
export function OnlineCheckAttachments({ data, canWrite }: { data: OnlineCheck; canWrite: boolean }) {
  if (data.attachments.length === 0)
    return (
      <EmptyState title="Not attached to any agent">
        Attach it to an agent and every session of that agent imported from then on is judged by it, with the verdicts
        counted here and on the Regressions page.
      </EmptyState>
    );
  const over = data.attachments.filter((a) => a.today && (a.today.overBudget || a.today.notJudgedOverBudget > 0));
  return (
    <div className="flex flex-col gap-4">
      {over.map((a) => (
        <Notice key={a.id} tone="warning" title={`Over budget today for ${a.agentName}`} testId="over-budget-notice">
          {a.today!.notJudgedOverBudget > 0
            ? `${a.today!.notJudgedOverBudget} session${a.today!.notJudgedOverBudget === 1 ? " was" : "s were"} not judged today: `
            : ""}
          this check spent {usd(a.today!.spentUsd)} of its {usd(a.dailyBudgetUsd ?? 0)} a day ({a.today!.judgeCalls}{" "}
          judge call{a.today!.judgeCalls === 1 ? "" : "s"} at {usd(a.judgeCallUsd ?? 0)}). Sessions past the budget are
          recorded as not judged; a backfill tomorrow judges them, or raise the budget by attaching again.
        </Notice>
      ))}
      <DataTable
        label="Agents this check is attached to"
        columns={[
          "Agent",
          "Versions",
          numberColumn("Passed"),
          numberColumn("Failed"),
          numberColumn("Could not check"),
          numberColumn("Not judged (budget)"),
          "Older sessions",
          ...(data.kind === "llm_judge" ? ["Spent today"] : []),
          ...(canWrite ? [""] : []),
        ]}
      >
        {data.attachments.map((a) => {
          const b = a.backfill;
          const running = b.status === "queued" || b.status === "running";
          return (
            <tr key={a.id} data-testid="check-attachment">
              <td className="px-3 py-2 font-medium text-slate-900">{a.agentName}</td>
              <td className="px-3 py-2 font-mono text-xs">{a.fromVersion ? `${a.fromVersion} and later` : "all"}</td>
              <td className="px-3 py-2 text-right tabular-nums">{a.verdicts.pass}</td>
              <td className="px-3 py-2 text-right tabular-nums">{a.verdicts.fail}</td>
              <td className="px-3 py-2 text-right tabular-nums">{a.verdicts.check_error}</td>
              <td className="px-3 py-2 text-right tabular-nums">{a.verdicts.over_budget}</td>
              <td className="px-3 py-2 text-xs text-slate-700" data-testid="backfill-progress">
                <Badge
                  tone={
                    b.status === "failed" ? "bad" : b.status === "completed" ? "good" : running ? "info" : "neutral"
                  }
                >
                  {BACKFILL_WORDS[b.status] ?? b.status}
                </Badge>{" "}
                {b.status === "none" ? null : (
                  <span className="tabular-nums">
                    {b.done} of {b.total}
                  </span>
                )}
                {running ? <ProgressBar label={`Backfill for ${a.agentName}`} value={b.done} max={b.total} /> : null}
                {b.error ? <p className="mt-1 text-rose-700">{b.error}</p> : null}
              </td>
              {a.today ? (
                <td className="px-3 py-2 text-xs whitespace-nowrap tabular-nums">
                  {usd(a.today.spentUsd)} of {usd(a.dailyBudgetUsd ?? 0)}
                </td>
              ) : null}
              {canWrite ? (
                <td className="px-3 py-2">
                  <AttachmentActions
                    checkId={a.checkId}
                    agentId={a.agentId}
                    agentName={a.agentName}
                    backfillRunning={running}
                  />
                </td>
              ) : null}
            </tr>
          );
        })}
      </DataTable>
    </div>
  );
}
