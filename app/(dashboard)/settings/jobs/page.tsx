import type { Metadata } from "next";
import Link from "next/link";
import { StatusBadge } from "@/components/ui/Badge";
import { DataTable } from "@/components/ui/DataTable";
import { PageHeader } from "@/components/ui/PageHeader";
import { RetryButton } from "@/components/settings/RetryButton";
import type { JobRow } from "@/lib/db/jobs";
import { formatDateTime } from "@/lib/format";
import { jobs } from "@/lib/jobs/runtime";
import { jobSettings } from "@/lib/jobs/queue";
import { pageContext } from "@/lib/http/page";
import { listJobs } from "@/lib/server/jobs";

export const dynamic = "force-dynamic";
export const metadata: Metadata = { title: "Jobs" };

function label(r: JobRow) {
  return r.session.title ?? r.session.externalId ?? r.session.id;
}

function errorText(value: unknown): string {
  if (value && typeof value === "object" && "message" in value) return String(value.message);
  return "";
}

function Rows({ rows, kind }: { rows: JobRow[]; kind: "running" | "queued" | "failed" }) {
  return rows.map((r) => (
    <tr key={r.id} data-testid={`job-${kind}`}>
      <td className="px-3 py-2">
        <Link href={`/replays/${r.id}`} className="text-indigo-700 hover:underline">
          {label(r)}
        </Link>
        {r.experimentId ? (
          <Link href={`/experiments/${r.experimentId}`} className="ml-2 text-xs text-slate-500 hover:underline">
            experiment
          </Link>
        ) : null}
      </td>
      <td className="px-3 py-2">
        <StatusBadge status={r.status} />
      </td>
      <td className="px-3 py-2 text-slate-600">
        {kind === "running"
          ? `${r.leaseOwner ?? "?"} · step ${r.progressDone ?? 0} of ${r.progressTotal ?? "?"}`
          : kind === "queued"
            ? `since ${formatDateTime(r.createdAt)}`
            : errorText(r.error)}
      </td>
      <td className="px-3 py-2 text-right tabular-nums">{r.attempts}</td>
      <td className="px-3 py-2">{kind === "failed" ? <RetryButton replayId={r.id} /> : null}</td>
    </tr>
  ));
}

export default async function JobsPage() {
  const { principal, prisma } = await pageContext();
  const [overview, queue] = await Promise.all([listJobs(principal, {}, prisma), jobs()]);
  const settings = jobSettings();
  const columns = ["Replay", "State", "Detail", { label: "Attempts", align: "right" as const }, ""];
  return (
    <>
      <div className="mb-2 text-sm">
        <Link href="/settings" className="text-slate-500 hover:text-slate-900">
          ← Settings
        </Link>
      </div>
      <PageHeader
        title="Jobs"
        subtitle={`Replays run as jobs on the database: ${queue.workers.length} worker(s) in this server process, any number more with npm run worker. A worker that stops is replaced after its ${settings.leaseMs / 1000} s lease; a replay whose runs keep ending without a result stops after ${settings.maxAttempts} attempts.`}
      />
      <dl className="mb-6 grid grid-cols-3 gap-4 text-center" data-testid="job-counts">
        {(["queued", "running", "failed"] as const).map((k) => (
          <div key={k} className="rounded-lg border border-slate-200 bg-white p-4">
            <dt className="text-xs font-medium tracking-wide text-slate-500 uppercase">{k}</dt>
            <dd className="mt-1 text-2xl font-semibold text-slate-900 tabular-nums">{overview.counts[k]}</dd>
          </div>
        ))}
      </dl>
      <h2 className="mb-2 text-base font-semibold text-slate-900">Running</h2>
      <DataTable columns={columns} label="Running replays">
        <Rows rows={overview.running} kind="running" />
      </DataTable>
      <h2 className="mt-6 mb-2 text-base font-semibold text-slate-900">Queued</h2>
      <DataTable columns={columns} label="Queued replays">
        <Rows rows={overview.queued} kind="queued" />
      </DataTable>
      <h2 className="mt-6 mb-2 text-base font-semibold text-slate-900">Failed</h2>
      <DataTable columns={columns} label="Failed replays">
        <Rows rows={overview.failed} kind="failed" />
      </DataTable>
    </>
  );
}
