"use client";

import Link from "next/link";
import { addAnnotationAction, deleteAnnotationAction } from "@/lib/actions/annotations";
import type { AnnotationView } from "@/lib/server/sessions/annotations";
import { Badge } from "@/components/ui/Badge";
import { Card } from "@/components/ui/Card";
import { NoteForm } from "@/components/notes/NoteForm";
import { formText } from "@/components/ui/FormParts";
import { NoteSignature, type NoteReader } from "@/components/notes/NoteSignature";
import { Field, inputClass } from "@/components/ui/Field";
import { useActionForm } from "@/components/ui/useActionForm";

/**
 * People's labels, scores and comments on this session and its steps, oldest first, each signed; a form adds
 * one. A label links to the sessions that carry it.
 */
export function SessionAnnotations({
  sessionId,
  steps,
  annotations,
  reader,
}: {
  sessionId: string;
  steps: number;
  annotations: AnnotationView[];
  reader: NoteReader;
}) {
  const form = useActionForm();
  return (
    <Card title={`Annotations (${annotations.length})`} className="mb-6" data-testid="annotations">
      {annotations.length === 0 ? (
        <p className="mb-3 text-sm text-slate-600">
          No annotation yet.{" "}
          {reader.canWrite
            ? "Label this run (a failure mode, “needs review”), score it, or leave a comment for the team; name a step to point at it."
            : "People with the analyst role can label, score and comment on runs."}
        </p>
      ) : (
        <ol className="mb-4 flex flex-col gap-3" aria-label="Annotations">
          {annotations.map((a) => (
            <li key={a.id} className="rounded-md border border-slate-200 p-3 text-sm" data-testid="annotation">
              <div className="flex flex-wrap items-center gap-2">
                {a.label ? (
                  <Link href={`/sessions?label=${encodeURIComponent(a.label)}`} title="Sessions with this label">
                    <Badge tone="info">{a.label}</Badge>
                  </Link>
                ) : null}
                {a.score !== null ? <span className="font-medium tabular-nums">score {a.score}</span> : null}
                {a.seq !== null ? (
                  <Link href={`/sessions/${sessionId}?step=${a.seq}`} className="text-indigo-700 hover:underline">
                    step {a.seq}
                  </Link>
                ) : (
                  <span className="text-slate-600">whole run</span>
                )}
                <NoteSignature
                  note={a}
                  what="annotation"
                  reader={reader}
                  pending={form.pending}
                  onDelete={() => form.run(() => deleteAnnotationAction({ sessionId, annotationId: a.id }))}
                />
              </div>
              {a.comment ? <p className="mt-1 whitespace-pre-wrap text-slate-800">{a.comment}</p> : null}
            </li>
          ))}
        </ol>
      )}
      {reader.canWrite ? (
        <NoteForm
          form={form}
          className="grid gap-3 sm:grid-cols-[minmax(0,12rem)_minmax(0,6rem)_minmax(0,6rem)]"
          submitClassName="sm:col-span-3"
          submit="Add annotation"
          add={(data) =>
            addAnnotationAction({
              sessionId,
              label: formText(data, "label"),
              score: formText(data, "score"),
              seq: formText(data, "seq"),
              comment: formText(data, "comment"),
            })
          }
        >
          <Field label="Label" errors={form.fieldErrors("label")}>
            <input name="label" maxLength={64} className={inputClass} placeholder="e.g. wrong refund" />
          </Field>
          <Field label="Score" errors={form.fieldErrors("score")}>
            <input name="score" inputMode="decimal" className={inputClass} />
          </Field>
          <Field label="Step" hint={`0–${steps - 1}; empty: the run`} errors={form.fieldErrors("seq")}>
            <input name="seq" inputMode="numeric" className={inputClass} />
          </Field>
          <Field label="Comment" className="sm:col-span-3" errors={form.fieldErrors("comment")}>
            <textarea name="comment" rows={2} maxLength={4000} className={inputClass} />
          </Field>
        </NoteForm>
      ) : null}
    </Card>
  );
}
