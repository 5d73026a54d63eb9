import type { Metadata } from "next";
import { ClusterDaysChart } from "@/components/failures/ClusterDaysChart";
import { ClusterFixes } from "@/components/failures/ClusterFixes";
import { ClusterMemberWork } from "@/components/failures/ClusterMemberWork";
import { ClusterMembers } from "@/components/failures/ClusterMembers";
import { MergeClusterForm } from "@/components/failures/MergeClusterForm";
import { SuggestLabelForm } from "@/components/failures/SuggestLabelForm";
import { TryFixForm } from "@/components/failures/TryFixForm";
import { RenameClusterForm } from "@/components/failures/RenameClusterForm";
import { SmallestFixSearch } from "@/components/failures/SmallestFixSearch";
import { Card } from "@/components/ui/Card";
import { DataTable, numberColumn } from "@/components/ui/DataTable";
import { PageHeader } from "@/components/ui/PageHeader";
import { formatDateTime, plural } from "@/lib/format";
import { orNotFound, pageContext } from "@/lib/http/page";
import { can } from "@/lib/server/authz";
import { listClusterFixes } from "@/lib/server/clusters/cluster-fixes";
import { listFixSearches } from "@/lib/server/clusters/cluster-fix-search";
import { clusterLabelEndpoints } from "@/lib/server/clusters/cluster-label";
import {
  getFailureCluster,
  listClusterMemberWork,
  listClusterSessions,
  listFailureClusters,
} from "@/lib/server/clusters/clusters";
import { experimentChoices } from "@/lib/server/experiments/experiments";

export const dynamic = "force-dynamic";
export const metadata: Metadata = { title: "Failure cluster" };

type Props = {
  params: Promise<{ id: string }>;
  searchParams: Promise<Record<string, string | string[] | undefined>>;
};

/** The page of the members' work asked for (`?work=N`); the first for anything that is not a page number. */
function workPage(raw: string | string[] | undefined): number {
  const n = typeof raw === "string" && /^[0-9]{1,5}$/.test(raw) ? Number(raw) : 1;
  return n >= 1 ? n : 1;
}

/** One failure cluster: its signature, how many sessions and when, the versions they ran, examples. */
export default async function ClusterPage({ params, searchParams }: Props) {
  const { id } = await params;
  const page = workPage((await searchParams).work);
  const { principal, prisma } = await pageContext();
  const cluster = await orNotFound(getFailureCluster(principal, { clusterId: id }, prisma));
  const examples = await listClusterSessions(principal, { clusterId: id, limit: 20 }, prisma);
  const { fixes } = await listClusterFixes(principal, { clusterId: id }, prisma);
  const { searches } = await listFixSearches(principal, { clusterId: id }, prisma);
  const work = await listClusterMemberWork(principal, { clusterId: id, page }, prisma);
  const canCurate = can(principal, "clusters.write");
  const others = canCurate
    ? (await listFailureClusters(principal, { agentId: cluster.agentId }, prisma)).clusters
        .filter((c) => c.id !== cluster.id)
        .map((c) => ({ id: c.id, label: c.label, size: c.size }))
    : [];
  const endpoints = canCurate ? await clusterLabelEndpoints(principal, { clusterId: id }, prisma) : [];
  const canFix = can(principal, "experiments.run");
  const policies = canFix
    ? [
        ...new Map(
          (await experimentChoices(principal, {}, prisma)).policyVersions
            .filter((p) => p.agentId === null || p.agentId === cluster.agentId)
            .map((p) => [p.policyId, { id: p.policyId, name: p.policyName }]),
        ).values(),
      ]
    : [];
  const agentHref = `/failures?agent=${encodeURIComponent(cluster.agentName)}`;
  const signature: [string, string][] = [
    ["Failing step", cluster.signature.step || "none (the run ended failed)"],
    ["Error type", cluster.signature.errorType || "none"],
    ["Message", cluster.signature.message || "none"],
    ...(cluster.signature.check ? ([["Failing check", cluster.signature.check]] as [string, string][]) : []),
  ];
  return (
    <>
      <PageHeader
        title={cluster.label}
        subtitle={`${plural(cluster.size, "failed session")} of ${cluster.agentName} · first seen ${formatDateTime(cluster.firstSeen)} · last seen ${formatDateTime(cluster.lastSeen)}`}
        breadcrumbs={[
          { href: "/failures", label: "Failures" },
          { href: agentHref, label: cluster.agentName },
        ]}
      />
      <div className="grid gap-6 lg:grid-cols-[minmax(0,1fr)_minmax(0,24rem)]">
        <div className="flex min-w-0 flex-col gap-6">
          <ClusterDaysChart days={cluster.days} />
          <Card title="Example sessions" padding="none">
            <ClusterMembers
              clusterId={cluster.id}
              size={cluster.size}
              sessions={examples.sessions}
              canSplit={canCurate}
            />
          </Card>
          <Card title="Blame searches and reports on these sessions" padding="none">
            <ClusterMemberWork work={work} path={`/failures/${cluster.id}`} />
          </Card>
          <Card title="Fixes tried" padding="none">
            {fixes.length > 0 ? (
              <ClusterFixes fixes={fixes} />
            ) : (
              <p className="px-4 py-3 text-sm text-slate-600">
                No fix tried yet. A fix replays the cluster&apos;s sessions under a policy and counts how many it fixes,
                and how many passing sessions it breaks.
              </p>
            )}
          </Card>
          <Card title="Smallest fix">
            <SmallestFixSearch
              clusterId={cluster.id}
              policies={policies}
              fixes={fixes
                .filter((f) => f.edits.length > 0)
                .map((f) => ({
                  id: f.id,
                  label: `${f.policy.name} v${f.policy.version} with ${plural(f.edits.length, "edit")} (${f.edits.map((e) => e.tool).join(", ")})`,
                }))}
              searches={searches}
              canRun={canFix}
            />
          </Card>
        </div>
        <div className="flex min-w-0 flex-col gap-6">
          <Card title="Signature">
            <dl className="grid gap-2 text-sm">
              {signature.map(([term, value]) => (
                <div key={term}>
                  <dt className="text-xs font-medium text-slate-600">{term}</dt>
                  <dd className="font-mono text-xs break-words text-slate-900">{value}</dd>
                </div>
              ))}
            </dl>
          </Card>
          <Card title="Agent versions affected" padding="none">
            <DataTable frame={false} label="Agent versions affected" columns={["Version", numberColumn("Sessions")]}>
              {cluster.versions.map((v) => (
                <tr key={v.agentVersionId}>
                  <td className="px-3 py-2 font-mono text-xs">{v.version}</td>
                  <td className="px-3 py-2 text-right tabular-nums">{v.sessions}</td>
                </tr>
              ))}
            </DataTable>
          </Card>
          {canFix ? (
            <Card title="Try a fix">
              <TryFixForm clusterId={cluster.id} policies={policies} endpoints={endpoints} />
            </Card>
          ) : null}
          {canCurate ? (
            <>
              <Card title="Name">
                <RenameClusterForm
                  key={cluster.label}
                  clusterId={cluster.id}
                  label={cluster.named ? cluster.label : null}
                />
              </Card>
              <Card title="Suggest a label">
                <SuggestLabelForm clusterId={cluster.id} endpoints={endpoints} />
              </Card>
              <Card title="Merge">
                <MergeClusterForm
                  cluster={{ id: cluster.id, label: cluster.label, size: cluster.size }}
                  others={others}
                />
              </Card>
            </>
          ) : null}
        </div>
      </div>
    </>
  );
}
