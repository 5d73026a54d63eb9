import type { Metadata } from "next";
import Link from "next/link";
import { AddToReport } from "@/components/reports/AddToReport";
import { ExperimentCharts } from "@/components/experiments/ExperimentCharts";
import { ExperimentEditPanel } from "@/components/experiments/ExperimentEditPanel";
import { ExperimentCoveragePanel } from "@/components/experiments/ExperimentCoveragePanel";
import { ExperimentProgress } from "@/components/experiments/ExperimentProgress";
import { ExperimentResultTable, ExperimentSummary } from "@/components/experiments/ExperimentResults";
import { FixtureGroups } from "@/components/experiments/FixtureGroups";
import { ClusterFixCard } from "@/components/failures/ClusterFixes";
import { Badge, StatusBadge } from "@/components/ui/Badge";
import { PageHeader } from "@/components/ui/PageHeader";
import { formatDateTime } from "@/lib/format";
import { orNotFound, pageContext } from "@/lib/http/page";
import { experimentFixtureGroups } from "@/lib/server/experiments/experiment-fixtures";
import { describeCounts, experimentCountsOf } from "@/lib/server/experiments/experiment-status";
import { getExperimentCoverage } from "@/lib/server/replays/coverage";
import { getExperiment } from "@/lib/server/experiments/experiments";
import { fixOfExperiment } from "@/lib/server/clusters/cluster-fixes";
import { can } from "@/lib/server/authz";
import { evidenceDrafts } from "@/lib/server/reports/reports";
import { supplyGroupFixtureAction } from "@/lib/actions/experiments";

export const dynamic = "force-dynamic";
export const metadata: Metadata = { title: "Experiment" };

type Props = { params: Promise<{ id: string }> };

export default async function ExperimentPage({ params }: Props) {
  const { id } = await params;
  const { principal, prisma } = await pageContext();
  const experiment = await orNotFound(getExperiment(principal, { experimentId: id }, prisma));
  const { policyVersion, agentVersion, summary } = experiment;
  const running = experiment.status === "pending" || experiment.status === "running";
  const { state, counts } = experimentCountsOf(experiment);
  const waiting = await experimentFixtureGroups(principal, { experimentId: experiment.id }, prisma);
  const coverage = await getExperimentCoverage(principal, { experimentId: id }, prisma);
  const fix = await fixOfExperiment(principal, { experimentId: id }, prisma);
  return (
    <>
      <PageHeader
        breadcrumbs={[{ href: "/experiments", label: "Experiments" }]}
        title={experiment.name}
        subtitle={
          <span className="flex flex-wrap items-center gap-x-2 gap-y-1">
            <StatusBadge status={state} />
            <span data-testid="experiment-counts">{describeCounts(counts)}</span>
            {/* Its own line: a separator before a wrapped line was left dangling at the end of the first one. */}
            <span className="basis-full" data-testid="experiment-about">
              <Link href={`/policies/${policyVersion.policyId}`} className="font-medium text-indigo-700 underline">
                {policyVersion.policyName} v{policyVersion.version}
              </Link>{" "}
              <span className="font-mono text-xs" title={policyVersion.hash}>
                {policyVersion.hash.slice(0, 12)}
              </span>{" "}
              over {experiment.cohortKind === "sessions" ? "chosen sessions of " : ""}
              {experiment.dataset ? (
                <span data-testid="experiment-dataset">
                  dataset{" "}
                  {experiment.dataset.id ? (
                    <Link href={`/datasets/${experiment.dataset.id}`} className="font-medium text-indigo-700 underline">
                      {experiment.dataset.name}
                    </Link>
                  ) : (
                    <>
                      <strong className="font-medium">{experiment.dataset.name}</strong> (dataset deleted; its sessions
                      stay this experiment&apos;s)
                    </>
                  )}{" "}
                  of{" "}
                </span>
              ) : null}
              {agentVersion.agentName} <Badge>{agentVersion.version}</Badge> · {summary.total} session
              {summary.total === 1 ? "" : "s"} · started {formatDateTime(experiment.createdAt)}
              {experiment.finishedAt ? ` · finished ${formatDateTime(experiment.finishedAt)}` : ""}
            </span>
          </span>
        }
      />
      {fix ? <ClusterFixCard fix={fix} /> : null}
      {experiment.edit ? <ExperimentEditPanel edit={experiment.edit} total={summary.total} /> : null}
      {running ? <ExperimentProgress experimentId={experiment.id} done={summary.done} total={summary.total} /> : null}
      <FixtureGroups
        experimentId={experiment.id}
        groups={waiting.groups.map((g) => ({
          tool: g.tool,
          cacheKey: g.cacheKey,
          args: g.args,
          prefillText: g.prefill ? (JSON.stringify(g.prefill.output, null, 2) ?? "") : "",
          members: g.members,
        }))}
        ungrouped={waiting.ungrouped}
        supply={supplyGroupFixtureAction}
      />
      <ExperimentSummary summary={summary} />
      <ExperimentCharts experiment={experiment} coverage={coverage} />
      <ExperimentResultTable results={experiment.results} checked={summary.outcomes !== null} />
      <ExperimentCoveragePanel experimentId={id} coverage={coverage} />
      {can(principal, "reports.write") && experiment.status === "completed" ? (
        <div className="mt-3">
          <AddToReport
            source={{ coverage: { experimentId: experiment.id } }}
            drafts={await evidenceDrafts(principal, { experimentId: experiment.id }, prisma)}
            what="this experiment's coverage"
            about="one of its sessions"
          />
        </div>
      ) : null}
    </>
  );
}
