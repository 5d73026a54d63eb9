"use client";

import { detachCheckAction, startBackfillAction } from "@/lib/actions/checks";
import { Button } from "@/components/ui/Button";
import { ConfirmButton } from "@/components/ui/ConfirmButton";
import { useActionForm } from "@/components/ui/useActionForm";

/** An attachment's buttons: judge the agent's older sessions (a backfill), or detach. */
export function AttachmentActions({
  checkId,
  agentId,
  agentName,
  backfillRunning,
}: {
  checkId: string;
  agentId: string;
  agentName: string;
  backfillRunning: boolean;
}) {
  const backfill = useActionForm();
  const detach = useActionForm();
  return (
    <div className="flex flex-wrap items-center gap-2">
      <Button
        size="sm"
        variant="secondary"
        disabled={backfill.pending || backfillRunning}
        onClick={() => backfill.run(() => startBackfillAction({ checkId, agentId }))}
      >
        {backfill.pending ? "Starting…" : "Judge older sessions"}
      </Button>
      <ConfirmButton
        size="sm"
        native
        question={`Detach this check from ${agentName}? Sessions imported from now on are not judged by it; its verdicts stay.`}
        pending={detach.pending}
        pendingLabel="Detaching…"
        onConfirm={() => detach.run(() => detachCheckAction({ checkId, agentId }))}
      >
        Detach…
      </ConfirmButton>
      {backfill.formError || detach.formError ? (
        <p role="alert" className="w-full text-xs text-rose-700">
          {backfill.formError ?? detach.formError}
        </p>
      ) : null}
    </div>
  );
}
