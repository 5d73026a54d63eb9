"use client";

import { addReportCommentAction, deleteReportCommentAction } from "@/lib/actions/reports";
import type { ReportCommentView } from "@/lib/server/reports/comments";
import { Card } from "@/components/ui/Card";
import { NoteForm } from "@/components/notes/NoteForm";
import { formText } from "@/components/ui/FormParts";
import { NoteSignature, type NoteReader } from "@/components/notes/NoteSignature";
import { Field, inputClass } from "@/components/ui/Field";
import { useActionForm } from "@/components/ui/useActionForm";

/** The team's comments on a report, oldest first, each signed; the report's share link never shows them. */
export function ReportComments({
  reportId,
  comments,
  reader,
}: {
  reportId: string;
  comments: ReportCommentView[];
  reader: NoteReader;
}) {
  const form = useActionForm();
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
              <div className="flex flex-wrap items-center gap-2">
                <NoteSignature
                  note={c}
                  what="comment"
                  reader={reader}
                  pending={form.pending}
                  onDelete={() => form.run(() => deleteReportCommentAction({ reportId, commentId: c.id }))}
                />
              </div>
              <p className="mt-1 break-words whitespace-pre-wrap text-slate-800">{c.body}</p>
            </li>
          ))}
        </ol>
      )}
      {reader.canWrite ? (
        <NoteForm
          form={form}
          className="mt-3 flex flex-col gap-2"
          submit="Add comment"
          add={(data) => addReportCommentAction({ reportId, body: formText(data, "body") })}
        >
          <Field label="Comment" errors={form.fieldErrors("body")}>
            <textarea name="body" rows={3} maxLength={4000} className={inputClass} />
          </Field>
        </NoteForm>
      ) : null}
    </Card>
  );
}
