import type { Metadata } from "next";
import Link from "next/link";
import { CreatePolicyForm } from "@/components/policies/CreatePolicyForm";
import { Badge } from "@/components/ui/Badge";
import { DataTable, numberColumn } from "@/components/ui/DataTable";
import { EmptyState } from "@/components/ui/EmptyState";
import { PageHeader } from "@/components/ui/PageHeader";
import { pageContext } from "@/lib/http/page";
import { listPolicies } from "@/lib/server/policies/policies";
import { formatDateTime } from "@/lib/format";

export const metadata: Metadata = { title: "Policies" };
export const dynamic = "force-dynamic";

export default async function PoliciesPage() {
  const { principal, prisma } = await pageContext();
  const { policies, agents } = await listPolicies(principal, {}, prisma);
  return (
    <>
      <PageHeader
        title="Policies"
        subtitle="The rules a replay runs under. Every saved version is immutable and has a content hash."
      />
      <div className="space-y-6">
        {policies.length === 0 ? (
          <EmptyState title="No policies yet">
            Create one below from a preset (start with the recommended RCA default) or paste a Kitaru --tool-policy
            JSON, then refine it visually or as JSON.
          </EmptyState>
        ) : (
          <DataTable label="Policies" columns={["Policy", "Agent", numberColumn("Latest version"), "Hash", "Updated"]}>
            {policies.map((p) => {
              const latest = p.versions[0];
              return (
                <tr key={p.id} className="hover:bg-slate-50" data-testid="policy-row">
                  <td className="px-3 py-2">
                    <Link href={`/policies/${p.id}`} className="font-medium text-indigo-700 hover:underline">
                      {p.name}
                    </Link>
                  </td>
                  <td className="px-3 py-2 whitespace-nowrap">
                    {p.agent ? (
                      <>
                        {p.agent.name} <Badge>{p.agent.adapter}</Badge>
                      </>
                    ) : (
                      <span className="text-slate-500">none</span>
                    )}
                  </td>
                  <td className="px-3 py-2 text-right tabular-nums">
                    {latest ? (
                      <Link href={`/policies/${p.id}/versions`} className="hover:underline">
                        v{latest.version}
                      </Link>
                    ) : (
                      <Badge tone="warn">unsaved</Badge>
                    )}
                  </td>
                  <td className="px-3 py-2 font-mono text-xs text-slate-600" title={latest?.hash}>
                    {latest ? latest.hash.slice(0, 12) : "—"}
                  </td>
                  <td className="px-3 py-2 text-xs whitespace-nowrap text-slate-500">
                    {formatDateTime(latest?.createdAt ?? p.updatedAt)}
                  </td>
                </tr>
              );
            })}
          </DataTable>
        )}
        <CreatePolicyForm agents={agents} />
      </div>
    </>
  );
}
