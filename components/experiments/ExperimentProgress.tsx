"use client";

import { useQuery } from "@tanstack/react-query";
import { useRouter } from "next/navigation";
import { useEffect, useRef, useState } from "react";
import { cancelExperimentAction, experimentProgressAction } from "@/lib/actions/experiments";
import { ProgressBar } from "@/components/ui/ProgressBar";
import { Button } from "@/components/ui/Button";

/** While an experiment runs: a progress bar of sessions done, polled; a cancel button; the page refreshes as results arrive. */
export function ExperimentProgress({
  experimentId,
  done,
  total,
}: {
  experimentId: string;
  done: number;
  total: number;
}) {
  const router = useRouter();
  const { data } = useQuery({
    queryKey: ["experiment-progress", experimentId],
    queryFn: async () => {
      const result = await experimentProgressAction({ experimentId });
      if (!result.ok) throw new Error(result.error.message);
      return result.data;
    },
    refetchInterval: 1000,
  });
  const shown = useRef(done);
  const [cancelling, setCancelling] = useState(false);
  const [cancelError, setCancelError] = useState<string | null>(null);
  async function cancel() {
    setCancelling(true);
    setCancelError(null);
    const result = await cancelExperimentAction({ experimentId });
    if (!result.ok) {
      setCancelling(false);
      setCancelError(result.error.message);
    } else router.refresh();
  }
  useEffect(() => {
    if (!data) return;
    if (data.done !== shown.current || (data.status !== "running" && data.status !== "pending")) {
      shown.current = data.done;
      router.refresh();
    }
  }, [data, router]);
  const current = data?.done ?? done;
  const all = data?.total ?? total;
  return (
    <div
      role="status"
      className="mb-6 rounded-lg border border-indigo-200 bg-indigo-50 px-4 py-3 text-sm text-indigo-900"
    >
      <div className="flex items-center justify-between gap-4">
        <span>
          {cancelling
            ? "Cancelling: sessions not started are dropped, running ones stop at their next step…"
            : `${current} of ${all} sessions done. You can leave this page; the workers keep going.`}
        </span>
        <span className="flex items-center gap-3">
          <span className="tabular-nums" data-testid="experiment-progress-count">
            {current} / {all}
          </span>
          <Button variant="accent" onClick={cancel} disabled={cancelling}>
            {cancelling ? "Cancelling…" : "Cancel"}
          </Button>
        </span>
      </div>
      <ProgressBar label="Sessions replayed" value={current} max={all} />
      {cancelError ? <p className="mt-2 text-rose-800">{cancelError}</p> : null}
    </div>
  );
}
