"use client";

import { useRef, type ReactNode } from "react";
import type { ActionResult } from "@/lib/http/action";
import { Button } from "@/components/ui/Button";
import { FormError } from "@/components/ui/FormParts";
import type { useActionForm } from "@/components/ui/useActionForm";

/**
 * The form that adds a note (a report comment, an annotation): its fields, then the submit button and what the
 * server said that belongs to no field. `add` sends the form's data; once it is added the form empties.
 */
export function NoteForm<T>({
  form,
  add,
  submit,
  className,
  submitClassName,
  children,
}: {
  form: ReturnType<typeof useActionForm>;
  add: (data: FormData) => Promise<ActionResult<T>>;
  /** The button's words, e.g. "Add comment" ("Adding…" while it is sent). */
  submit: string;
  className: string;
  submitClassName?: string;
  children: ReactNode;
}) {
  const ref = useRef<HTMLFormElement>(null);
  return (
    <form
      ref={ref}
      className={className}
      onSubmit={(e) => {
        e.preventDefault();
        const data = new FormData(e.currentTarget);
        form.run(
          () => add(data),
          () => ref.current?.reset(),
        );
      }}
    >
      {children}
      <div className={submitClassName}>
        <Button type="submit" disabled={form.pending}>
          {form.pending ? "Adding…" : submit}
        </Button>
        <FormError error={form.error} />
      </div>
    </form>
  );
}
