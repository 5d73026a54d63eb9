"use client";

import { useState } from "react";
import { attachCheckAction } from "@/lib/actions/checks";
import { Button } from "@/components/ui/Button";
import { Card } from "@/components/ui/Card";
import { Field, TextField, inputClass } from "@/components/ui/Field";
import { Notice } from "@/components/ui/Notice";
import { useActionForm } from "@/components/ui/useActionForm";

/** Attach a check to an agent: every session of it imported from now on is judged (LLM judges within a day's budget). */
export function AttachCheckForm({
  checkId,
  judge,
  agents,
}: {
  checkId: string;
  /** An LLM-judge check: it costs money to run, so it takes a budget. */
  judge: boolean;
  agents: readonly { id: string; name: string }[];
}) {
  const [agentId, setAgentId] = useState(agents[0]?.id ?? "");
  const [fromVersion, setFromVersion] = useState("");
  const [budget, setBudget] = useState("1");
  const [perCall, setPerCall] = useState("0.01");
  const [attached, setAttached] = useState<string | null>(null);
  const form = useActionForm();
  const money = (text: string) => (text.trim() === "" ? undefined : Number(text));

  function submit(event: React.FormEvent) {
    event.preventDefault();
    setAttached(null);
    form.run(
      () =>
        attachCheckAction({
          checkId,
          agentId,
          ...(fromVersion.trim() ? { fromVersion: fromVersion.trim() } : {}),
          ...(judge ? { dailyBudgetUsd: money(budget), judgeCallUsd: money(perCall) } : {}),
        }),
      (done) => setAttached(done.agentName),
    );
  }

  if (agents.length === 0)
    return (
      <Card title="Attach to an agent">
        <p className="text-sm text-slate-700">
          Import an agent&apos;s sessions first; then attach the check to it here.
        </p>
      </Card>
    );
  return (
    <Card title="Attach to an agent">
      <form onSubmit={submit} className="space-y-4" aria-label="Attach the check to an agent">
        <p className="text-sm text-slate-700">
          Every session of the agent imported from now on is judged by this check in the background. Sessions imported
          before are judged when you run a backfill.
        </p>
        <Field label="Agent" errors={form.fieldErrors("agentId")}>
          <select value={agentId} onChange={(e) => setAgentId(e.target.value)} className={inputClass}>
            {agents.map((a) => (
              <option key={a.id} value={a.id}>
                {a.name}
              </option>
            ))}
          </select>
        </Field>
        <TextField
          label="From version (optional)"
          hint="Judge this version and the ones first seen after it; empty judges every version."
          errors={form.fieldErrors("fromVersion")}
          value={fromVersion}
          maxLength={200}
          onValue={setFromVersion}
          inputClassName={`${inputClass} font-mono`}
        />
        {judge ? (
          <>
            <TextField
              label="Budget a day (US dollars)"
              hint="Once a day's judge calls reach it, further sessions are recorded as not judged until the next day (UTC)."
              errors={form.fieldErrors("dailyBudgetUsd")}
              value={budget}
              inputMode="decimal"
              onValue={setBudget}
            />
            <TextField
              label="Cost of one judge call (US dollars)"
              hint="What your model provider charges for one judged run, about; each call counts this much against the budget."
              errors={form.fieldErrors("judgeCallUsd")}
              value={perCall}
              inputMode="decimal"
              onValue={setPerCall}
            />
          </>
        ) : null}
        {form.formError ? <Notice tone="error">{form.formError}</Notice> : null}
        {attached ? <Notice tone="success">Attached to {attached}.</Notice> : null}
        <Button type="submit" disabled={form.pending}>
          {form.pending ? "Attaching…" : "Attach"}
        </Button>
      </form>
    </Card>
  );
}
