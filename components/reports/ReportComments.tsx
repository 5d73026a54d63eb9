"use client";

import { useRef } from "react";
import { addReportCommentAction, deleteReportCommentAction } from "@/lib/actions/reports";
import type { ReportCommentView } from "@/lib/server/reports/comments";
import { formatDateTime } from "@/lib/format";
import { Button } from "@/components/ui/Button";
import { Card } from "@/components/ui/Card";
import { ConfirmButton } from "@/components/ui/ConfirmButton";
import { Field, inputClass } from "@/components/ui/Field";
import { FormError } from "@/components/ui/FormParts";
import { useActionForm } from "@/components/ui/useActionForm";

/** The team's comments on a report, oldest first, each signed; the report's share link never shows them. */
export function ReportComments({
  reportId,
  comments,
  canWrite,
  me,
}: {
  reportId: string;
  comments: ReportCommentView[];
  canWrite: boolean;
  /** Who is reading: their own comments (and, for an admin, every one) can be deleted. */
  me: { name: string; admin: boolean };
}) {
  const form = useActionForm();
  const ref = useRef<HTMLFormElement>(null);
  return (
    <Card title={`Comments (${comments.length})`} data-testid="report-comments">
      {comments.length === 0 ? (
        <p className="text-sm text-slate-600">
          No comment yet. Comments stay with the team: the report&apos;s share link does not show them.
        </p>
      ) : (
        <ol className="mb-3 flex flex-col gap-2" aria-label="Comments">
          {comments.map((c) => (
            <li key={c.id} className="rounded-md border border-slate-200 p-2 text-sm" data-testid="report-comment">
              <div className="flex flex-wrap items-center gap-2 text-xs text-slate-600">
                <span>
                  {c.author} · {formatDateTime(c.createdAt)}
                </span>
                {canWrite && (me.admin || c.author === me.name) ? (
                  <span className="ml-auto">
                    <ConfirmButton
                      size="sm"
                      question="Delete this comment?"
                      confirmLabel="Delete"
                      pending={form.pending}
                      onConfirm={() => form.run(() => deleteReportCommentAction({ reportId, commentId: c.id }))}
                    >
                      Delete
                    </ConfirmButton>
                  </span>
                ) : null}
              </div>
              <p className="mt-1 break-words whitespace-pre-wrap text-slate-800">{c.body}</p>
            </li>
          ))}
        </ol>
      )}
      {canWrite ? (
        <form
          ref={ref}
          className="mt-3 flex flex-col gap-2"
          onSubmit={(e) => {
            e.preventDefault();
            const value = new FormData(e.currentTarget).get("body");
            form.run(
              () => addReportCommentAction({ reportId, body: typeof value === "string" ? value : "" }),
              () => ref.current?.reset(),
            );
          }}
        >
          <Field label="Comment" errors={form.fieldErrors("body")}>
            <textarea name="body" rows={3} maxLength={4000} className={inputClass} />
          </Field>
          <div>
            <Button type="submit" disabled={form.pending}>
              {form.pending ? "Adding…" : "Add comment"}
            </Button>
            <FormError error={form.error} />
          </div>
        </form>
      ) : null}
    </Card>
  );
}
