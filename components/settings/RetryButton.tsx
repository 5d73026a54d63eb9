"use client";

import { useRouter } from "next/navigation";
import { useState } from "react";
import { retryReplayAction } from "@/lib/actions/jobs";

export function RetryButton({ replayId }: { replayId: string }) {
  const router = useRouter();
  const [state, setState] = useState<"idle" | "busy" | { error: string }>("idle");
  async function retry() {
    setState("busy");
    const result = await retryReplayAction({ replayId });
    if (!result.ok) setState({ error: result.error.message });
    else {
      setState("idle");
      router.refresh();
    }
  }
  return (
    <span className="flex items-center gap-2">
      <button
        type="button"
        onClick={retry}
        disabled={state === "busy"}
        className="rounded-md border border-slate-300 bg-white px-2 py-1 text-xs font-medium text-slate-800 hover:bg-slate-50 disabled:opacity-50"
      >
        Retry
      </button>
      {typeof state === "object" ? <span className="text-xs text-rose-700">{state.error}</span> : null}
    </span>
  );
}
