"use client";

import { removeReportEvidenceAction } from "@/lib/actions/reports";
import { Button } from "@/components/ui/Button";
import { useActionForm } from "@/components/ui/useActionForm";

/** Takes one item of added evidence out of a draft report. */
export function RemoveEvidenceButton({ reportId, evidenceId }: { reportId: string; evidenceId: string }) {
  const form = useActionForm();
  return (
    <span className="inline-flex items-center gap-2">
      <Button
        variant="secondary"
        size="sm"
        disabled={form.pending}
        onClick={() => form.run(() => removeReportEvidenceAction({ reportId, evidenceId }))}
      >
        {form.pending ? "Removing…" : "Remove"}
      </Button>
      {form.error ? (
        <span role="alert" className="text-xs text-rose-700">
          {form.error.message}
        </span>
      ) : null}
    </span>
  );
}
