import type { Metadata } from "next";
import Link from "next/link";
import { AgentTabs } from "@/components/failures/AgentTabs";
import { ClusterTable } from "@/components/failures/ClusterTable";
import { EmptyState, NoSessionsYet } from "@/components/ui/EmptyState";
import { PageHeader } from "@/components/ui/PageHeader";
import { plural } from "@/lib/format";
import { pageContext } from "@/lib/http/page";
import { listClusterAgents, listFailureClusters } from "@/lib/server/clusters/clusters";

export const metadata: Metadata = { title: "Failures" };
export const dynamic = "force-dynamic";

type Props = { searchParams: Promise<Record<string, string | string[] | undefined>> };

/** An agent's failed sessions grouped by failure signature, largest group first. */
export default async function FailuresPage({ searchParams }: Props) {
  const raw = (await searchParams).agent;
  const { principal, prisma } = await pageContext();
  const agents = await listClusterAgents(principal, {}, prisma);
  const wanted = (Array.isArray(raw) ? raw[0] : raw) ?? agents[0]?.name;
  const agent = agents.find((a) => a.name === wanted) ?? null;
  const clusters = agent ? (await listFailureClusters(principal, { agentId: agent.id }, prisma)).clusters : [];
  const failed = clusters.reduce((n, c) => n + c.size, 0);
  return (
    <>
      <PageHeader
        title="Failures"
        subtitle="Failed sessions grouped by what failed: the failing step, the error type and the error message with its ids, numbers, times, quoted values and paths left out."
        actions={
          agent ? (
            <span className="flex flex-wrap gap-3 text-sm font-medium">
              <Link href={`/agents/${agent.id}`} className="text-indigo-700 hover:underline">
                Overview over time
              </Link>
              <Link
                href={`/failures/regressions?agent=${encodeURIComponent(agent.name)}`}
                className="text-indigo-700 hover:underline"
              >
                Pass rate by version
              </Link>
              <Link
                href={`/failures/watches?agent=${encodeURIComponent(agent.name)}`}
                className="text-indigo-700 hover:underline"
              >
                Watches
              </Link>
            </span>
          ) : null
        }
      />
      {agents.length === 0 ? (
        <NoSessionsYet>
          Failures are grouped as sessions arrive: import recorded runs or point an exporter at{" "}
          <code className="font-mono">/v1/traces</code>.
        </NoSessionsYet>
      ) : (
        <>
          <AgentTabs agents={agents} current={agent?.name ?? null} base="/failures" />
          {!agent ? (
            <EmptyState
              title={`No agent named “${wanted ?? ""}”`}
              link={{ href: "/failures", label: "Show the first agent", look: "text" }}
            />
          ) : clusters.length === 0 ? (
            <EmptyState
              title={`No failed sessions of ${agent.name}`}
              link={{
                href: `/sessions?agent=${encodeURIComponent(agent.name)}`,
                label: "See its sessions",
                look: "text",
              }}
            >
              A session counts as failed when it ended failed, or when a tool call failed and no later call of the same
              tool succeeded.
            </EmptyState>
          ) : (
            <>
              <p className="mb-3 text-sm text-slate-700">
                {plural(failed, "failed session")} of {agent.name} in {plural(clusters.length, "cluster")}.
              </p>
              <ClusterTable clusters={clusters} />
            </>
          )}
        </>
      )}
    </>
  );
}
