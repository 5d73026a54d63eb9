import type { Metadata } from "next";
import Link from "next/link";
import { StrengthBadge, ValidityBadge } from "@/components/reports/ValidityBadge";
import { Badge } from "@/components/ui/Badge";
import { DataTable } from "@/components/ui/DataTable";
import { EmptyState } from "@/components/ui/EmptyState";
import { PageHeader } from "@/components/ui/PageHeader";
import { pageContext } from "@/lib/http/page";
import { listReports } from "@/lib/server/reports/reports";
import { formatDateTime } from "@/lib/format";
import { ValidityLabel } from "@/lib/reports/sections";
import { buttonClass } from "@/components/ui/Button";

export const dynamic = "force-dynamic";
export const metadata: Metadata = { title: "Reports" };

type Props = { searchParams: Promise<{ cursor?: string }> };

export default async function ReportsPage({ searchParams }: Props) {
  const { cursor } = await searchParams;
  const { principal, prisma } = await pageContext();
  const { reports, nextCursor } = await listReports(
    principal,
    { limit: 50, ...(typeof cursor === "string" && cursor ? { cursor } : {}) },
    prisma,
  );
  return (
    <>
      <PageHeader
        title="Reports"
        subtitle="RCA reports: snapshots of a comparison with its policy, fixtures and findings. Drafts can be edited; published reports never change and can be shared by link."
        actions={
          <Link href="/reports/new" className={buttonClass()}>
            New report
          </Link>
        }
      />
      {reports.length === 0 ? (
        <EmptyState title="No reports yet" link={{ href: "/replays", label: "Go to replays →", look: "text" }}>
          Open a finished replay&apos;s comparison and choose “Create report”, or start one here with “New report” and
          pick a replay.
        </EmptyState>
      ) : (
        <DataTable label="Reports" columns={["Title", "State", "Session", "Validity", "Evidence", "Shared", "Created"]}>
          {reports.map((r) => {
            const validity = ValidityLabel.safeParse(r.validity);
            return (
              <tr key={r.id} data-testid="report-row" className="hover:bg-slate-50">
                <td className="px-3 py-2 font-medium">
                  <Link href={`/reports/${r.id}`} className="text-slate-900 hover:text-indigo-700">
                    {r.title}
                  </Link>
                </td>
                <td className="px-3 py-2">
                  {r.status === "draft" ? <Badge tone="warn">draft</Badge> : <Badge tone="good">published</Badge>}
                </td>
                <td className="px-3 py-2 text-slate-700">{r.sessionLabel}</td>
                <td className="px-3 py-2">{validity.success ? <ValidityBadge label={validity.data} /> : r.validity}</td>
                <td className="px-3 py-2">
                  <StrengthBadge strength={r.strength} />
                </td>
                <td className="px-3 py-2">
                  {r.activeShares > 0 ? (
                    <Badge tone="info">
                      {r.activeShares} active link{r.activeShares === 1 ? "" : "s"}
                    </Badge>
                  ) : (
                    <span className="text-slate-500">—</span>
                  )}
                </td>
                <td className="px-3 py-2 whitespace-nowrap text-slate-600">
                  {formatDateTime(r.createdAt)}
                  {r.createdBy ? <span className="text-slate-500"> · {r.createdBy}</span> : null}
                </td>
              </tr>
            );
          })}
        </DataTable>
      )}
      {nextCursor ? (
        <div className="mt-4 text-right text-sm">
          <Link href={`/reports?cursor=${encodeURIComponent(nextCursor)}`} className="text-indigo-700 hover:underline">
            Older reports →
          </Link>
        </div>
      ) : null}
    </>
  );
}
