import type { Metadata } from "next";
import Link from "next/link";
import { ExperimentProgress } from "@/components/experiments/ExperimentProgress";
import { ExperimentResultTable, ExperimentSummary } from "@/components/experiments/ExperimentResults";
import { Badge, StatusBadge } from "@/components/ui/Badge";
import { PageHeader } from "@/components/ui/PageHeader";
import { formatDateTime } from "@/lib/format";
import { orNotFound, pageContext } from "@/lib/http/page";
import { getExperiment } from "@/lib/server/experiments";

export const dynamic = "force-dynamic";
export const metadata: Metadata = { title: "Experiment" };

type Props = { params: Promise<{ id: string }> };

export default async function ExperimentPage({ params }: Props) {
  const { id } = await params;
  const { principal, prisma } = await pageContext();
  const experiment = await orNotFound(getExperiment(principal, { experimentId: id }, prisma));
  const { policyVersion, agentVersion, summary } = experiment;
  const running = experiment.status === "pending" || experiment.status === "running";
  return (
    <>
      <PageHeader
        breadcrumbs={[{ href: "/experiments", label: "Experiments" }]}
        title={experiment.name}
        subtitle={
          <span className="flex flex-wrap items-center gap-2">
            <StatusBadge status={experiment.status} />
            <span>
              <Link href={`/policies/${policyVersion.policyId}`} className="text-indigo-700 hover:underline">
                {policyVersion.policyName} v{policyVersion.version}
              </Link>{" "}
              <span className="font-mono text-xs" title={policyVersion.hash}>
                {policyVersion.hash.slice(0, 12)}
              </span>{" "}
              over {agentVersion.agentName} <Badge>{agentVersion.version}</Badge> · {summary.total} session
              {summary.total === 1 ? "" : "s"} · started {formatDateTime(experiment.createdAt)}
              {experiment.finishedAt ? ` · finished ${formatDateTime(experiment.finishedAt)}` : ""}
            </span>
          </span>
        }
      />
      {running ? <ExperimentProgress experimentId={experiment.id} done={summary.done} total={summary.total} /> : null}
      <ExperimentSummary summary={summary} />
      <ExperimentResultTable results={experiment.results} />
    </>
  );
}
