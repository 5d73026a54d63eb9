"use client";

import { useRouter } from "next/navigation";
import { useEffect } from "react";

/** While trials run: how many finished, and the page refreshed every second until all have. */
export function TrialsProgress({ finished, n }: { finished: number; n: number }) {
  const router = useRouter();
  useEffect(() => {
    if (finished >= n) return;
    const timer = setInterval(() => router.refresh(), 1000);
    return () => clearInterval(timer);
  }, [finished, n, router]);
  if (finished >= n) return null;
  return (
    <div
      role="status"
      data-testid="trials-progress"
      className="mb-6 rounded-lg border border-indigo-200 bg-indigo-50 px-4 py-3 text-sm text-indigo-900"
    >
      Running trials: {finished} of {n} finished. The figures below update as they do.
    </div>
  );
}
