"use client";

import { useRouter } from "next/navigation";
import { useState } from "react";
import { startExperimentAction } from "@/lib/actions/experiments";
import type { AgentVersionCohort, PolicyVersionChoice } from "@/lib/db/experiments";
import type { ExperimentPresetChoice } from "@/lib/server/experiments/experiments";
import type { DatasetChoice } from "@/lib/server/datasets/dataset-cohort";
import {
  AgentVersionField,
  CohortSourceField,
  DatasetCohortNote,
  cohortName,
  cohortSizeOf,
  useCohortSource,
  type CohortSource,
} from "./CohortSource";
import { Button } from "@/components/ui/Button";
import { Notice } from "@/components/ui/Notice";
import { CheckPicker, type CheckChoice } from "@/components/checks/CheckPicker";
import { Card } from "@/components/ui/Card";
import { useActionForm } from "@/components/ui/useActionForm";
import { CohortEditFields, editInput, NO_EDIT, type EditFields } from "./CohortEditFields";
import { CohortFilterFields, filterInput, NO_FILTER, useCohortPreview, type Filter } from "./CohortFilterFields";

const PRESET = "preset:";
const presetValue = (p: ExperimentPresetChoice | undefined) => (p ? `${PRESET}${p.preset}` : "");

/** The name an experiment gets when none is typed: its policy, the edited tool, and the agent version or dataset. */
function defaultNameOf(policyName: string | undefined, tool: string, cohort: string | undefined) {
  if (!policyName || !cohort) return "";
  return `${policyName}${tool.trim() ? `, ${tool.trim()} edited,` : ""} over ${cohort}`;
}

const alerts = (messages: readonly string[]) =>
  messages.map((m) => (
    <p key={m} role="alert" className="mt-1 text-xs text-rose-700">
      {m}
    </p>
  ));

/** Pick a preset or a saved policy version and an agent version, optionally an edit across the cohort, see the cohort size, start. */
export function NewExperimentForm({
  policyVersions,
  presets = [],
  agentVersions,
  savedChecks = [],
  datasets = [],
  initialDatasetId,
}: {
  policyVersions: readonly PolicyVersionChoice[];
  presets?: readonly ExperimentPresetChoice[];
  agentVersions: readonly AgentVersionCohort[];
  savedChecks?: readonly CheckChoice[];
  /** Saved datasets, offered as the cohort instead of an agent version's sessions. */
  datasets?: readonly DatasetChoice[];
  /** The dataset to start with (a dataset page's "Run an experiment over this dataset"). */
  initialDatasetId?: string;
}) {
  const router = useRouter();
  const cohort = useCohortSource(datasets, agentVersions, initialDatasetId);
  const { source, datasetId, dataset, agentVersionId, agentVersion, cohortAgentId, cohortAgentName } = cohort;
  const usable = policyVersions.filter((p) => p.agentId === null || p.agentId === cohortAgentId);
  const [policyVersionId, setPolicyVersionId] = useState(usable[0]?.id ?? presetValue(presets[0]));
  const policyVersion = usable.find((p) => p.id === policyVersionId);
  const preset = presets.find((p) => presetValue(p) === policyVersionId);
  const [edit, setEdit] = useState<EditFields>(NO_EDIT);
  const [editError, setEditError] = useState<{ field: string; message: string } | null>(null);
  const [name, setName] = useState("");
  const [checkIds, setCheckIds] = useState<string[]>([]);
  const { pending, error: failure, run } = useActionForm({ refresh: false });
  const [filter, setFilter] = useState<Filter>(NO_FILTER);
  const filtered = filterInput(filter) !== undefined;

  const preview = useCohortPreview(source === "version" ? agentVersionId : "", filter, filtered);
  const size = cohortSizeOf(cohort, filtered, preview);
  const policyName = policyVersion ? `${policyVersion.policyName} v${policyVersion.version}` : preset?.label;
  const defaultName = defaultNameOf(policyName, edit.tool, cohortName(cohort));

  /** Keeps the chosen saved policy when it runs on the new cohort's agent; else the first that does, or a preset. */
  function fitPolicyTo(agentId: string | undefined) {
    const fits = (p: PolicyVersionChoice) => p.agentId === null || p.agentId === agentId;
    if (!preset && !policyVersions.some((p) => p.id === policyVersionId && fits(p)))
      setPolicyVersionId(policyVersions.find(fits)?.id ?? presetValue(presets[0]));
  }

  const chooseAgentVersion = (id: string) => fitPolicyTo(cohort.chooseAgentVersion(id));
  const chooseSource = (next: CohortSource, id = datasetId) => fitPolicyTo(cohort.chooseSource(next, id));

  function submit(event: React.FormEvent) {
    event.preventDefault();
    const chosen = filterInput(filter);
    const edited = editInput(edit);
    if (edited && "field" in edited) {
      setEditError(edited);
      return;
    }
    setEditError(null);
    run(
      () =>
        startExperimentAction({
          name: name.trim() || defaultName,
          ...(preset ? { preset: preset.preset } : { policyVersionId }),
          ...(edited ? { edit: edited.edit } : {}),
          ...(source === "dataset" ? { datasetId } : { agentVersionId, ...(chosen ? { filter: chosen } : {}) }),
          ...(checkIds.length > 0 ? { checks: checkIds } : {}),
        }),
      (data) => router.push(`/experiments/${data.id}`),
    );
  }

  const fieldError = (field: string) =>
    alerts([...(editError?.field === field ? [editError.message] : []), ...(failure?.fields[field] ?? [])]);

  return (
    <Card as="form" padding="lg" className="max-w-3xl space-y-5" onSubmit={submit}>
      {datasets.length > 0 ? (
        <CohortSourceField
          source={source}
          onSource={(next) => chooseSource(next)}
          datasets={datasets}
          datasetId={datasetId}
          onDataset={(id) => chooseSource("dataset", id)}
        >
          {fieldError("datasetId")}
        </CohortSourceField>
      ) : null}
      {source === "version" ? (
        <>
          <AgentVersionField
            agentVersions={agentVersions}
            agentVersionId={agentVersionId}
            agentVersion={agentVersion}
            onChange={chooseAgentVersion}
          >
            {fieldError("agentVersionId")}
          </AgentVersionField>
          <CohortFilterFields filter={filter} onChange={setFilter} filtered={filtered} preview={preview}>
            {fieldError("filter")}
          </CohortFilterFields>
        </>
      ) : (
        <div className="rounded-md bg-slate-50 px-3 py-2 text-sm text-slate-700" data-testid="cohort-size">
          {dataset ? <DatasetCohortNote dataset={dataset} /> : "Choose a dataset."}
        </div>
      )}
      <PolicyField
        value={policyVersionId}
        onChange={setPolicyVersionId}
        presets={presets}
        usable={usable}
        preset={preset}
      >
        {usable.length === 0 && cohortAgentName && policyVersions.length > 0 ? (
          <EmptyPickerNote agentName={cohortAgentName} policyVersions={policyVersions} />
        ) : null}
        {fieldError("policyVersionId")}
        {fieldError("preset")}
      </PolicyField>
      <CohortEditFields edit={edit} onChange={setEdit} fieldError={fieldError} />
      <div className="text-sm">
        <span className="font-medium text-slate-900">Outcome checks</span>
        <CheckPicker
          checks={savedChecks}
          selected={checkIds}
          onChange={setCheckIds}
          legend="Judge every session's base run and branch by (the results then count how many each way):"
        />
        {fieldError("checks")}
      </div>
      <label className="block text-sm">
        <span className="font-medium text-slate-900">Name</span>
        <input
          value={name}
          onChange={(e) => setName(e.target.value)}
          placeholder={defaultName || "Regression suite"}
          className="mt-1 block w-full rounded-md border border-slate-300 px-3 py-1.5 text-sm"
        />
        {fieldError("name")}
      </label>
      {failure ? <Notice tone="error">{failure.message}</Notice> : null}
      <Button type="submit" disabled={pending || !(policyVersion || preset) || !(agentVersion || dataset) || !size}>
        {pending
          ? "Starting…"
          : `Start experiment${(agentVersion || dataset) && size !== null ? ` over ${size} session${size === 1 ? "" : "s"}` : ""}`}
      </Button>
    </Card>
  );
}

