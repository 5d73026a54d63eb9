"use client";

import { useMemo, useState } from "react";
import { tryRuleAction } from "@/lib/actions/policies";
import { useActionForm } from "@/components/ui/useActionForm";
import type { RecordedCall } from "@/lib/db/policies";
import { plainPolicy, type Policy, type RuleExplanation } from "@/lib/replay";
import { TryRuleResult } from "./TryRuleResult";
import { Button } from "@/components/ui/Button";
import { Card } from "@/components/ui/Card";

/** Pick a recorded call of the agent and see what the current rule would return for it, and why it missed. */
export function TryRulePanel({
  agentId,
  calls,
  doc,
  disabled,
}: {
  agentId: string | null;
  calls: readonly RecordedCall[];
  doc: Policy;
  disabled: boolean;
}) {
  const [selected, setSelected] = useState(calls[0] ? `${calls[0].sessionId}:${calls[0].seq}` : "");
  const [result, setResult] = useState<RuleExplanation | null>(null);
  const form = useActionForm({ refresh: false });
  const bySession = useMemo(() => {
    const groups = new Map<string, RecordedCall[]>();
    for (const c of calls) groups.set(c.sessionId, [...(groups.get(c.sessionId) ?? []), c]);
    return [...groups.values()];
  }, [calls]);

  if (!agentId) {
    return (
      <section
        aria-label="Try a rule"
        className="rounded-lg border border-dashed border-slate-300 bg-white p-4 text-xs text-slate-600"
      >
        <h2 className="mb-1 text-sm font-semibold text-slate-900">Try a rule</h2>
        This policy has no agent, so there are no recorded calls to try. Create the policy for an agent to try its rules
        on that agent&apos;s sessions.
      </section>
    );
  }
  if (calls.length === 0) {
    return (
      <section
        aria-label="Try a rule"
        className="rounded-lg border border-dashed border-slate-300 bg-white p-4 text-xs text-slate-600"
      >
        <h2 className="mb-1 text-sm font-semibold text-slate-900">Try a rule</h2>
        The agent&apos;s sessions have no tool calls yet. Import a session with tool calls to try rules on them.
      </section>
    );
  }

  const run = () => {
    const [sessionId, seq] = selected.split(":");
    if (!sessionId || seq === undefined) return;
    form.reset();
    form.run(() => tryRuleAction({ agentId, document: plainPolicy(doc), sessionId, seq: Number(seq) }), setResult);
  };

  return (
    <Card aria-label="Try a rule">
      <h2 className="mb-1 text-sm font-semibold text-slate-900">Try a rule</h2>
      <p className="mb-2 text-xs text-slate-600">
        What the editor&apos;s current rule would return for a recorded call, tried as the occurrence it had in its
        session. Nothing runs live.
      </p>
      <div className="flex flex-wrap items-center gap-2">
        <select
          aria-label="Recorded call"
          className="min-w-0 flex-1 rounded-md border border-slate-300 bg-white px-2 py-1.5 text-xs"
          value={selected}
          onChange={(e) => setSelected(e.target.value)}
        >
          {bySession.map((group) => (
            <optgroup key={group[0]!.sessionId} label={group[0]!.sessionTitle}>
              {group.map((c) => (
                <option key={`${c.sessionId}:${c.seq}`} value={`${c.sessionId}:${c.seq}`}>
                  #{c.seq} {c.tool}
                  {c.occurrence ? ` (repeat #${c.occurrence + 1})` : ""}{" "}
                  {c.status === "failed" ? "· failed " : c.status === "incomplete" ? "· never finished " : ""}
                  {c.argsPreview}
                </option>
              ))}
            </optgroup>
          ))}
        </select>
        <Button disabled={disabled || form.pending} onClick={run} size="sm">
          {form.pending ? "Trying…" : "Try"}
        </Button>
      </div>
      {disabled ? (
        <p className="mt-2 text-xs text-amber-800">
          Fix the JSON first: the rule is tried on the editor&apos;s document.
        </p>
      ) : null}
      {form.error ? (
        <p role="alert" className="mt-2 text-xs text-rose-700">
          {form.error.message}
        </p>
      ) : null}
      {result && !form.error ? <TryRuleResult result={result} /> : null}
    </Card>
  );
}
