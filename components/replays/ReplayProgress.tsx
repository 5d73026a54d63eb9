"use client";

import { useQuery } from "@tanstack/react-query";
import { useRouter } from "next/navigation";
import { useEffect, useState } from "react";
import { replayStateAction } from "@/app/(dashboard)/replays/actions";

/** While a replay runs: elapsed time, polled status, and a refresh of the page when it stops. */
export function ReplayProgress({
  replayId,
  startedAt,
  baseSteps,
}: {
  replayId: string;
  startedAt: string;
  baseSteps: number;
}) {
  const router = useRouter();
  const [now, setNow] = useState(() => Date.now());
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
    const timer = setInterval(() => setNow(Date.now()), 500);
    return () => clearInterval(timer);
  }, []);
  useEffect(() => {
    if (data && data.status !== "running") router.refresh();
  }, [data, router]);
  const seconds = Math.max(0, Math.round((now - Date.parse(startedAt)) / 1000));
  return (
    <div
      role="status"
      className="mb-6 flex items-center gap-3 rounded-lg border border-indigo-200 bg-indigo-50 px-4 py-3 text-sm text-indigo-900"
    >
      <span
        className="inline-block h-3 w-3 animate-spin rounded-full border-2 border-indigo-600 border-t-transparent"
        aria-hidden="true"
      />
      <span>
        Replaying {baseSteps} recorded steps… {seconds}s elapsed. You can leave this page; the branch keeps running.
      </span>
    </div>
  );
}
