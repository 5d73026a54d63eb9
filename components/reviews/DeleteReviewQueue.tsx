"use client";

import { useRouter } from "next/navigation";
import { deleteReviewQueueAction } from "@/lib/actions/reviews";
import { ConfirmButton } from "@/components/ui/ConfirmButton";
import { FormError } from "@/components/ui/FormParts";
import { useActionForm } from "@/components/ui/useActionForm";

/** Deletes the queue and its items, after asking; the sessions and their annotations stay. */
export function DeleteReviewQueue({ queueId, name }: { queueId: string; name: string }) {
  const router = useRouter();
  const form = useActionForm({ refresh: false });
  return (
    <>
      <ConfirmButton
        question={`Delete the review queue “${name}”?`}
        details="Its list of sessions goes; the sessions and the annotations written on them stay."
        confirmLabel="Delete queue"
        pendingLabel="Deleting…"
        pending={form.pending}
        onConfirm={() =>
          form.run(
            () => deleteReviewQueueAction({ queueId }),
            () => router.push("/reviews"),
          )
        }
      >
        Delete…
      </ConfirmButton>
      <FormError error={form.error} />
    </>
  );
}
