import type { Metadata } from "next";
import Link from "next/link";
import { Badge, StatusBadge } from "@/components/ui/Badge";
import { EmptyState } from "@/components/ui/EmptyState";
import { PageHeader } from "@/components/ui/PageHeader";
import { pageContext } from "@/lib/http/page";
import { listReplays } from "@/lib/server/replays/replay-reads";
import { formatDateTime } from "@/lib/format";
import { DataTable, numberColumn } from "@/components/ui/DataTable";
import { Card } from "@/components/ui/Card";

export const dynamic = "force-dynamic";
export const metadata: Metadata = { title: "Replays" };

type Props = { searchParams: Promise<{ cursor?: string }> };

export default async function ReplaysPage({ searchParams }: Props) {
  const { cursor } = await searchParams;
  const { principal, prisma } = await pageContext();
  const { replays, nextCursor } = await listReplays(principal, { limit: 50, ...(cursor ? { cursor } : {}) }, prisma);
  return (
    <>
      <PageHeader title="Replays" subtitle="Branches of recorded sessions, newest first." />
      {replays.length === 0 ? (
        <EmptyState title="No replays yet" link={{ href: "/sessions", label: "Choose a session" }}>
          Open a session and press “Replay this session” to run it as a branch under a policy, with or without edits.
        </EmptyState>
      ) : (
        <Card as="div" padding="none" className="overflow-hidden">
          <DataTable
            frame={false}
            columns={["Session", "Status", "Comparability", "Policy", numberColumn("Steps"), "Started"]}
          >
            {replays.map((r) => (
              <tr key={r.id} className="border-t border-slate-100 hover:bg-slate-50" data-testid="replay-row">
                <td className="px-3 py-2">
                  <Link href={`/replays/${r.id}`} className="font-medium text-indigo-700 hover:underline">
                    {r.session.title ?? r.session.externalId ?? r.session.id}
                  </Link>
                  <div className="text-xs text-slate-500">{r.session.agent.name}</div>
                </td>
                <td className="px-3 py-2">
                  <StatusBadge status={r.status} />
                </td>
                <td className="px-3 py-2">
                  {r.comparability ? <Badge>{r.comparability.replaceAll("_", " ")}</Badge> : "—"}
                </td>
                <td className="px-3 py-2">
                  {r.policyVersion ? (
                    <div>
                      {r.policyVersion.policy.name} v{r.policyVersion.version}
                    </div>
                  ) : null}
                  <span className="font-mono text-xs text-slate-500" title={r.policyHash}>
                    {r.policyHash.slice(0, 12)}
                  </span>
                </td>
                <td className="px-3 py-2 text-right tabular-nums">{r.stepCount}</td>
                <td className="px-3 py-2 text-slate-600">{formatDateTime(r.createdAt)}</td>
              </tr>
            ))}
          </DataTable>
          {nextCursor ? (
            <div className="border-t border-slate-100 px-3 py-2 text-right text-sm">
              <Link href={`/replays?cursor=${nextCursor}`} className="text-indigo-700 hover:underline">
                Older replays →
              </Link>
            </div>
          ) : null}
        </Card>
      )}
    </>
  );
}
