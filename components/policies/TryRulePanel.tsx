"use client";

import { useMemo, useState, useTransition } from "react";
import { tryRuleAction } from "@/lib/actions/policies";
import { JsonBlock } from "@/components/ui/JsonBlock";
import type { RecordedCall } from "@/lib/db/policies";
import { formatPath, plainPolicy, type Policy, type RuleExplanation } from "@/lib/replay";
import { pathLabel } from "./issues";
import { Button } from "@/components/ui/Button";
import { Card } from "@/components/ui/Card";

const VERDICT_TEXT: Record<RuleExplanation["verdict"]["type"], string> = {
  answer: "Answers",
  stop: "Stops the replay",
  pause: "Pauses for a fixture",
  awaiting_approval: "Waits for approval",
  would_run_live: "Would run live",
};

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
  const [error, setError] = useState<string | null>(null);
  const [pending, start] = useTransition();
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
    setError(null);
    start(async () => {
      const r = await tryRuleAction({ agentId, document: plainPolicy(doc), sessionId, seq: Number(seq) });
      if (r.ok) setResult(r.data);
      else {
        setResult(null);
        setError(r.error.message);
      }
    });
  };

  const v = result?.verdict;
  const miss = v && "miss" in v ? v.miss : null;
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
        <Button disabled={disabled || pending} onClick={run} size="sm">
          {pending ? "Trying…" : "Try"}
        </Button>
      </div>
      {disabled ? (
        <p className="mt-2 text-xs text-amber-800">
          Fix the JSON first: the rule is tried on the editor&apos;s document.
        </p>
      ) : null}
      {error ? (
        <p role="alert" className="mt-2 text-xs text-rose-700">
          {error}
        </p>
      ) : null}
      {result && v ? (
        <div className="mt-3 space-y-2 text-xs" data-testid="try-result">
          <div>
            <span className="font-semibold text-slate-900" data-testid="try-verdict">
              {VERDICT_TEXT[v.type]}
            </span>{" "}
            <span className="text-slate-600">
              by the rule at <code className="font-mono">{pathLabel(result.rulePath)}</code> ({result.rule.type}) ·
              occurrence {result.occurrence}
            </span>
          </div>
          {result.note ? (
            <p className="text-slate-700" data-testid="try-note">
              {result.note}
            </p>
          ) : null}
          {v.type === "answer" ? (
            <div className="grid grid-cols-1 gap-2 md:grid-cols-2">
              <div className="text-slate-600">
                Source: <strong>{v.source}</strong>
                {v.recordedSeq !== null ? ` (recorded step #${v.recordedSeq})` : ""}
              </div>
              <JsonBlock value={v.error ?? v.output} label={v.error ? "Error" : "Result"} />
            </div>
          ) : null}
          {v.type === "stop" || v.type === "awaiting_approval" ? <p className="text-slate-700">{v.message}</p> : null}
          {miss ? (
            <div className="rounded border border-amber-200 bg-amber-50 p-2 text-amber-950" data-testid="try-miss">
              <div className="font-semibold">Miss: {miss.message}</div>
              {miss.staticCases && miss.staticCases.length > 0 ? (
                <ul className="mt-1 list-disc pl-5">
                  {miss.staticCases.map((c) => (
                    <li key={c.index}>
                      case {c.index + 1} ({c.matchMode}):{" "}
                      {c.notAnObject
                        ? "the arguments are not an object"
                        : `differs at ${c.differingPaths.map((p) => formatPath(p)).join(", ") || "—"}`}
                    </li>
                  ))}
                </ul>
              ) : null}
              {miss.closest.length > 0 ? (
                <div className="mt-1">
                  Closest recorded calls:
                  <ul className="list-disc pl-5">
                    {miss.closest.map((c) => (
                      <li key={c.seq}>
                        step #{c.seq} ({c.status}) differs at{" "}
                        {c.differingPaths.map((p) => formatPath(p)).join(", ") || "no argument (same call)"}
                      </li>
                    ))}
                  </ul>
                </div>
              ) : null}
            </div>
          ) : null}
        </div>
      ) : null}
    </Card>
  );
}
