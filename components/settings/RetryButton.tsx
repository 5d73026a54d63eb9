"use client";

import { useRouter } from "next/navigation";
import { useState } from "react";
import { retryReplayAction } from "@/lib/actions/jobs";
import { Button } from "@/components/ui/Button";

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
      <Button variant="secondary" size="sm" onClick={retry} disabled={state === "busy"}>
        Retry
      </Button>
      {typeof state === "object" ? <span className="text-xs text-rose-700">{state.error}</span> : null}
    </span>
  );
}
