"use client";

import Link from "next/link";
import { useId, useRef, useState } from "react";
import { addToReviewQueueAction, reviewQueueChoicesAction } from "@/lib/actions/reviews";
import { Button } from "@/components/ui/Button";
import { CARD_CLASS } from "@/components/ui/Card";
import { Field, inputClass } from "@/components/ui/Field";
import { FormError } from "@/components/ui/FormParts";
import { useActionForm } from "@/components/ui/useActionForm";

type Choices = {
  queues: { id: string; name: string; holds: boolean }[];
  people: { email: string; name: string }[];
};

/** "Add to review queue": a dialog that puts this session in a queue, assigned to a team member or to no one. */
export function AddToReviewQueue({ sessionId }: { sessionId: string }) {
  const dialog = useRef<HTMLDialogElement>(null);
  const [choices, setChoices] = useState<Choices | null>(null);
  const [loadError, setLoadError] = useState<string | null>(null);
  const [added, setAdded] = useState<{ id: string; name: string; again: boolean } | null>(null);
  const form = useActionForm({ refresh: false });
  const titleId = useId();

  const show = () => {
    setAdded(null);
    form.reset();
    dialog.current?.showModal();
    reviewQueueChoicesAction({ sessionId })
      .then((r) => (r.ok ? setChoices(r.data) : setLoadError(r.error.message)))
      .catch(() => setLoadError("The review queues could not be read; try again."));
  };

  return (
    <>
      <Button variant="secondary" onClick={show} data-testid="add-to-review-queue">
        Add to review queue
      </Button>
      <dialog
        ref={dialog}
        aria-labelledby={titleId}
        className={`${CARD_CLASS} m-auto w-[min(28rem,calc(100vw-2rem))] p-0 text-slate-900 shadow-xl backdrop:bg-slate-900/40`}
      >
        <div className="border-b border-slate-200 px-4 py-3">
          <h2 id={titleId} className="text-base font-semibold">
            Add to a review queue
          </h2>
          <p className="mt-0.5 text-xs text-slate-600">A reviewer opens it from the queue and annotates it.</p>
        </div>
        <div className="px-4 py-3">
          {loadError ? (
            <p role="alert" className="text-sm text-rose-700">
              {loadError}
            </p>
          ) : choices === null ? (
            <p className="text-sm text-slate-600">Loading…</p>
          ) : choices.queues.length === 0 ? (
            <p className="text-sm text-slate-700">
              No review queue yet.{" "}
              <Link href="/reviews" className="text-indigo-700 underline">
                Create one on the Reviews page
              </Link>
              , then add this session to it.
            </p>
          ) : added ? (
            <p role="status" className="text-sm text-slate-800">
              {added.again ? "This session was already in " : "Added to "}
              <Link href={`/reviews/${added.id}`} className="font-medium text-indigo-700 underline">
                {added.name}
              </Link>
              .
            </p>
          ) : (
            <form
              className="grid gap-3"
              onSubmit={(e) => {
                e.preventDefault();
                const data = new FormData(e.currentTarget);
                const text = (name: string) => {
                  const v = data.get(name);
                  return typeof v === "string" ? v : "";
                };
                const queueId = text("queueId");
                const assignee = text("assignee");
                const queue = choices.queues.find((q) => q.id === queueId);
                form.run(
                  () => addToReviewQueueAction({ queueId, sessionIds: [sessionId], assigneeEmail: assignee || null }),
                  (r) => setAdded({ id: queueId, name: queue?.name ?? "the queue", again: r.added === 0 }),
                );
              }}
            >
              <Field label="Queue" errors={form.fieldErrors("queueId")}>
                <select name="queueId" className={inputClass} defaultValue={choices.queues.find((q) => !q.holds)?.id}>
                  {choices.queues.map((q) => (
                    <option key={q.id} value={q.id}>
                      {q.holds ? `${q.name} (already in it)` : q.name}
                    </option>
                  ))}
                </select>
              </Field>
              <Field label="Assign to" errors={form.fieldErrors("assigneeEmail")}>
                <select name="assignee" className={inputClass} defaultValue="">
                  <option value="">No one: any reviewer</option>
                  {choices.people.map((p) => (
                    <option key={p.email} value={p.email}>
                      {p.name && p.name !== p.email ? `${p.name} (${p.email})` : p.email}
                    </option>
                  ))}
                </select>
              </Field>
              <div>
                <Button type="submit" disabled={form.pending}>
                  {form.pending ? "Adding…" : "Add"}
                </Button>
                <FormError error={form.error} />
              </div>
            </form>
          )}
        </div>
        <div className="flex justify-end border-t border-slate-200 px-4 py-2">
          <Button variant="secondary" size="sm" onClick={() => dialog.current?.close()}>
            Close
          </Button>
        </div>
      </dialog>
    </>
  );
}
