import type { Metadata } from "next";
import Link from "next/link";
import { investigationKindWords, resultInWords } from "@/components/investigations/words";
import { StatusBadge } from "@/components/ui/Badge";
import { DataTable } from "@/components/ui/DataTable";
import { EmptyState } from "@/components/ui/EmptyState";
import { PageHeader } from "@/components/ui/PageHeader";
import { formatDateTime } from "@/lib/format";
import { pageContext } from "@/lib/http/page";
import { listInvestigations } from "@/lib/server/investigations/investigation-reads";

export const metadata: Metadata = { title: "Investigations" };
export const dynamic = "force-dynamic";

export default async function InvestigationsPage() {
  const { principal, prisma } = await pageContext();
  const investigations = await listInvestigations(principal, {}, prisma);
  return (
    <>
      <PageHeader
        title="Investigations"
        subtitle="Searches that run many replays of a session to answer one question each: which model step decided the outcome, which edits are needed, which recordings are stale."
      />
      {investigations.length === 0 ? (
        <EmptyState title="No investigations yet" link={{ href: "/sessions", label: "Open a session" }}>
          Open a session and choose Investigate to find the step that decided its outcome, or check whether its recorded
          tool answers still hold.
        </EmptyState>
      ) : (
        <DataTable label="Investigations" columns={["Investigation", "Session", "Result", "By", "Started"]}>
          {investigations.map((i) => (
            <tr key={i.id} className="hover:bg-slate-50" data-testid="investigation-row">
              <td className="px-3 py-2 whitespace-nowrap">
                <StatusBadge status={i.status} />{" "}
                <Link href={`/investigations/${i.id}`} className="font-medium text-indigo-700 hover:underline">
                  {investigationKindWords(i.kind)}
                </Link>
              </td>
              <td className="max-w-xs truncate px-3 py-2">
                <Link
                  href={`/sessions/${i.session.id}`}
                  className="hover:underline"
                  title={i.session.title ?? undefined}
                >
                  {i.session.title ?? i.session.id}
                </Link>
              </td>
              <td className="px-3 py-2 text-slate-600">{resultInWords(i.kind, i.result)}</td>
              <td className="px-3 py-2 whitespace-nowrap text-slate-600">{i.createdBy ?? "unknown"}</td>
              <td className="px-3 py-2 text-xs whitespace-nowrap text-slate-500">{formatDateTime(i.createdAt)}</td>
            </tr>
          ))}
        </DataTable>
      )}
    </>
  );
}
