import type { Metadata } from "next";
import { AgentTabs } from "@/components/failures/AgentTabs";
import { EmptyState, NoSessionsYet } from "@/components/ui/EmptyState";
import { PageHeader } from "@/components/ui/PageHeader";
import { WatchForm } from "@/components/watches/WatchForm";
import { WatchList } from "@/components/watches/WatchList";
import { can } from "@/lib/server/authz";
import { pageContext } from "@/lib/http/page";
import { listChecks } from "@/lib/server/checks/counterfactual";
import { listClusterAgents } from "@/lib/server/clusters/clusters";
import { listWatches, watchDeliveries } from "@/lib/server/watches/watches";

export const metadata: Metadata = { title: "Watches" };
export const dynamic = "force-dynamic";

type Props = { searchParams: Promise<Record<string, string | string[] | undefined>> };

/** An agent's watches: what tells the team of new or growing failures, with every webhook delivery. */
export default async function WatchesPage({ searchParams }: Props) {
  const raw = (await searchParams).agent;
  const { principal, prisma } = await pageContext();
  const agents = await listClusterAgents(principal, {}, prisma);
  const wanted = (Array.isArray(raw) ? raw[0] : raw) ?? agents[0]?.name;
  const agent = agents.find((a) => a.name === wanted) ?? null;
  const watches = agent ? await listWatches(principal, { agentId: agent.id }, prisma) : [];
  const logs = await Promise.all(watches.map((w) => watchDeliveries(principal, { watchId: w.id }, prisma)));
  const writer = can(principal, "clusters.write");
  const checks = writer && agent ? await listChecks(principal, {}, prisma) : [];
  return (
    <>
      <PageHeader
        title="Watches"
        subtitle="Tell your team when failures change: a new cluster, a cluster growing fast, a check's pass rate dropping, or a version that regressed. Each can post to a webhook and start an investigation."
      />
      {agents.length === 0 ? (
        <NoSessionsYet>A watch is set on an agent: import its recorded runs first.</NoSessionsYet>
      ) : (
        <>
          <AgentTabs agents={agents} current={agent?.name ?? null} base="/failures/watches" />
          {!agent ? (
            <EmptyState
              title={`No agent named “${wanted ?? ""}”`}
              link={{ href: "/failures/watches", label: "Show the first agent", look: "text" }}
            />
          ) : (
            <div className="grid gap-6 lg:grid-cols-[minmax(0,2fr)_minmax(0,1fr)]">
              <div>
                {logs.length === 0 ? (
                  <EmptyState title={`No watches on ${agent.name}`}>
                    {writer
                      ? "Save one with the form: it is evaluated as this agent's sessions arrive."
                      : "An analyst can set one up here."}
                  </EmptyState>
                ) : (
                  <WatchList logs={logs} />
                )}
              </div>
              {writer ? (
                <WatchForm agentId={agent.id} checks={checks.map((c) => ({ id: c.id, name: c.name }))} />
              ) : null}
            </div>
          )}
        </>
      )}
    </>
  );
}
