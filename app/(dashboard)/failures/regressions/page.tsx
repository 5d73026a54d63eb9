import type { Metadata } from "next";
import { AgentTabs } from "@/components/failures/AgentTabs";
import { CheckPassRates, DailyPassRates, VersionPassRates } from "@/components/failures/RegressionCharts";
import { EmptyState, NoSessionsYet } from "@/components/ui/EmptyState";
import { PageHeader } from "@/components/ui/PageHeader";
import { pageContext } from "@/lib/http/page";
import { listClusterAgents } from "@/lib/server/clusters/clusters";
import { getRegressions } from "@/lib/server/clusters/regressions";

export const metadata: Metadata = { title: "Regressions" };
export const dynamic = "force-dynamic";

type Props = { searchParams: Promise<Record<string, string | string[] | undefined>> };

/** An agent's pass rate by version and by day, and the versions that made it worse. */
export default async function RegressionsPage({ searchParams }: Props) {
  const raw = (await searchParams).agent;
  const { principal, prisma } = await pageContext();
  const agents = await listClusterAgents(principal, {}, prisma);
  const wanted = (Array.isArray(raw) ? raw[0] : raw) ?? agents[0]?.name;
  const agent = agents.find((a) => a.name === wanted) ?? null;
  const data = agent ? await getRegressions(principal, { agentId: agent.id }, prisma) : null;
  return (
    <>
      <PageHeader
        title="Regressions"
        subtitle="A session passes unless it failed (a failed online check included); each online check also has its own pass rate below. A version is flagged when its pass rate is below the previous version's and the two 95% intervals are apart, or a two-proportion test finds the drop at 95%."
        breadcrumbs={[
          { href: agent ? `/failures?agent=${encodeURIComponent(agent.name)}` : "/failures", label: "Failures" },
        ]}
      />
      {agents.length === 0 ? (
        <NoSessionsYet>Pass rates appear once an agent&apos;s sessions are imported.</NoSessionsYet>
      ) : (
        <>
          <AgentTabs agents={agents} current={agent?.name ?? null} base="/failures/regressions" />
          {data ? (
            <div className="flex flex-col gap-6">
              <VersionPassRates data={data} />
              <DailyPassRates data={data} />
              <CheckPassRates data={data} />
            </div>
          ) : (
            <EmptyState
              title={`No agent named “${wanted ?? ""}”`}
              link={{ href: "/failures/regressions", label: "Show the first agent", look: "text" }}
            />
          )}
        </>
      )}
    </>
  );
}
