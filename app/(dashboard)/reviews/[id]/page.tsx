import type { Metadata } from "next";
import Link from "next/link";
import { DeleteReviewQueue } from "@/components/reviews/DeleteReviewQueue";
import { ReviewItemForm } from "@/components/reviews/ReviewItemForm";
import { Badge } from "@/components/ui/Badge";
import { buttonClass } from "@/components/ui/Button";
import { Card } from "@/components/ui/Card";
import { DataTable } from "@/components/ui/DataTable";
import { EmptyState } from "@/components/ui/EmptyState";
import { PageHeader } from "@/components/ui/PageHeader";
import { ProgressBar } from "@/components/ui/ProgressBar";
import { formatDateTime } from "@/lib/format";
import { orNotFound, pageContext } from "@/lib/http/page";
import { can } from "@/lib/server/authz";
import { getReviewPage, getReviewQueue, type ReviewItemView } from "@/lib/server/reviews/reviews";

export const dynamic = "force-dynamic";

type Props = { params: Promise<{ id: string }>; searchParams?: Promise<{ item?: string }> };

export async function generateMetadata({ params }: Props): Promise<Metadata> {
  const { id } = await params;
  const { principal, prisma } = await pageContext();
  const queue = await getReviewQueue(principal, { queueId: id }, prisma).catch(() => null);
  return { title: queue ? `${queue.name} · Reviews` : "Review queue not found" };
}

const STATUS_TONE = { pending: "neutral", done: "good", skipped: "warn" } as const;

function ItemStatus({ item }: { item: ReviewItemView }) {
  return <Badge tone={STATUS_TONE[item.status]}>{item.status}</Badge>;
}

