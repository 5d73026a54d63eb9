import type { Metadata } from "next";
import Link from "next/link";
import { ReportForm } from "@/components/reports/ReportForm";
import { EmptyState } from "@/components/ui/EmptyState";
import { PageHeader } from "@/components/ui/PageHeader";
import { notFoundAsNull, orNotFound, pageContext } from "@/lib/http/page";
import { getReportPicker } from "@/lib/server/replays/comparison-pages";
import { getReportPage } from "@/lib/server/reports/reports";
import { updateReportAction } from "@/lib/actions/reports";
import { hasPicker, reportFormProps } from "../../form-props";

export const dynamic = "force-dynamic";
export const metadata: Metadata = { title: "Edit report" };

type Props = { params: Promise<{ id: string }> };

export default async function EditReportPage({ params }: Props) {
  const { id } = await params;
  const { principal, prisma } = await pageContext();
  const { report, liveReplayId } = await orNotFound(getReportPage(principal, { reportId: id }, prisma));
  const back = (
    <Link
      href={`/reports/${encodeURIComponent(report.id)}`}
      className="text-sm font-medium text-indigo-700 hover:underline"
    >
      Back to the report →
    </Link>
  );
  if (report.status !== "draft") {
    return (
      <>
        <PageHeader title="Edit report" subtitle={report.title} />
        <EmptyState title="This report is published" action={back}>
          A published report never changes, so that everyone reading it or following its share link sees the same thing.
          Write a new report from the replay instead.
        </EmptyState>
      </>
    );
  }
  const view = liveReplayId
    ? await getReportPicker(principal, { replayId: liveReplayId, pinned: report.sections.pinnedPairs }, prisma).catch(
        notFoundAsNull,
      )
    : null;
  if (view && !hasPicker(view)) {
    return (
      <>
        <PageHeader title="Edit report" subtitle={report.title} />
        <EmptyState title={`The replay of this draft is ${view.replay.status.replaceAll("_", " ")}`} action={back}>
          Its steps can be chosen again once it has finished.
        </EmptyState>
      </>
    );
  }
  if (!view) {
    return (
      <>
        <PageHeader title="Edit report" subtitle={report.title} />
        <EmptyState title="The replay of this draft has been deleted" action={back}>
          The draft keeps its snapshot and can still be published or deleted from its page, but its steps can no longer
          be chosen here.
        </EmptyState>
      </>
    );
  }
  return (
    <>
      <div className="mb-2 text-sm">
        <Link href={`/reports/${encodeURIComponent(report.id)}`} className="text-slate-500 hover:text-slate-900">
          ← {report.title}
        </Link>
      </div>
      <PageHeader
        title="Edit report"
        subtitle="A draft: saved changes replace the previous ones until you publish it."
      />
      <ReportForm
        {...reportFormProps(view, report.title)}
        save={{
          kind: "edit",
          draft: { id: report.id, title: report.title, sections: report.sections },
          action: updateReportAction,
        }}
      />
    </>
  );
}
