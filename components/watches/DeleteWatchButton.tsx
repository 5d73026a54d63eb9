"use client";

import { deleteWatchAction } from "@/lib/actions/watches";
import { ConfirmButton } from "@/components/ui/ConfirmButton";
import { useActionForm } from "@/components/ui/useActionForm";

/** Deletes a watch (asks first); its investigations and reports stay. */
export function DeleteWatchButton({ watchId, name }: { watchId: string; name: string }) {
  const form = useActionForm();
  return (
    <span>
      <ConfirmButton
        native
        size="sm"
        question={`Delete the watch “${name}” and its delivery log? The investigations and reports it made stay.`}
        pending={form.pending}
        pendingLabel="Deleting…"
        onConfirm={() => form.run(() => deleteWatchAction({ watchId }))}
      >
        Delete…
      </ConfirmButton>
      {form.formError ? <span className="ml-2 text-xs text-rose-700">{form.formError}</span> : null}
    </span>
  );
}