export default async function ReviewQueuePage({ params, searchParams }: Props) {
  const [{ id }, query] = await Promise.all([params, searchParams ?? Promise.resolve({} as { item?: string })]);
  const { principal, prisma } = await pageContext();
  const itemId = typeof query.item === "string" && query.item.length <= 64 ? query.item : undefined;
  const page = await orNotFound(getReviewPage(principal, { queueId: id, itemId }, prisma));
  const { queue, current, annotations, items } = page;
  const { counts } = queue;
  const canWrite = can(principal, "notes.write");
  const mayDelete = canWrite && (principal.role === "admin" || queue.createdBy === principal.name);
  return (
    <>
      <PageHeader
        breadcrumbs={[{ href: "/reviews", label: "Reviews" }]}
        title={queue.name}
        subtitle={
          <span>
            {queue.description ? `${queue.description} · ` : ""}
            {queue.labels.length > 0 ? `Labels: ${queue.labels.join(", ")}` : "Any label"}
            {queue.askScore ? " · a score is asked" : ""} · by {queue.createdBy}
          </span>
        }
        actions={mayDelete ? <DeleteReviewQueue queueId={queue.id} name={queue.name} /> : null}
      />
      <Card className="mb-6" data-testid="review-progress">
        <p className="text-sm font-medium text-slate-900">
          {counts.done} of {counts.total} done
        </p>
        <ProgressBar label="Reviewed" value={counts.done} max={counts.total} />
        <p className="mt-2 text-xs text-slate-600">
          {counts.pending} pending · {counts.skipped} skipped · {counts.mine} assigned to you
        </p>
      </Card>
      {counts.total === 0 ? (
        <EmptyState title="This queue is empty" link={{ href: "/sessions", label: "Open the sessions" }}>
          Open a session and choose Add to review queue, or send its id to POST /api/v1/review-queues/{queue.id}/items
          with an API key.
        </EmptyState>
      ) : current === null ? (
        <EmptyState title="Nothing left for you to review">
          {counts.pending === 0
            ? "Every session in this queue is done or skipped. Add more sessions from their pages to review them."
            : `The ${counts.pending} pending ${counts.pending === 1 ? "session is" : "sessions are"} assigned to other reviewers.`}
        </EmptyState>
      ) : (
        <Card
          className="mb-6"
          title={current.status === "pending" ? "Review next" : `Reviewed: ${current.status}`}
          data-testid="review-current"
          actions={
            <Link href={`/sessions/${current.sessionId}`} className={buttonClass({ variant: "secondary", size: "sm" })}>
              Open the session
            </Link>
          }
        >
          <p className="text-base font-medium break-words text-slate-900">{current.session.label}</p>
          <p className="mt-1 flex flex-wrap items-center gap-2 text-xs text-slate-600">
            <span>{current.session.agent}</span>
            <span>{current.session.status}</span>
            {current.session.outcome === "failed" ? <Badge tone="bad">task failed</Badge> : null}
            <span>{current.assignee ? `assigned to ${current.assignee}` : "assigned to no one"}</span>
            <span>added by {current.addedBy}</span>
          </p>
          {annotations.length > 0 ? (
            <div className="mt-3">
              <h3 className="text-xs font-medium tracking-wide text-slate-500 uppercase">
                Annotations already on it ({annotations.length})
              </h3>
              <ul className="mt-1 flex flex-col gap-1 text-sm">
                {annotations.slice(-5).map((a) => (
                  <li key={a.id} className="text-slate-700">
                    {a.label ? <Badge tone="info">{a.label}</Badge> : null}{" "}
                    {a.score !== null ? <span className="tabular-nums">score {a.score}</span> : null}{" "}
                    {a.comment ? <span>{a.comment.slice(0, 200)}</span> : null}{" "}
                    <span className="text-xs text-slate-500">— {a.author}</span>
                  </li>
                ))}
              </ul>
            </div>
          ) : null}
          <div className="mt-4 border-t border-slate-200 pt-4">
            {current.status !== "pending" ? (
              <p className="text-sm text-slate-700">
                {current.status === "done" ? "Done" : "Skipped"} by {current.completedBy ?? "someone"}
                {current.completedAt ? ` on ${formatDateTime(current.completedAt)}` : ""}.{" "}
                <Link href={`/reviews/${queue.id}`} className="text-indigo-700 underline">
                  Go to the next pending session
                </Link>
              </p>
            ) : canWrite ? (
              <ReviewItemForm key={current.id} queue={queue} itemId={current.id} />
            ) : (
              <p className="text-sm text-slate-600">People with the analyst role review sessions; you can read them.</p>
            )}
          </div>
        </Card>
      )}
      {items.length > 0 ? (
        <>
          <h2 className="mt-6 mb-2 text-sm font-semibold text-slate-900">
            Sessions in this queue{counts.total > items.length ? ` (the first ${items.length} of ${counts.total})` : ""}
          </h2>
          <DataTable
            label="Sessions in this queue"
            columns={["Session", "Status", "Assigned to", "Added by", "Completed by"]}
          >
            {items.map((i) => (
              <tr
                key={i.id}
                className={i.id === current?.id ? "bg-indigo-50" : "hover:bg-slate-50"}
                data-testid="review-item-row"
              >
                <td className="max-w-xs truncate px-3 py-2">
                  <Link href={`/reviews/${queue.id}?item=${i.id}`} className="text-indigo-700 hover:underline">
                    {i.session.label}
                  </Link>
                </td>
                <td className="px-3 py-2">
                  <ItemStatus item={i} />
                </td>
                <td className="px-3 py-2 whitespace-nowrap text-slate-600">{i.assignee ?? "no one"}</td>
                <td className="px-3 py-2 whitespace-nowrap text-slate-600">{i.addedBy}</td>
                <td className="px-3 py-2 whitespace-nowrap text-slate-600">
                  {i.completedBy ? `${i.completedBy}, ${formatDateTime(i.completedAt)}` : "—"}
                </td>
              </tr>
            ))}
          </DataTable>
        </>
      ) : null}
    </>
  );
}
