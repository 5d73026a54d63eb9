"use client";

import { useRouter } from "next/navigation";
import type { ReactNode } from "react";
import type { ActionResult } from "@/lib/http/action";
import { ConfirmButton } from "./ConfirmButton";
import { FormError } from "./FormParts";
import { useActionForm, type ActionFormError } from "./useActionForm";

/**
 * "Delete…" on a record's page: asks in the page, deletes, then goes to `to` (the list it was in). What went wrong
 * shows after the button, as `showError` shows it (beside it, unless told).
 */
export function DeleteAndLeave({
  question,
  details,
  confirmLabel,
  action,
  to,
  showError = (error) => <FormError error={error} />,
}: {
  question: string;
  details: ReactNode;
  confirmLabel: string;
  action: () => Promise<ActionResult<unknown>>;
  to: string;
  showError?: (error: ActionFormError) => ReactNode;
}) {
  const router = useRouter();
  const form = useActionForm({ refresh: false });
  return (
    <>
      <ConfirmButton
        question={question}
        details={details}
        confirmLabel={confirmLabel}
        pendingLabel="Deleting…"
        pending={form.pending}
        onConfirm={() => form.run(action, () => router.push(to))}
      >
        Delete…
      </ConfirmButton>
      {form.error ? showError(form.error) : null}
    </>
  );
}
