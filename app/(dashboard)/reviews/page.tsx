import type { Metadata } from "next";
import Link from "next/link";
import { NewReviewQueueForm } from "@/components/reviews/NewReviewQueueForm";
import { DataTable, numberColumn } from "@/components/ui/DataTable";
import { EmptyState } from "@/components/ui/EmptyState";
import { PageHeader } from "@/components/ui/PageHeader";
import { formatDateTime } from "@/lib/format";
import { pageContext } from "@/lib/http/page";
import { can } from "@/lib/server/authz";
import { listReviewQueues } from "@/lib/server/reviews/reviews";

export const metadata: Metadata = { title: "Reviews" };
export const dynamic = "force-dynamic";

export default async function ReviewsPage() {
  const { principal, prisma } = await pageContext();
  const queues = await listReviewQueues(principal, {}, prisma);
  const canWrite = can(principal, "notes.write");
  return (
    <>
      <PageHeader
        title="Reviews"
        subtitle="Queues of sessions handed to reviewers: open a queue to review its next session, annotate it, and go on to the next."
      />
      {queues.length === 0 ? (
        <EmptyState title="No review queues yet">
          {canWrite
            ? "Create a queue below, then add sessions to it from a session's page (Add to review queue) or through the API."
            : "People with the analyst role create review queues and add sessions to them."}
        </EmptyState>
      ) : (
        <DataTable
          label="Review queues"
          columns={["Queue", numberColumn("Pending"), numberColumn("Done"), numberColumn("Mine"), "By", "Created"]}
        >
          {queues.map((q) => (
            <tr key={q.id} className="hover:bg-slate-50" data-testid="review-queue-row">
              <td className="max-w-sm px-3 py-2">
                <Link href={`/reviews/${q.id}`} className="font-medium text-indigo-700 hover:underline">
                  {q.name}
                </Link>
                {q.description ? <p className="truncate text-xs text-slate-600">{q.description}</p> : null}
              </td>
              <td className="px-3 py-2 text-right tabular-nums">{q.counts.pending}</td>
              <td className="px-3 py-2 text-right tabular-nums">
                {q.counts.done} of {q.counts.total}
              </td>
              <td className="px-3 py-2 text-right tabular-nums">{q.counts.mine}</td>
              <td className="px-3 py-2 whitespace-nowrap text-slate-600">{q.createdBy}</td>
              <td className="px-3 py-2 text-xs whitespace-nowrap text-slate-500">
                {formatDateTime(new Date(q.createdAt))}
              </td>
            </tr>
          ))}
        </DataTable>
      )}
      {canWrite ? (
        <div className="mt-6">
          <NewReviewQueueForm />
        </div>
      ) : null}
    </>
  );
}
