"use client";

import { deleteReviewQueueAction } from "@/lib/actions/reviews";
import { DeleteAndLeave } from "@/components/ui/DeleteAndLeave";

/** Deletes the queue and its items, after asking; the sessions and their annotations stay. */
export function DeleteReviewQueue({ queueId, name }: { queueId: string; name: string }) {
  return (
    <DeleteAndLeave
      question={`Delete the review queue “${name}”?`}
      details="Its list of sessions goes; the sessions and the annotations written on them stay."
      confirmLabel="Delete queue"
      action={() => deleteReviewQueueAction({ queueId })}
      to="/reviews"
    />
  );
}
