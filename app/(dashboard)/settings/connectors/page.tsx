import type { Metadata } from "next";
import { ConnectorAdmin } from "@/components/connectors/ConnectorAdmin";
import { CancelPullButton, ConnectorForm, PullForm, RefreshWhileRunning } from "@/components/connectors/ConnectorForms";
import { Badge, StatusBadge } from "@/components/ui/Badge";
import { Card } from "@/components/ui/Card";
import { SettingsHeader } from "@/components/settings/SettingsHeader";
import { pageContext } from "@/lib/http/page";
import { can } from "@/lib/server/authz";
import { listConnectorPulls, listConnectors, type PullView } from "@/lib/server/connectors/connectors";
import { platformOf } from "@/lib/server/connectors/platforms";

export const dynamic = "force-dynamic";
export const metadata: Metadata = { title: "Connectors" };

type Progress = {
  pages?: number;
  totalPages?: number | null;
  totalItems?: number | null;
  traces?: number;
  imported?: number;
  duplicates?: number;
  refused?: number;
  skipped?: number;
  retries?: number;
};

function PullRow({ pull }: { pull: PullView }) {
  const p = pull.progress as Progress;
  const refusals = pull.refusals as { traceId: string | null; issues: { path: string; message: string }[] }[];
  return (
    <li className="border-t border-slate-100 py-2 text-sm" data-testid="connector-pull">
      <div className="flex flex-wrap items-center gap-2">
        <StatusBadge status={pull.status} />
        <span className="tabular-nums text-slate-700">
          {p.traces ?? 0}
          {p.totalItems !== null && p.totalItems !== undefined ? ` of ${p.totalItems}` : ""} traces: {p.imported ?? 0}{" "}
          imported, {p.duplicates ?? 0} already here, {p.refused ?? 0} refused
          {p.skipped ? `, ${p.skipped} left out by the filter (read, then checked)` : ""}
          {p.retries ? `, ${p.retries} retries` : ""}
        </span>
        <span className="text-xs text-slate-500">
          started {pull.createdAt.slice(0, 16).replace("T", " ")} by {pull.createdBy ?? "someone"}
        </span>
        {pull.schedule ? (
          <span className="text-xs text-slate-500">
            repeats every {pull.schedule.everyMinutes} min
            {pull.schedule.nextRunAt ? `, next ${pull.schedule.nextRunAt.slice(0, 16).replace("T", " ")}` : ""}
          </span>
        ) : null}
        {pull.status === "queued" || pull.status === "running" || pull.schedule?.nextRunAt ? (
          <CancelPullButton connectorId={pull.connectorId} pullId={pull.id} />
        ) : null}
      </div>
      {pull.error ? <p className="mt-1 text-rose-700">{pull.error.message}</p> : null}
      {refusals.length > 0 ? (
        <details className="mt-1">
          <summary className="cursor-pointer text-slate-600">Refused traces ({refusals.length})</summary>
          <ul className="mt-1 space-y-1 font-mono text-xs text-slate-700">
            {refusals.map((r, i) => (
              <li key={i}>
                {r.traceId ?? "(no id)"}:{" "}
                {r.issues.map((issue) => `${issue.path ? `${issue.path}: ` : ""}${issue.message}`).join("; ")}
              </li>
            ))}
          </ul>
        </details>
      ) : null}
    </li>
  );
}

export default async function ConnectorsPage() {
  const { principal, prisma } = await pageContext();
  const connectors = await listConnectors(principal, {}, prisma);
  const pulls = await Promise.all(connectors.map((c) => listConnectorPulls(principal, { connectorId: c.id }, prisma)));
  const running = pulls.flat().some((p) => p.status === "queued" || p.status === "running");
  return (
    <>
      <SettingsHeader
        title="Connectors"
        subtitle="Pull the traces your agents already send to Langfuse, LangSmith, Phoenix or Braintrust, filtered by time, tags, name and more; each trace becomes a session you can replay. A pull runs as a job: leave the page, it goes on."
      />
      <RefreshWhileRunning running={running} />
      <div className="space-y-6">
        {connectors.map((c, i) => (
          <Card key={c.id} padding="lg">
            <h2 className="text-base font-semibold text-slate-900">
              {c.name} <Badge tone="info">{c.kind}</Badge>
            </h2>
            <p className="mb-4 text-sm text-slate-600">
              <span className="font-mono text-xs">{c.baseUrl}</span>{" "}
              {c.hostAllowed ? null : <Badge tone="bad">host not allowed</Badge>} ·{" "}
              {c.project !== null ? "project" : "public key"}{" "}
              <span className="font-mono text-xs">{c.project ?? c.publicKey}</span> · secret in ${c.secretKeyEnv}{" "}
              {c.secretSet ? <Badge tone="good">set</Badge> : <Badge tone="bad">not set on the server</Badge>}
            </p>
            {can(principal, "executors.manage") ? <ConnectorAdmin connector={c} /> : null}
            {can(principal, "sessions.import") ? (
              <PullForm connectorId={c.id} kind={c.kind} label={platformOf(c.kind)?.label ?? c.kind} />
            ) : null}
            {pulls[i]!.length > 0 ? (
              <ul className="mt-4">
                {pulls[i]!.map((p) => (
                  <PullRow key={p.id} pull={p} />
                ))}
              </ul>
            ) : null}
          </Card>
        ))}
        {can(principal, "executors.manage") ? (
          <Card padding="lg">
            <h2 className="text-base font-semibold text-slate-900">Add a connector</h2>
            <p className="mb-4 text-sm text-slate-600">
              The base URL&apos;s host must be on the allow-list (Settings → Executors). Give the NAME of the
              environment variable that holds the key, not the key: it stays on the server.
            </p>
            <ConnectorForm />
          </Card>
        ) : connectors.length === 0 ? (
          <p className="text-sm text-slate-500">No connectors yet: an administrator adds one here.</p>
        ) : null}
      </div>
    </>
  );
}
