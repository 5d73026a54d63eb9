import Link from "next/link";
import { Badge, type Tone } from "@/components/ui/Badge";
import { Card } from "@/components/ui/Card";
import { DataTable, numberColumn } from "@/components/ui/DataTable";
import { formatDateTime } from "@/lib/format";
import type { TriggerInvestigation } from "@/lib/server/watches/investigate";
import type { PresentedWatch } from "@/lib/server/watches/watch-inputs";
import { conditionWords } from "@/lib/watches/words";
import type { watchDeliveries } from "@/lib/server/watches/watches";
import { DeleteWatchButton } from "./DeleteWatchButton";

type Log = Awaited<ReturnType<typeof watchDeliveries>>;

const DELIVERY_TONES: Record<string, Tone> = { delivered: "good", failed: "bad", refused: "warn" };

function actionWords(w: PresentedWatch): string {
  const parts = [];
  if (w.actions.webhook) parts.push(`post to ${new URL(w.actions.webhook.url).host}`);
  if (w.actions.investigate) parts.push(`investigate up to ${w.actions.investigate.maxSessions} sessions`);
  return parts.join(" and ");
}

/** What a trigger's investigation came to: a link to its draft report, or where it stands. */
function InvestigationCell({ state }: { state: TriggerInvestigation | null }) {
  if (!state) return <span className="text-slate-500">—</span>;
  if (state.reportId)
    return (
      <Link href={`/reports/${state.reportId}`} className="text-indigo-700 hover:underline">
        Draft report
      </Link>
    );
  return <span title={state.error ?? undefined}>{state.status}</span>;
}

/** One watch: what it watches and does, its triggers and every webhook attempt. */
function WatchCard({ log }: { log: Log }) {
  const w = log.watch;
  return (
    <Card title={w.name} actions={<DeleteWatchButton watchId={w.id} name={w.name} />}>
      <p className="text-sm text-slate-800">
        When {conditionWords(w.condition)}: {actionWords(w)}. Evaluated at most once every{" "}
        {Math.round(w.windowSeconds / 60) || 1} min.
      </p>
      {w.costBound ? <p className="mt-1 text-xs text-slate-600">{w.costBound.text}</p> : null}
      {log.triggers.length === 0 ? (
        <p className="mt-3 text-sm text-slate-600">
          Not fired yet. It is evaluated as this agent&apos;s sessions arrive.
        </p>
      ) : (
        <div className="mt-3">
          <DataTable label={`Triggers of ${w.name}`} frame={false} dense columns={["Fired", "What", "Investigation"]}>
            {log.triggers.map((t) => (
              <tr key={t.id} data-testid="watch-trigger">
                <td className="px-3 py-1.5 whitespace-nowrap text-slate-700">{formatDateTime(t.firedAt)}</td>
                <td className="px-3 py-1.5">{t.text}</td>
                <td className="px-3 py-1.5">
                  <InvestigationCell state={t.investigation as TriggerInvestigation | null} />
                </td>
              </tr>
            ))}
          </DataTable>
        </div>
      )}
      {w.actions.webhook ? (
        log.deliveries.length === 0 ? (
          <p className="mt-3 text-sm text-slate-600">No webhook delivery yet.</p>
        ) : (
          <div className="mt-3">
            <DataTable
              label={`Deliveries of ${w.name}`}
              frame={false}
              dense
              columns={["At", numberColumn("Attempt"), "Status", numberColumn("HTTP"), "Detail"]}
            >
              {log.deliveries.map((d) => (
                <tr key={d.id} data-testid="watch-delivery">
                  <td className="px-3 py-1.5 whitespace-nowrap text-slate-700">{formatDateTime(d.at)}</td>
                  <td className="px-3 py-1.5 text-right tabular-nums">{d.attempt}</td>
                  <td className="px-3 py-1.5">
                    <Badge tone={DELIVERY_TONES[d.status] ?? "neutral"}>{d.status}</Badge>
                  </td>
                  <td className="px-3 py-1.5 text-right tabular-nums">{d.httpStatus ?? "—"}</td>
                  <td className="px-3 py-1.5 text-xs text-slate-700">
                    {d.error ?? ""}
                    {d.note ? <span className="block text-slate-600">{d.note}</span> : null}
                  </td>
                </tr>
              ))}
            </DataTable>
          </div>
        )
      ) : null}
    </Card>
  );
}

/** An agent's watches, each with its triggers and deliveries. */
export function WatchList({ logs }: { logs: Log[] }) {
  return (
    <div className="space-y-4">
      {logs.map((log) => (
        <WatchCard key={log.watch.id} log={log} />
      ))}
    </div>
  );
}
