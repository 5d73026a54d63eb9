"use client";

import { useRouter } from "next/navigation";
import { startInvestigationAction } from "@/lib/actions/investigations";
import { Button } from "@/components/ui/Button";
import { useActionForm } from "@/components/ui/useActionForm";

/** Starts a minimisation of this branch's edits under its own checks (one trial per probe). */
export function MinimizeButton({ replayId }: { replayId: string }) {
  const router = useRouter();
  const form = useActionForm({ refresh: false });
  return (
    <span className="inline-flex flex-col items-end gap-1">
      <Button
        variant="secondary"
        disabled={form.pending}
        onClick={() =>
          form.run(
            () => startInvestigationAction({ kind: "minimize", replayId }),
            (created) => router.push(`/investigations/${created.id}`),
          )
        }
      >
        {form.pending ? "Starting…" : "Find the smallest fixing change"}
      </Button>
      {form.error ? (
        <span role="alert" className="max-w-xs text-xs text-rose-700">
          {form.error.message}
        </span>
      ) : null}
    </span>
  );
}
