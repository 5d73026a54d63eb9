"use client";

import { useRouter } from "next/navigation";
import { useId } from "react";
import { completeReviewAction, setReviewStatusAction } from "@/lib/actions/reviews";
import { Button } from "@/components/ui/Button";
import { Field, inputClass } from "@/components/ui/Field";
import { FormError } from "@/components/ui/FormParts";
import { useActionForm } from "@/components/ui/useActionForm";

/**
 * The review of one item: an annotation on its session (a label from the queue's, a score when the queue asks for
 * one, a comment) that marks it done, or Skip; either way the page moves on to the next item.
 */
export function ReviewItemForm({
  queue: { id: queueId, labels, askScore },
  itemId,
}: {
  /** The queue: its labels to choose from, and whether it asks for a score. */
  queue: { id: string; labels: string[]; askScore: boolean };
  itemId: string;
}) {
  const router = useRouter();
  const form = useActionForm({ refresh: false });
  const legendId = useId();
  const next = () => {
    router.replace(`/reviews/${queueId}`);
    router.refresh();
  };
  const text = (data: FormData, name: string) => {
    const v = data.get(name);
    return typeof v === "string" ? v : "";
  };
  return (
    <form
      className="grid gap-3 sm:grid-cols-[minmax(0,1fr)_minmax(0,8rem)]"
      aria-label="Review"
      onSubmit={(e) => {
        e.preventDefault();
        const data = new FormData(e.currentTarget);
        form.run(
          () =>
            completeReviewAction({
              queueId,
              itemId,
              label: text(data, "label"),
              score: text(data, "score"),
              comment: text(data, "comment"),
            }),
          next,
        );
      }}
    >
      {labels.length > 0 ? (
        <fieldset aria-labelledby={legendId}>
          <legend id={legendId} className="mb-1 text-sm font-medium text-slate-700">
            Label
          </legend>
          <div className="flex flex-wrap gap-2">
            {labels.map((l) => (
              <label
                key={l}
                className="flex cursor-pointer items-center gap-1.5 rounded-md border border-slate-300 px-2 py-1 text-sm has-[:checked]:border-indigo-500 has-[:checked]:bg-indigo-50"
              >
                <input type="radio" name="label" value={l} required className="h-4 w-4" />
                {l}
              </label>
            ))}
          </div>
          {form.fieldErrors("label") ? (
            <p className="mt-1 text-xs text-rose-700">{form.fieldErrors("label")!.join(" ")}</p>
          ) : null}
        </fieldset>
      ) : (
        <Field label="Label" errors={form.fieldErrors("label")}>
          <input name="label" maxLength={64} className={inputClass} placeholder="e.g. wrong refund" />
        </Field>
      )}
      <Field label={askScore ? "Score (asked)" : "Score"} errors={form.fieldErrors("score")}>
        <input name="score" inputMode="decimal" required={askScore} className={inputClass} />
      </Field>
      <Field label="Comment" className="sm:col-span-2" errors={form.fieldErrors("comment")}>
        <textarea name="comment" rows={3} maxLength={4000} className={inputClass} />
      </Field>
      <div className="flex flex-wrap items-center gap-2 sm:col-span-2">
        <Button type="submit" disabled={form.pending}>
          {form.pending ? "Saving…" : "Done, next"}
        </Button>
        <Button
          variant="secondary"
          disabled={form.pending}
          onClick={() => form.run(() => setReviewStatusAction({ queueId, itemId, status: "skipped" }), next)}
        >
          Skip
        </Button>
        <FormError error={form.error} />
      </div>
    </form>
  );
}
