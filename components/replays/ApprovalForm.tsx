"use client";

import { useState } from "react";
import { decideApprovalAction } from "@/lib/actions/replays";
import { Button } from "@/components/ui/Button";
import { useActionForm } from "@/components/ui/useActionForm";

/** Approve or deny one live call of a side-effecting tool. The decision is recorded with who and when. */
export function ApprovalForm({ replayId, callId, tool }: { replayId: string; callId: string; tool: string }) {
  const [note, setNote] = useState("");
  const { pending, error, run } = useActionForm();
  const problem = error?.message ?? null;
  const decide = (decision: "approved" | "denied") =>
    run(() => decideApprovalAction({ replayId, callId, decision, note }));
  return (
    <div className="space-y-3">
      <label className="block text-sm">
        <span className="font-medium text-slate-700">Note</span>{" "}
        <span className="text-slate-500">(optional, kept with the decision)</span>
        <input
          value={note}
          onChange={(e) => setNote(e.target.value)}
          className="mt-1 block w-full rounded-md border border-slate-300 px-3 py-1.5 text-sm"
        />
      </label>
      {problem ? (
        <p role="alert" className="text-sm text-rose-700">
          {problem}
        </p>
      ) : null}
      <div className="flex gap-2">
        <Button disabled={pending} onClick={() => decide("approved")} variant="danger">
          Approve: run {tool} live
        </Button>
        <Button disabled={pending} onClick={() => decide("denied")} variant="secondary">
          Deny (the agent gets a tool error)
        </Button>
      </div>
    </div>
  );
}
