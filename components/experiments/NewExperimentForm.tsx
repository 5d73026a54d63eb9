"use client";

import { useRouter } from "next/navigation";
import { useState } from "react";
import { startExperimentAction } from "@/lib/actions/experiments";
import type { AgentVersionCohort, PolicyVersionChoice } from "@/lib/db/experiments";
import type { ExperimentPresetChoice } from "@/lib/server/experiments/experiments";
import { Button } from "@/components/ui/Button";
import { Notice } from "@/components/ui/Notice";
import { CheckPicker, type CheckChoice } from "@/components/checks/CheckPicker";
import { Card } from "@/components/ui/Card";
import { useActionForm } from "@/components/ui/useActionForm";
import { CohortFilterFields, filterInput, NO_FILTER, useCohortPreview, type Filter } from "./CohortFilterFields";

const PRESET = "preset:";

/** The edit across the cohort as typed: JSON texts, parsed on submit. */
type EditFields = { tool: string; args: string; value: string };

/** The edit to send, or the field whose JSON does not parse (null: no edit, the tool is empty). */
function editInput(
  f: EditFields,
):
  | { edit: { tool: string; args?: Record<string, unknown>; value: unknown } }
  | { field: string; message: string }
  | null {
  if (f.tool.trim() === "") return null;
  let args: unknown;
  if (f.args.trim() !== "") {
    try {
      args = JSON.parse(f.args);
    } catch {
      return {
        field: "edit.args",
        message: 'Not JSON: give an object such as {"order_id": "4821"}, or leave it empty.',
      };
    }
    if (args === null || typeof args !== "object" || Array.isArray(args))
      return { field: "edit.args", message: "Give an object of argument names and values, or leave it empty." };
  }
  let value: unknown;
  try {
    value = JSON.parse(f.value);
  } catch {
    return { field: "edit.value", message: "Not JSON: give the result as JSON (a quoted string for text)." };
  }
  return { edit: { tool: f.tool.trim(), ...(args ? { args: args as Record<string, unknown> } : {}), value } };
}

