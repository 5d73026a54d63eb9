import { notFound } from "next/navigation";
import { ReportView } from "@/components/reports/ReportView";
import { db } from "@/lib/db";
import { shareLinkPrincipal } from "@/lib/http/principal";
import { openSharedReport } from "@/lib/server/reports/reports";
import { formatDateTime } from "@/lib/format";
import { buttonClass } from "@/components/ui/Button";

export const dynamic = "force-dynamic";

type Props = { params: Promise<{ token: string }> };

/** A report opened by its share link: the snapshot only, read-only. Any token that is not active is the same 404. */
export default async function SharedReportPage({ params }: Props) {
  const { token } = await params;
  const report = await openSharedReport(shareLinkPrincipal(), { token }, await db());
  if (!report) notFound();
  const exportHref = (format: "md" | "json") => `/share/${encodeURIComponent(token)}/export?format=${format}`;
  return (
    <>
      <div className="mb-6 flex flex-wrap items-end justify-between gap-4">
        <div className="min-w-0">
          <h1 className="text-xl font-semibold tracking-tight text-slate-900">{report.title}</h1>
          <p className="mt-1 text-sm text-slate-600">
            Created {formatDateTime(report.createdAt)}
            {report.createdBy ? ` by ${report.createdBy}` : ""} · a snapshot: it does not change when the replay, policy
            or session do.
          </p>
        </div>
        <div className="flex items-center gap-2">
          <a href={exportHref("md")} rel="nofollow" className={buttonClass({ variant: "secondary" })}>
            Download Markdown
          </a>
          <a href={exportHref("json")} rel="nofollow" className={buttonClass({ variant: "secondary" })}>
            Download JSON
          </a>
        </div>
      </div>
      <ReportView report={report} />
    </>
  );
}
