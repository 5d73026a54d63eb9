import type { Metadata } from "next";
import { can } from "@/lib/server/authz";
import { noteReader } from "@/lib/server/notes";
import Link from "next/link";
import { ReportLifecycle } from "@/components/reports/ReportLifecycle";
import { RemoveEvidenceButton } from "@/components/reports/RemoveEvidenceButton";
import { ReportView } from "@/components/reports/ReportView";
import { SharePanel } from "@/components/reports/SharePanel";
import { Badge } from "@/components/ui/Badge";
import { PageHeader } from "@/components/ui/PageHeader";
import { orNotFound, pageContext } from "@/lib/http/page";
import { getReport, getReportPage } from "@/lib/server/reports/reports";
import { listReportComments } from "@/lib/server/reports/comments";
import { ReportComments } from "@/components/reports/ReportComments";
import { formatDateTime } from "@/lib/format";
import { createShareAction, deleteReportAction, publishReportAction, revokeShareAction } from "@/lib/actions/reports";
import { buttonClass } from "@/components/ui/Button";
import { Card } from "@/components/ui/Card";

export const dynamic = "force-dynamic";

type Props = { params: Promise<{ id: string }> };

export async function generateMetadata({ params }: Props): Promise<Metadata> {
  const { id } = await params;
  const { principal, prisma } = await pageContext();
  const report = await getReport(principal, { reportId: id }, prisma).catch(() => null);
  return { title: report ? report.title : "Report not found" };
}

export default async function ReportPage({ params }: Props) {
  const { id } = await params;
  const { principal, prisma } = await pageContext();
  const { report, shares, liveReplayId } = await orNotFound(getReportPage(principal, { reportId: id }, prisma));
  const comments = await listReportComments(principal, { reportId: id }, prisma);
  const exportLink = (format: "md" | "json") => `/api/reports/${encodeURIComponent(report.id)}/export?format=${format}`;
  return (
    <>
      <PageHeader
        breadcrumbs={[{ href: "/reports", label: "Reports" }]}
        title={report.title}
        subtitle={
          <span className="flex flex-wrap items-center gap-2">
            {report.status === "draft" ? <Badge tone="warn">draft</Badge> : <Badge tone="good">published</Badge>}
            <span>
              Created {formatDateTime(report.createdAt)}
              {report.createdBy ? ` by ${report.createdBy}` : ""}
              {report.publishedAt ? `, published ${formatDateTime(new Date(report.publishedAt))}` : ""}
            </span>
            <span className="text-slate-500">·</span>
            {liveReplayId ? (
              <Link href={`/replays/${liveReplayId}/compare`} className="text-indigo-700 hover:underline">
                Open the live comparison
              </Link>
            ) : (
              <span className="text-slate-500">The replay has been deleted; this report keeps its snapshot.</span>
            )}
          </span>
        }
        actions={
          <>
            <a href={exportLink("md")} className={buttonClass({ variant: "secondary" })}>
              Export Markdown
            </a>
            <a href={exportLink("json")} className={buttonClass({ variant: "secondary" })}>
              Export JSON
            </a>
          </>
        }
      />
      <div className="grid gap-4 lg:grid-cols-[minmax(0,1fr)_22rem]">
        <ReportView
          report={report}
          links
          removeEvidence={
            report.status === "draft" && can(principal, "reports.write")
              ? (evidenceId) => <RemoveEvidenceButton reportId={report.id} evidenceId={evidenceId} />
              : undefined
          }
        />
        <div className="min-w-0 space-y-4 lg:sticky lg:top-4 lg:self-start">
          {can(principal, "reports.write") ? (
            <ReportLifecycle
              reportId={report.id}
              status={report.status}
              hasFinding={report.sections.finding.trim() !== ""}
              activeShares={shares.filter((s) => s.state === "active").length}
              publish={publishReportAction}
              remove={deleteReportAction}
            />
          ) : null}
          {!can(principal, "shares.manage") ? null : report.status === "published" ? (
            <SharePanel
              reportId={report.id}
              shares={shares.map((s) => ({
                id: s.id,
                createdAt: s.createdAt.toISOString(),
                expiresAt: s.expiresAt?.toISOString() ?? null,
                revokedAt: s.revokedAt?.toISOString() ?? null,
                createdBy: s.createdBy,
                state: s.state,
              }))}
              createShare={createShareAction}
              revokeShare={revokeShareAction}
            />
          ) : (
            <Card as="p" className="text-sm text-slate-600">
              Share links are for published reports, so that a reader never sees a report change under them.
            </Card>
          )}
          <ReportComments reportId={report.id} comments={comments} reader={noteReader(principal)} />
        </div>
      </div>
    </>
  );
}