/** Pick a preset or a saved policy version and an agent version, optionally an edit across the cohort, see the cohort size, start. */
export function NewExperimentForm({
  policyVersions,
  presets = [],
  agentVersions,
  savedChecks = [],
}: {
  policyVersions: readonly PolicyVersionChoice[];
  presets?: readonly ExperimentPresetChoice[];
  agentVersions: readonly AgentVersionCohort[];
  savedChecks?: readonly CheckChoice[];
}) {
  const router = useRouter();
  const [agentVersionId, setAgentVersionId] = useState(agentVersions.find((v) => v.cohortSize > 0)?.id ?? "");
  const agentVersion = agentVersions.find((v) => v.id === agentVersionId);
  const usable = policyVersions.filter((p) => p.agentId === null || p.agentId === agentVersion?.agentId);
  const [policyVersionId, setPolicyVersionId] = useState(
    usable[0]?.id ?? (presets[0] ? `${PRESET}${presets[0].preset}` : ""),
  );
  const policyVersion = usable.find((p) => p.id === policyVersionId);
  const preset = presets.find((p) => `${PRESET}${p.preset}` === policyVersionId);
  const [edit, setEdit] = useState<EditFields>({ tool: "", args: "", value: "" });
  const [editError, setEditError] = useState<{ field: string; message: string } | null>(null);
  const [name, setName] = useState("");
  const [checkIds, setCheckIds] = useState<string[]>([]);
  const { pending, error: failure, run } = useActionForm({ refresh: false });
  const [filter, setFilter] = useState<Filter>(NO_FILTER);
  const filtered = filterInput(filter) !== undefined;

  const preview = useCohortPreview(agentVersionId, filter, filtered);
  const size = !filtered ? (agentVersion?.cohortSize ?? 0) : preview && "matching" in preview ? preview.matching : null;
  const policyName = policyVersion
    ? `${policyVersion.policyName} v${policyVersion.version}`
    : preset
      ? preset.label
      : null;
  const defaultName =
    policyName && agentVersion
      ? `${policyName}${edit.tool.trim() ? `, ${edit.tool.trim()} edited,` : ""} over ${agentVersion.agentName} ${agentVersion.version}`
      : "";

  function chooseAgentVersion(id: string) {
    setAgentVersionId(id);
    const next = agentVersions.find((v) => v.id === id);
    if (
      !preset &&
      !usable.some((p) => p.id === policyVersionId && (p.agentId === null || p.agentId === next?.agentId))
    ) {
      setPolicyVersionId(
        policyVersions.find((p) => p.agentId === null || p.agentId === next?.agentId)?.id ??
          (presets[0] ? `${PRESET}${presets[0].preset}` : ""),
      );
    }
  }

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
          agentVersionId,
          ...(checkIds.length > 0 ? { checks: checkIds } : {}),
          ...(chosen ? { filter: chosen } : {}),
        }),
      (data) => router.push(`/experiments/${data.id}`),
    );
  }

  const fieldError = (field: string) =>
    [...(editError?.field === field ? [editError.message] : []), ...(failure?.fields[field] ?? [])].map((m) => (
      <p key={m} role="alert" className="mt-1 text-xs text-rose-700">
        {m}
      </p>
    ));
  const inputClass = "mt-1 block w-full rounded-md border border-slate-300 px-3 py-1.5 text-sm";

  return (
    <Card as="form" padding="lg" className="max-w-3xl space-y-5" onSubmit={submit}>
      <label className="block text-sm">
        <span className="font-medium text-slate-900">Agent version</span>
        <span className="block text-xs text-slate-500">
          The cohort is the recorded sessions of this version (replays excluded); narrow it below.
        </span>
        <select
          value={agentVersionId}
          onChange={(e) => chooseAgentVersion(e.target.value)}
          className="mt-1 block w-full rounded-md border border-slate-300 bg-white px-3 py-1.5 text-sm"
        >
          {agentVersions.map((v) => (
            <option key={v.id} value={v.id} disabled={v.cohortSize === 0}>
              {v.agentName} {v.version} · {v.cohortSize} session{v.cohortSize === 1 ? "" : "s"}
            </option>
          ))}
        </select>
        {fieldError("agentVersionId")}
      </label>
      <div className="rounded-md bg-slate-50 px-3 py-2 text-sm text-slate-700" data-testid="cohort-size">
        {agentVersion ? (
          <>
            Cohort: <strong className="tabular-nums">{agentVersion.cohortSize}</strong> session
            {agentVersion.cohortSize === 1 ? "" : "s"} of {agentVersion.agentName} {agentVersion.version} (
            {agentVersion.adapter}). Each is replayed once, as a job for the workers.
          </>
        ) : (
          "Choose an agent version."
        )}
      </div>
      <CohortFilterFields filter={filter} onChange={setFilter} filtered={filtered} preview={preview}>
        {fieldError("filter")}
      </CohortFilterFields>
      <label className="block text-sm">
        <span className="font-medium text-slate-900">Policy version or preset</span>
        <span className="block text-xs text-slate-500">
          A preset is adapted to this agent and saved with the experiment; a saved policy is for this agent or for any
          agent. History in scope cohort_version answers from the sessions of this experiment.
        </span>
        <select
          value={policyVersionId}
          onChange={(e) => setPolicyVersionId(e.target.value)}
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
        {usable.length === 0 && agentVersion && policyVersions.length > 0 ? (
          <EmptyPickerNote agentName={agentVersion.agentName} policyVersions={policyVersions} />
        ) : null}
        {fieldError("policyVersionId")}
        {fieldError("preset")}
      </label>
      <fieldset className="space-y-3 rounded-md border border-slate-200 px-3 pt-1 pb-3 text-sm">
        <legend className="px-1 font-medium text-slate-900">Edit across the cohort (optional)</legend>
        <p className="text-xs text-slate-500">
          The same edit on every session where it applies: each call of the tool (with these argument values, when
          given) returns this result instead of the recorded one. Sessions without such a call are replayed without it,
          and the results name them.
        </p>
        <label className="block">
          <span className="text-slate-900">Tool</span>
          <input
            value={edit.tool}
            onChange={(e) => setEdit({ ...edit, tool: e.target.value })}
            placeholder="lookup_order"
            className={inputClass}
          />
          {fieldError("edit.tool")}
        </label>
        <label className="block">
          <span className="text-slate-900">Only calls with these arguments (JSON object, optional)</span>
          <input
            value={edit.args}
            onChange={(e) => setEdit({ ...edit, args: e.target.value })}
            placeholder='{"order_id": "4821"}'
            className={`${inputClass} font-mono`}
          />
          {fieldError("edit.args")}
        </label>
        <label className="block">
          <span className="text-slate-900">Returns (JSON)</span>
          <textarea
            value={edit.value}
            onChange={(e) => setEdit({ ...edit, value: e.target.value })}
            rows={3}
            placeholder='{"status": "lost_in_transit"}'
            className={`${inputClass} font-mono`}
          />
          {fieldError("edit.value")}
        </label>
        {fieldError("edit")}
      </fieldset>
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
      <Button type="submit" disabled={pending || !(policyVersion || preset) || !agentVersion || !size}>
        {pending
          ? "Starting…"
          : `Start experiment${agentVersion && size !== null ? ` over ${size} session${size === 1 ? "" : "s"}` : ""}`}
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
