"use client";

import { useState } from "react";
import { createWatchAction } from "@/lib/actions/watches";
import { Button } from "@/components/ui/Button";
import { Card } from "@/components/ui/Card";
import { Field, inputClass } from "@/components/ui/Field";
import { Notice } from "@/components/ui/Notice";
import { useActionForm } from "@/components/ui/useActionForm";

type Kind = "new_cluster" | "cluster_growth" | "check_pass_rate_below" | "regression";

const KINDS: { value: Kind; label: string }[] = [
  { value: "new_cluster", label: "A new failure cluster" },
  { value: "cluster_growth", label: "A cluster growing faster than K sessions a day" },
  { value: "check_pass_rate_below", label: "A check's pass rate over the last N sessions below X" },
  { value: "regression", label: "A new version that regressed" },
];

/** A number field, typed as text (the server checks it and names it when it is wrong). Field gives it its id and aria. */
function NumberInput({
  value,
  onChange,
  decimal,
  ...aria
}: {
  value: string;
  onChange: (value: string) => void;
  decimal?: boolean;
  id?: string;
  "aria-invalid"?: boolean;
  "aria-describedby"?: string;
}) {
  return (
    <input
      {...aria}
      value={value}
      onChange={(e) => onChange(e.target.value)}
      className={inputClass}
      inputMode={decimal ? "decimal" : "numeric"}
    />
  );
}

/** Saves a watch on one agent: what to watch, and what to do when it fires (a webhook, an investigation, or both). */
export function WatchForm({ agentId, checks }: { agentId: string; checks: readonly { id: string; name: string }[] }) {
  const [name, setName] = useState("");
  const [kind, setKind] = useState<Kind>("new_cluster");
  const [checkId, setCheckId] = useState(checks[0]?.id ?? "");
  const [lastN, setLastN] = useState("100");
  const [threshold, setThreshold] = useState("90");
  const [perDay, setPerDay] = useState("10");
  const [url, setUrl] = useState("");
  const [investigate, setInvestigate] = useState(false);
  const [maxSessions, setMaxSessions] = useState("3");
  const [windowMinutes, setWindowMinutes] = useState("60");
  const [saved, setSaved] = useState<{ name: string; costBound: string | null } | null>(null);
  const form = useActionForm();
  const num = (text: string) => (text.trim() === "" ? Number.NaN : Number(text));

  function condition() {
    if (kind === "check_pass_rate_below") return { kind, checkId, lastN: num(lastN), threshold: num(threshold) / 100 };
    if (kind === "cluster_growth") return { kind, perDay: num(perDay) };
    return { kind };
  }

  function submit(event: React.FormEvent) {
    event.preventDefault();
    setSaved(null);
    form.run(
      () =>
        createWatchAction({
          agentId,
          name,
          condition: condition(),
          actions: {
            ...(url.trim() ? { webhook: { url: url.trim() } } : {}),
            ...(investigate ? { investigate: { maxSessions: num(maxSessions) } } : {}),
          },
          windowSeconds: Math.round(num(windowMinutes) * 60),
        }),
      (done) => setSaved({ name: done.name, costBound: done.costBound }),
    );
  }

  return (
    <Card title="New watch">
      <form onSubmit={submit} className="space-y-4" aria-label="New watch">
        <Field label="Name" errors={form.fieldErrors("name")}>
          <input value={name} onChange={(e) => setName(e.target.value)} className={inputClass} maxLength={200} />
        </Field>
        <Field label="Watch for" errors={form.fieldErrors("condition.kind")}>
          <select value={kind} onChange={(e) => setKind(e.target.value as Kind)} className={inputClass}>
            {KINDS.map((k) => (
              <option key={k.value} value={k.value}>
                {k.label}
              </option>
            ))}
          </select>
        </Field>
        {kind === "check_pass_rate_below" ? (
          checks.length === 0 ? (
            <Notice tone="info">
              Save a check and attach it to this agent first (Checks); its verdicts are counted.
            </Notice>
          ) : (
            <div className="grid gap-4 sm:grid-cols-3">
              <Field label="Check" errors={form.fieldErrors("condition.checkId")}>
                <select value={checkId} onChange={(e) => setCheckId(e.target.value)} className={inputClass}>
                  {checks.map((c) => (
                    <option key={c.id} value={c.id}>
                      {c.name}
                    </option>
                  ))}
                </select>
              </Field>
              <Field label="Last N sessions" errors={form.fieldErrors("condition.lastN")}>
                <NumberInput value={lastN} onChange={setLastN} />
              </Field>
              <Field label="Below (%)" errors={form.fieldErrors("condition.threshold")}>
                <NumberInput value={threshold} onChange={setThreshold} decimal />
              </Field>
            </div>
          )
        ) : null}
        {kind === "cluster_growth" ? (
          <Field label="Sessions a day (K)" errors={form.fieldErrors("condition.perDay")}>
            <NumberInput value={perDay} onChange={setPerDay} />
          </Field>
        ) : null}
        <Field
          label="Webhook URL (optional)"
          hint="Gets a JSON POST with Slack's text and the facts. Its host must be on the executor allow-list (Settings → Executors)."
          errors={form.fieldErrors("actions.webhook.url") ?? form.fieldErrors("actions.webhook")}
        >
          <input
            value={url}
            onChange={(e) => setUrl(e.target.value)}
            className={`${inputClass} font-mono`}
            maxLength={2000}
            placeholder="https://hooks.slack.com/services/…"
          />
        </Field>
        <label className="flex items-center gap-2 text-sm text-slate-800">
          <input type="checkbox" checked={investigate} onChange={(e) => setInvestigate(e.target.checked)} />
          Investigate: run a blame search on failed sessions of the cluster and write a draft report
        </label>
        {investigate ? (
          <Field
            label="Sessions to investigate (K)"
            hint="The most replays this can run is shown when the watch is saved."
            errors={form.fieldErrors("actions.investigate.maxSessions")}
          >
            <NumberInput value={maxSessions} onChange={setMaxSessions} />
          </Field>
        ) : null}
        <Field
          label="Evaluate at most once every (minutes)"
          errors={form.fieldErrors("windowSeconds")}
          hint="Watches are evaluated as sessions arrive, at most once per window."
        >
          <NumberInput value={windowMinutes} onChange={setWindowMinutes} />
        </Field>
        {form.formError ? <Notice tone="error">{form.formError}</Notice> : null}
        {saved ? (
          <Notice tone="success">
            Saved “{saved.name}”.{saved.costBound ? ` ${saved.costBound}` : ""}
          </Notice>
        ) : null}
        <Button type="submit" disabled={form.pending}>
          {form.pending ? "Saving…" : "Save watch"}
        </Button>
      </form>
    </Card>
  );
}
