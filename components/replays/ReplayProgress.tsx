"use client";

import { useQuery } from "@tanstack/react-query";
import { useRouter } from "next/navigation";
import { useEffect, useState } from "react";
import { cancelReplayAction, replayStateAction } from "@/lib/actions/replays";
import { ProgressBar } from "@/components/ui/ProgressBar";
import { Button } from "@/components/ui/Button";

/**
 * While a replay waits for a worker or runs: step N of M with a bar (the
 * engine's progress over the base run), polled; a cancel button; a refresh of
 * the page when it stops.
 */
export function ReplayProgress({
  replayId,
  driver = "server",
  stepCount = 0,
  status,
  baseSteps,
  progress,
  cancelRequested,
}: {
  replayId: string;
  /** "agent": the user's own agent drives the branch; its steps are shown as they arrive. */
  driver?: string;
  stepCount?: number;
  status: string;
  baseSteps: number;
  progress: { done: number; total: number } | null;
  cancelRequested: boolean;
}) {
  const router = useRouter();
  const [cancelError, setCancelError] = useState<string | null>(null);
  const [cancelling, setCancelling] = useState(cancelRequested);
  const { data } = useQuery({
    queryKey: ["replay-state", replayId],
    queryFn: async () => {
      const result = await replayStateAction({ replayId });
      if (!result.ok) throw new Error(result.error.message);
      return result.data;
    },
    refetchInterval: 800,
  });
  useEffect(() => {
    if (!data) return;
    const active = data.status === "running" || data.status === "queued" || data.status === "waiting_for_agent";
    // An agent's steps arrive one call at a time: the page is read again as each lands.
    if (!active || (driver === "agent" && data.stepCount !== stepCount)) router.refresh();
  }, [data, router, driver, stepCount]);
  if (driver === "agent") return <AgentProgress status={data?.status ?? status} steps={data?.stepCount ?? stepCount} />;
  const current = data?.status ?? status;
  const p = data ? data.progress : progress;
  const done = p?.done ?? 0;
  const total = p?.total ?? baseSteps;
  const stopping = cancelling || Boolean(data?.cancelRequested);
  async function cancel() {
    setCancelError(null);
    setCancelling(true);
    const result = await cancelReplayAction({ replayId });
    if (!result.ok) {
      setCancelling(false);
      setCancelError(result.error.message);
    } else router.refresh();
  }
  return (
    <div
      role="status"
      className="mb-6 rounded-lg border border-indigo-200 bg-indigo-50 px-4 py-3 text-sm text-indigo-900"
    >
      <div className="flex flex-wrap items-center justify-between gap-3">
        <span data-testid="replay-progress-text">
          {current === "queued"
            ? "Waiting for a worker…"
            : stopping
              ? `Stopping at the next step… step ${done} of ${total}.`
              : `Replaying: step ${done} of ${total}.`}{" "}
          You can leave this page; the branch keeps going.
        </span>
        <Button variant="accent" onClick={cancel} disabled={stopping}>
          {stopping ? "Cancelling…" : "Cancel"}
        </Button>
      </div>
      <ProgressBar label="Base steps replayed" value={done} max={total} />
      {cancelError ? <p className="mt-2 text-rose-800">{cancelError}</p> : null}
    </div>
  );
}

/** An agent-driven branch while it is open: waiting for the agent's first call, then its steps so far. */
function AgentProgress({ status, steps }: { status: string; steps: number }) {
  return (
    <div
      role="status"
      className="mb-6 rounded-lg border border-indigo-200 bg-indigo-50 px-4 py-3 text-sm text-indigo-900"
    >
      <span data-testid="replay-progress-text">
        {status === "waiting_for_agent"
          ? "Waiting for your agent's first call… Point it at this branch with the variables shown when you started it."
          : `Your agent is running: ${steps} ${steps === 1 ? "step" : "steps"} so far. They appear below as they arrive.`}
      </span>
    </div>
  );
}
