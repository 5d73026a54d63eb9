import type { Metadata } from "next";
import Link from "next/link";
import { ReportForm } from "@/components/reports/ReportForm";
import { Badge, StatusBadge } from "@/components/ui/Badge";
import { EmptyState } from "@/components/ui/EmptyState";
import { PageHeader } from "@/components/ui/PageHeader";
import { notFoundAsNull, pageContext } from "@/lib/http/page";
import { getReportPicker } from "@/lib/server/replays/comparison-pages";
import { isTerminal, listReplays } from "@/lib/server/replays/replay-reads";
import { formatDateTime } from "@/lib/format";
import { sessionLabelOf } from "@/lib/reports/snapshot";
import { createReportAction } from "@/lib/actions/reports";
import { hasPicker, reportFormProps } from "../form-props";
import { Card } from "@/components/ui/Card";

export const dynamic = "force-dynamic";
export const metadata: Metadata = { title: "New report" };

type Props = { searchParams: Promise<{ replayId?: string | string[] }> };

async function ReplayPicker() {
  const { principal, prisma } = await pageContext();
  const { replays } = await listReplays(principal, { limit: 50 }, prisma);
  const finished = replays.filter((r) => isTerminal(r.status));
  if (finished.length === 0) {
    return (
      <EmptyState
        title="No finished replay to report on"
        link={{ href: "/sessions", label: "Pick a session to replay →", look: "text" }}
      >
        A report is made from a finished replay&apos;s comparison. Replay a session under a policy, let it finish, then
        come back.
      </EmptyState>
    );
  }
  return (
    <Card as="div" padding="none" className="overflow-x-auto">
      <p className="border-b border-slate-200 px-3 py-2 text-sm text-slate-600">
        Choose the finished replay whose comparison the report is about.
      </p>
      <ul className="divide-y divide-slate-100">
        {finished.map((r) => (
          <li key={r.id}>
            <Link
              href={`/reports/new?replayId=${encodeURIComponent(r.id)}`}
              className="flex flex-wrap items-center gap-2 px-3 py-2 text-sm hover:bg-slate-50"
            >
              <span className="font-medium text-slate-900">{sessionLabelOf(r.session)}</span>
              <StatusBadge status={r.status} />
              {r.comparability ? <Badge>{r.comparability.replaceAll("_", " ")}</Badge> : null}
              <span className="text-slate-500">
                {r.policyVersion ? `${r.policyVersion.policy.name} v${r.policyVersion.version}` : "ad-hoc policy"}
              </span>
              <span className="ml-auto text-xs text-slate-500">{formatDateTime(r.createdAt)}</span>
            </Link>
          </li>
        ))}
      </ul>
    </Card>
  );
}

export default async function NewReportPage({ searchParams }: Props) {
  const { replayId } = await searchParams;
  const id = typeof replayId === "string" ? replayId : "";
  if (!id) {
    return (
      <>
        <PageHeader
          title="New report"
          subtitle="An RCA report is a snapshot of one replay's comparison, its policy and your findings: a draft until you publish it."
        />
        <ReplayPicker />
      </>
    );
  }
  const { principal, prisma } = await pageContext();
  const view = await getReportPicker(principal, { replayId: id }, prisma).catch(notFoundAsNull);
  if (!view) {
    return (
      <>
        <PageHeader title="New report" />
        <EmptyState
          title="Replay not found"
          link={{ href: "/reports/new", label: "Choose another replay →", look: "text" }}
        >
          No replay has the id “{id}”.
        </EmptyState>
      </>
    );
  }
  const label = sessionLabelOf(view.session);
  if (!hasPicker(view)) {
    return (
      <>
        <PageHeader title="New report" subtitle={label} />
        <EmptyState
          title={`This replay is ${view.replay.status.replaceAll("_", " ")}`}
          action={
            <Link
              href={`/replays/${encodeURIComponent(view.replay.id)}`}
              className="text-sm font-medium text-indigo-700 hover:underline"
            >
              Open the replay →
            </Link>
          }
        >
          A report needs a finished replay. Supply the pending fixture or approval so the branch can finish, then create
          the report.
        </EmptyState>
      </>
    );
  }
  return (
    <>
      <PageHeader
        title="New report"
        subtitle={
          <span className="flex flex-wrap items-center gap-2">
            <span>{label}</span>
            <StatusBadge status={view.replay.status} />
            <Link
              href={`/replays/${encodeURIComponent(view.replay.id)}/compare`}
              className="text-indigo-700 hover:underline"
            >
              back to the comparison
            </Link>
          </span>
        }
      />
      <ReportForm
        {...reportFormProps(view, `RCA: ${label}`.slice(0, 200))}
        save={{ kind: "create", action: createReportAction }}
      />
    </>
  );
}
