"use client";

import { useRouter } from "next/navigation";
import { useState } from "react";
import { startInvestigationAction } from "@/lib/actions/investigations";
import { CheckPicker, type CheckChoice } from "@/components/checks/CheckPicker";
import { Button } from "@/components/ui/Button";
import { Card } from "@/components/ui/Card";
import { Field, TextField, inputClass } from "@/components/ui/Field";
import { Notice } from "@/components/ui/Notice";
import { useActionForm } from "@/components/ui/useActionForm";

/**
 * Start a blame search: the checks the run fails, trials per probe and the share that counts as a fix. The
 * cost bound is shown before anything runs, and follows the trials typed.
 */
export function BlameForm({
  sessionId,
  checks,
  modelSteps,
  probeBound,
  liveCallsPerTrial,
  modelEndpoints,
}: {
  sessionId: string;
  checks: readonly CheckChoice[];
  modelSteps: number;
  probeBound: number;
  liveCallsPerTrial: number;
  modelEndpoints: readonly { id: string; name: string; model: string }[];
}) {
  const hasModelEndpoint = modelEndpoints.length > 0;
  const [endpoint, setEndpoint] = useState("");
  const router = useRouter();
  const form = useActionForm({ refresh: false });
  const [checkIds, setCheckIds] = useState<string[]>([]);
  const [trials, setTrials] = useState("3");
  const [share, setShare] = useState("50");
  const t = Number(trials);
  const replays = Number.isInteger(t) && t > 0 ? probeBound * t : null;

  function submit(event: React.FormEvent) {
    event.preventDefault();
    form.run(
      () =>
        startInvestigationAction({
          kind: "blame",
          sessionId,
          checks: checkIds,
          trials: Number(trials),
          share: Number(share) / 100,
          ...(endpoint ? { modelEndpoint: endpoint } : {}),
        }),
      (created) => router.push(`/investigations/${created.id}`),
    );
  }

  return (
    <Card title="Which step decided the failure?">
      <form onSubmit={submit} className="space-y-4" aria-label="Start a blame search">
        <p className="text-sm text-slate-700">
          Re-runs the model live from a chosen step on (everything before it as recorded) and asks whether the run now
          passes. It tries the first step, then halves the range, so {modelSteps} model step
          {modelSteps === 1 ? "" : "s"} need at most {probeBound} probe{probeBound === 1 ? "" : "s"}. The answer is the
          last step from which re-running still fixes the run: the decision there made it fail.
        </p>
        {hasModelEndpoint ? null : (
          <Notice tone="warning">
            No model endpoint is configured, so the model cannot run live.{" "}
            <a href="/settings/executors" className="font-medium underline">
              Configure one in the executor settings
            </a>
            .
          </Notice>
        )}
        <div>
          <span className="text-sm font-medium text-slate-900">Outcome checks the run fails</span>
          <CheckPicker checks={checks} selected={checkIds} onChange={setCheckIds} legend="A fix passes all of:" />
          {form.fieldErrors("checks")?.map((m) => (
            <p key={m} className="mt-1 text-xs text-rose-700">
              {m}
            </p>
          ))}
        </div>
        <div className="grid gap-4 sm:grid-cols-2">
          <TextField
            label="Trials per probe"
            hint="The live model may answer differently each time."
            errors={form.fieldErrors("trials")}
            value={trials}
            inputMode="numeric"
            onValue={setTrials}
          />
          <TextField
            label="Share of trials that must pass (%)"
            errors={form.fieldErrors("share")}
            value={share}
            inputMode="numeric"
            onValue={setShare}
          />
        </div>
        {modelEndpoints.length > 1 ? (
          <Field
            label="Model endpoint"
            hint="By default, the one serving the recorded model."
            errors={form.fieldErrors("modelEndpoint")}
          >
            <select value={endpoint} onChange={(e) => setEndpoint(e.target.value)} className={inputClass}>
              <option value="">Automatic</option>
              {modelEndpoints.map((m) => (
                <option key={m.id} value={m.name}>
                  {m.name} ({m.model})
                </option>
              ))}
            </select>
          </Field>
        ) : null}
        <p className="rounded-md bg-slate-50 px-3 py-2 text-sm text-slate-700" data-testid="blame-cost">
          {replays === null
            ? "Type a whole number of trials to see the cost."
            : `At most ${probeBound} probes × ${t} trials = ${replays} replays, with at most ${replays * liveCallsPerTrial} live model calls (${liveCallsPerTrial} per replay).`}
        </p>
        {form.error ? <Notice tone="error">{form.error.message}</Notice> : null}
        <Button type="submit" disabled={form.pending || checks.length === 0 || !hasModelEndpoint}>
          {form.pending ? "Starting…" : "Find the deciding step"}
        </Button>
      </form>
    </Card>
  );
}
