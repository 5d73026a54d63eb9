"use client";

import { cancelInvestigationAction } from "@/lib/actions/investigations";
import { Button } from "@/components/ui/Button";
import { useActionForm } from "@/components/ui/useActionForm";

/** Stops the search before its next probe; the probes already run are kept. */
export function CancelInvestigationButton({ investigationId }: { investigationId: string }) {
  const form = useActionForm();
  return (
    <>
      <Button
        variant="secondary"
        disabled={form.pending}
        onClick={() => form.run(() => cancelInvestigationAction({ investigationId }))}
      >
        {form.pending ? "Stopping…" : "Stop after this probe"}
      </Button>
      {form.error ? <span className="text-sm text-rose-700">{form.error.message}</span> : null}
    </>
  );
}