/** Why the policy picker is empty: every saved policy belongs to another agent. */
function EmptyPickerNote({
  agentName,
  policyVersions,
}: {
  agentName: string;
  policyVersions: readonly PolicyVersionChoice[];
}) {
  const names = [...new Set(policyVersions.map((p) => p.policyName))];
  return (
    <p className="mt-2 rounded-md border border-amber-200 bg-amber-50 px-3 py-2 text-sm text-amber-900" role="status">
      No saved policy can run on {agentName}:{" "}
      {names.length === 1 ? "the one saved policy" : `all ${names.length} saved policies`} (
      {names.slice(0, 5).join(", ")}
      {names.length > 5 ? ", …" : ""}) {names.length === 1 ? "belongs" : "belong"} to other agents. A policy runs on its
      own agent, or on any when it has none.{" "}
      <a href="/policies" className="font-medium text-indigo-700 underline">
        Create a policy for {agentName}
      </a>{" "}
      (or one without an agent); a history rule with scope cohort_version can be saved there.
    </p>
  );
}

/** The policy picker: the presets, then the saved versions this agent can run; a preset's one line below it. */
function PolicyField({
  value,
  onChange,
  presets,
  usable,
  preset,
  children,
}: {
  value: string;
  onChange: (value: string) => void;
  presets: readonly ExperimentPresetChoice[];
  usable: readonly PolicyVersionChoice[];
  preset: ExperimentPresetChoice | undefined;
  children: React.ReactNode;
}) {
  return (
    <label className="block text-sm">
      <span className="font-medium text-slate-900">Policy version or preset</span>
      <span className="block text-xs text-slate-500">
        A preset is adapted to this agent and saved with the experiment; a saved policy is for this agent or for any
        agent. History in scope cohort_version answers from the sessions of this experiment.
      </span>
      <select
        value={value}
        onChange={(e) => onChange(e.target.value)}
        className="mt-1 block w-full rounded-md border border-slate-300 bg-white px-3 py-1.5 text-sm"
      >
        {presets.length > 0 ? (
          <optgroup label="Presets">
            {presets.map((p) => (
              <option key={p.preset} value={`${PRESET}${p.preset}`}>
                {p.label} (preset)
              </option>
            ))}
          </optgroup>
        ) : null}
        {usable.length > 0 ? (
          <optgroup label="Saved policies">
            {usable.map((p) => (
              <option key={p.id} value={p.id}>
                {p.policyName} v{p.version} · {p.hash.slice(0, 12)}
              </option>
            ))}
          </optgroup>
        ) : null}
      </select>
      {preset ? (
        <span className="mt-1 block text-xs text-slate-600" data-testid="preset-help">
          {preset.help}
        </span>
      ) : null}
      {children}
    </label>
  );
}
