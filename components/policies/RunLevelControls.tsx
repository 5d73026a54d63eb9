"use client";

import { DriftPolicy, ModelPolicy, type Policy, type PolicyIssue } from "@/lib/replay";
import { DRIFT_WORDS, MODEL_WORDS } from "@/lib/policies/labels";
import { ChoiceHelp } from "./EnumWords";
import { FieldIssues } from "./FieldIssues";
import { issuesAt } from "./issues";
import { Card } from "@/components/ui/Card";

type NumberKey =
  | "maxSteps"
  | "temperatureOverride"
  | "maxTokens"
  | "maxCostUsd"
  | "maxLiveCalls"
  | "probeRuns"
  | "liveFromModelStep"
  | "agentIdleTimeoutS";

const input = "mt-1 block w-full rounded-md border border-slate-300 bg-white px-2 py-1.5 text-sm";
const label = "block text-xs font-medium text-slate-600";

/** The run-level choices: model policy, drift, maxSteps, temperature and the live budget. */
export function RunLevelControls({
  doc,
  onChange,
  issues,
}: {
  doc: Policy;
  onChange: (doc: Policy) => void;
  issues: readonly PolicyIssue[];
}) {
  const setNumber = (key: NumberKey, raw: string) => {
    const next: Record<string, unknown> = { ...doc };
    if (raw.trim() === "") delete next[key];
    else {
      const n = Number(raw);
      if (!Number.isFinite(n)) return;
      next[key] = n;
    }
    onChange(next as Policy);
  };
  const numberField = (key: NumberKey, text: string, opts: { step?: string; placeholder?: string } = {}) => (
    <label className={label}>
      {text}
      <input
        type="number"
        aria-label={text}
        className={input}
        step={opts.step ?? "1"}
        placeholder={opts.placeholder ?? "not set"}
        value={doc[key] ?? ""}
        onChange={(e) => setNumber(key, e.target.value)}
      />
      <FieldIssues issues={issuesAt(issues, [key])} />
    </label>
  );
  const live =
    doc.model === "pinned-live" || doc.model === "compatible-live" || doc.model === "recorded-until-divergence";
  return (
    <Card aria-label="Run-level choices">
      <h2 className="mb-3 text-sm font-semibold text-slate-900">Run</h2>
      <div className="grid grid-cols-1 gap-3 sm:grid-cols-2">
        <label className={label}>
          Model policy
          <select
            aria-label="Model policy"
            className={input}
            value={doc.model}
            onChange={(e) => onChange({ ...doc, model: e.target.value as ModelPolicy })}
          >
            {ModelPolicy.options.map((m) => (
              <option key={m} value={m}>
                {MODEL_WORDS[m].label}
              </option>
            ))}
          </select>
          <ChoiceHelp words={MODEL_WORDS[doc.model]} value={doc.model} testId="model-help" />
          <FieldIssues issues={issuesAt(issues, ["model"])} />
        </label>
        <label className={label}>
          Drift
          <select
            aria-label="Drift"
            className={input}
            value={doc.drift}
            onChange={(e) => onChange({ ...doc, drift: e.target.value as DriftPolicy })}
          >
            {DriftPolicy.options.map((d) => (
              <option key={d} value={d}>
                {DRIFT_WORDS[d].label}
              </option>
            ))}
          </select>
          <ChoiceHelp words={DRIFT_WORDS[doc.drift]} value={doc.drift} testId="drift-help" />
          <FieldIssues issues={issuesAt(issues, ["drift"])} />
        </label>
        {numberField("maxSteps", "maxSteps")}
        {numberField("temperatureOverride", "temperatureOverride", {
          step: "0.1",
          placeholder: "recorded temperature",
        })}
        {live ? (
          <label className={label}>
            Live model
            <input
              aria-label="Live model"
              className={input}
              value={doc.liveModel ?? ""}
              onChange={(e) => {
                const { liveModel: _old, ...rest } = doc;
                void _old;
                onChange(e.target.value ? { ...rest, liveModel: e.target.value } : rest);
              }}
            />
            <FieldIssues issues={issuesAt(issues, ["liveModel"])} />
          </label>
        ) : null}
        {doc.model === "determinism-probe" ? numberField("probeRuns", "probeRuns", { placeholder: "3" }) : null}
        {doc.model === "recorded-until-divergence" || doc.liveFromModelStep !== undefined
          ? numberField("liveFromModelStep", "liveFromModelStep", { placeholder: "first changed input" })
          : null}
      </div>
      <fieldset className="mt-4">
        <legend className="text-xs font-semibold text-slate-700">Budget on live spending</legend>
        <div className="mt-1 grid grid-cols-1 gap-3 sm:grid-cols-3">
          {numberField("maxTokens", "maxTokens")}
          {numberField("maxCostUsd", "maxCostUsd", { step: "0.01" })}
          {numberField("maxLiveCalls", "maxLiveCalls")}
        </div>
      </fieldset>
      <fieldset className="mt-4">
        <legend className="text-xs font-semibold text-slate-700">When your own agent drives the branch</legend>
        <p className="mt-1 text-xs text-slate-500">
          Seconds the agent may stay silent (no model or tool call) before the replay is marked abandoned.
        </p>
        <div className="mt-1 grid grid-cols-1 gap-3 sm:grid-cols-3">
          {numberField("agentIdleTimeoutS", "agentIdleTimeoutS", { placeholder: "600" })}
        </div>
      </fieldset>
    </Card>
  );
}
