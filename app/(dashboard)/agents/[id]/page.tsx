import type { Metadata } from "next";
import Link from "next/link";
import { CostChart, LatencyChart, OverviewTable, RunsChart, TokensChart } from "@/components/agents/OverviewCharts";
import { OverviewRangeForm } from "@/components/agents/OverviewRangeForm";
import { EmptyState } from "@/components/ui/EmptyState";
import { Notice } from "@/components/ui/Notice";
import { PageHeader } from "@/components/ui/PageHeader";
import { orNotFound, pageContext } from "@/lib/http/page";
import { getAgentOverview, OverviewQuery } from "@/lib/server/agents/overview";

export const metadata: Metadata = { title: "Agent overview" };
export const dynamic = "force-dynamic";

type Props = {
  params: Promise<{ id: string }>;
  searchParams: Promise<Record<string, string | string[] | undefined>>;
};

const first = (v: string | string[] | undefined) => (Array.isArray(v) ? v[0] : v);

/** An agent over time: runs, failures, cost, latency p50/p95 and tokens per day, by version. */
export default async function AgentOverviewPage({ params, searchParams }: Props) {
  const { id } = await params;
  const raw = await searchParams;
  const parsed = OverviewQuery.safeParse({ from: first(raw.from), to: first(raw.to), version: first(raw.version) });
  const { principal, prisma } = await pageContext();
  const query = parsed.success ? parsed.data : {};
  const data = await orNotFound(getAgentOverview(principal, { agentId: id, ...query }, prisma));
  const name = encodeURIComponent(data.agent.name);
  return (
    <>
      <PageHeader
        breadcrumbs={[{ href: `/sessions?agent=${name}`, label: "Sessions" }]}
        title={`${data.agent.name}: overview`}
        subtitle="Runs, failures, cost, duration and tokens per day (UTC), by agent version. A run failed when it ended failed or its outcome is failed. Replays are not counted."
        actions={
          <span className="flex flex-wrap gap-3 text-sm font-medium">
            <Link href={`/failures?agent=${name}`} className="text-indigo-700 hover:underline">
              Failures
            </Link>
            <Link href={`/failures/regressions?agent=${name}`} className="text-indigo-700 hover:underline">
              Pass rate by version
            </Link>
          </span>
        }
      />
      {parsed.success ? null : (
        <Notice tone="warning" className="mb-4">
          Showing the last 30 days instead: {parsed.error.issues.map((i) => i.message).join(" ")}
        </Notice>
      )}
      <OverviewRangeForm from={data.from} to={data.to} version={data.version} versions={data.versions} />
      {data.days.length === 0 ? (
        <EmptyState
          title={`No runs of ${data.agent.name}${data.version ? ` version ${data.version}` : ""} from ${data.from} to ${data.to}`}
          link={{ href: "/import", label: "Import sessions" }}
        >
          The overview counts the sessions recorded in these days. Import recorded runs, point an exporter at{" "}
          <code className="font-mono">/v1/traces</code>, or choose other days above.
        </EmptyState>
      ) : (
        <div className="flex flex-col gap-6">
          <div className="grid gap-6 lg:grid-cols-2">
            <RunsChart rows={data.days} />
            <LatencyChart rows={data.days} />
            <CostChart rows={data.days} />
            <TokensChart rows={data.days} />
          </div>
          <section aria-labelledby="overview-table-title">
            <h2 id="overview-table-title" className="mb-2 text-sm font-semibold text-slate-900">
              Every day and version
            </h2>
            <OverviewTable rows={data.days} />
          </section>
        </div>
      )}
    </>
  );
}
