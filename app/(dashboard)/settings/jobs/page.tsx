import type { Metadata } from "next";
import Link from "next/link";
import { StatusBadge } from "@/components/ui/Badge";
import { DataTable, numberColumn } from "@/components/ui/DataTable";
import { PageHeader } from "@/components/ui/PageHeader";
import { RetryButton } from "@/components/settings/RetryButton";
import { formatDateTime } from "@/lib/format";
import { jobs } from "@/lib/jobs/runtime";
import { jobSettings } from "@/lib/jobs/queue";
import { pageContext } from "@/lib/http/page";
import { listJobs, presentJobs } from "@/lib/server/jobs/jobs";
import { plural } from "@/lib/format";
import { Card } from "@/components/ui/Card";
import { runFailureWords } from "@/lib/run-failures";

export const dynamic = "force-dynamic";
export const metadata: Metadata = { title: "Jobs" };

type Job = ReturnType<typeof presentJobs>["running"][number];

const INVESTIGATION_NAMES: Record<string, string> = {
  blame: "blame search",
  minimize: "smallest fix",
  stale: "stale check",
};

function label(j: Job) {
  if (j.kind === "fix_search") return j.cluster.label;
  return j.session.title ?? j.session.externalId ?? j.session.id;
}

/** Where a job's row leads: its replay, its investigation, or the cluster a smallest-fix search is over. */
function href(j: Job) {
  if (j.kind === "replay") return `/replays/${j.id}`;
  if (j.kind === "fix_search") return `/failures/${j.cluster.id}`;
  return `/investigations/${j.id}`;
}

/** What a running job has done: a replay's steps, an investigation's probes, a search's probes of the most it may run. */
function progressText(j: Job) {
  const done = j.progress.done ?? 0;
  if (j.kind === "fix_search") return `${j.worker ?? "?"} · probe ${done} of at most ${j.progress.total}`;
  const unit = j.kind === "replay" ? "step" : "probe";
  return `${j.worker ?? "?"} · ${unit} ${done} of ${j.progress.total ?? "?"}`;
}

/** The small words beside a job's name: an investigation's kind, a search's cluster's agent, a replay's experiment. */
function Beside({ j }: { j: Job }) {
  if (j.kind === "investigation")
    return (
      <span className="ml-2 text-xs text-slate-500">
        {INVESTIGATION_NAMES[j.investigationKind] ?? j.investigationKind}
      </span>
    );
  if (j.kind === "fix_search")
    return <span className="ml-2 text-xs text-slate-500">smallest-fix search · {j.cluster.agent}</span>;
  if (j.experimentId)
    return (
      <Link href={`/experiments/${j.experimentId}`} className="ml-2 text-xs text-slate-500 hover:underline">
        experiment
      </Link>
    );
  return null;
}

const NONE = {
  running: "Nothing is running.",
  queued: "Nothing is waiting for a worker.",
  failed: "No job has failed.",
};

function Rows({ rows, kind }: { rows: Job[]; kind: "running" | "queued" | "failed" }) {
  if (rows.length === 0)
    return (
      <tr>
        <td colSpan={5} className="px-3 py-3 text-sm text-slate-500">
          {NONE[kind]}
        </td>
      </tr>
    );
  return rows.map((j) => (
    <tr key={j.id} data-testid={`job-${kind}`} data-kind={j.kind}>
      <td className="px-3 py-2">
        <Link href={href(j)} className="text-indigo-700 hover:underline">
          {label(j)}
        </Link>
        <Beside j={j} />
      </td>
      <td className="px-3 py-2">
        <StatusBadge status={j.status} />
      </td>
      <td className="px-3 py-2 text-slate-600">
        {kind === "running"
          ? progressText(j)
          : kind === "queued"
            ? `since ${formatDateTime(j.createdAt)}`
            : j.error
              ? `${runFailureWords(j.error.code)} ${j.error.message}`
              : ""}
      </td>
      <td className="px-3 py-2 text-right tabular-nums">{j.attempts}</td>
      <td className="px-3 py-2">{kind === "failed" && j.kind === "replay" ? <RetryButton replayId={j.id} /> : null}</td>
    </tr>
  ));
}

export default async function JobsPage() {
  const { principal, prisma } = await pageContext();
  const [raw, queue] = await Promise.all([listJobs(principal, {}, prisma), jobs()]);
  const overview = presentJobs(raw);
  const settings = jobSettings();
  const columns = ["Job", "State", "Detail", numberColumn("Attempts"), { label: "Actions", srOnly: true }];
  return (
    <>
      <div className="mb-2 text-sm">
        <Link href="/settings" className="text-slate-500 hover:text-slate-900">
          ← Settings
        </Link>
      </div>
      <PageHeader
        title="Jobs"
        subtitle={`Replays, investigations and smallest-fix searches run as jobs on the database: ${plural(queue.workers.length, "worker")} in this server process, any number more with npm run worker. A worker that stops is replaced after its ${settings.leaseMs / 1000} s lease; a job whose runs keep ending without a result stops after ${settings.maxAttempts} attempts.`}
      />
      <dl className="mb-6 grid grid-cols-3 gap-4 text-center" data-testid="job-counts">
        {(["queued", "running", "failed"] as const).map((k) => (
          <Card as="div" key={k}>
            <dt className="text-xs font-medium tracking-wide text-slate-500 uppercase">{k}</dt>
            <dd className="mt-1 text-2xl font-semibold text-slate-900 tabular-nums">{overview.counts[k]}</dd>
          </Card>
        ))}
      </dl>
      <h2 className="mb-2 text-base font-semibold text-slate-900">Running</h2>
      <DataTable columns={columns} label="Running jobs">
        <Rows rows={overview.running} kind="running" />
      </DataTable>
      <h2 className="mt-6 mb-2 text-base font-semibold text-slate-900">Queued</h2>
      <DataTable columns={columns} label="Queued jobs">
        <Rows rows={overview.queued} kind="queued" />
      </DataTable>
      <h2 className="mt-6 mb-2 text-base font-semibold text-slate-900">Failed</h2>
      <DataTable columns={columns} label="Failed jobs">
        <Rows rows={overview.failed} kind="failed" />
      </DataTable>
    </>
  );
}
