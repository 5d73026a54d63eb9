"use client";

import { useQuery } from "@tanstack/react-query";
import { useRouter } from "next/navigation";
import { useEffect, useRef } from "react";
import { experimentProgressAction } from "@/app/(dashboard)/experiments/actions";

/** While an experiment runs: a progress bar of replays done, polled; the page refreshes as results arrive. */
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
  useEffect(() => {
    if (!data) return;
    if (data.done !== shown.current || (data.status !== "running" && data.status !== "pending")) {
      shown.current = data.done;
      router.refresh();
    }
  }, [data, router]);
  const current = data?.done ?? done;
  const all = data?.total ?? total;
  const percent = all === 0 ? 0 : Math.round((current / all) * 100);
  return (
    <div
      role="status"
      className="mb-6 rounded-lg border border-indigo-200 bg-indigo-50 px-4 py-3 text-sm text-indigo-900"
    >
      <div className="flex items-center justify-between gap-4">
        <span>
          Replaying session {Math.min(current + 1, all)} of {all}… You can leave this page; the experiment keeps
          running.
        </span>
        <span className="tabular-nums" data-testid="experiment-progress-count">
          {current} / {all}
        </span>
      </div>
      <div
        className="mt-2 h-2 overflow-hidden rounded-full bg-indigo-100"
        role="progressbar"
        aria-label="Sessions replayed"
        aria-valuemin={0}
        aria-valuemax={all}
        aria-valuenow={current}
      >
        <div className="h-full rounded-full bg-indigo-600 transition-all" style={{ width: `${percent}%` }} />
      </div>
    </div>
  );
}
