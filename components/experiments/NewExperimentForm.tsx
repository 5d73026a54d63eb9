"use client";

import { useRouter } from "next/navigation";
import { useEffect, useState } from "react";
import { previewCohortAction, startExperimentAction } from "@/lib/actions/experiments";
import type { AgentVersionCohort, PolicyVersionChoice } from "@/lib/db/experiments";
import type { CohortFilterInput } from "@/lib/server/experiments/experiments";
import { Button } from "@/components/ui/Button";
import { Notice } from "@/components/ui/Notice";
import { CheckPicker, type CheckChoice } from "@/components/checks/CheckPicker";
import { Card } from "@/components/ui/Card";
import { useActionForm } from "@/components/ui/useActionForm";
import { StatusOptions } from "@/components/sessions/StatusOptions";

type Filter = { status: string; tool: string; q: string; from: string; to: string };
const NO_FILTER: Filter = { status: "", tool: "", q: "", from: "", to: "" };

/** The filters typed in rather than picked, in the order they are shown. */
const TEXT_FILTERS: { field: Exclude<keyof Filter, "status">; label: string; type?: string; placeholder?: string }[] = [
  { field: "tool", label: "Tool used", placeholder: "e.g. lookup_order" },
  { field: "q", label: "Text", placeholder: "words in the session" },
  { field: "from", label: "Started on or after", type: "date" },
  { field: "to", label: "Started on or before", type: "date" },
];

/** The filters that are set, as the server takes them (empty ones left out). */
function filterInput(f: Filter) {
  const set = Object.entries(f).filter(([, v]) => v.trim() !== "");
  // The status comes from the select's fixed options; the server checks every field again.
  return set.length > 0 ? (Object.fromEntries(set.map(([k, v]) => [k, v.trim()])) as CohortFilterInput) : undefined;
}

/** Pick a policy version and an agent version, see the cohort size, start. */
export function NewExperimentForm({
  policyVersions,
  agentVersions,
  savedChecks = [],
}: {
  policyVersions: readonly PolicyVersionChoice[];
  agentVersions: readonly AgentVersionCohort[];
  savedChecks?: readonly CheckChoice[];
}) {
  const router = useRouter();
  const [agentVersionId, setAgentVersionId] = useState(agentVersions.find((v) => v.cohortSize > 0)?.id ?? "");
  const agentVersion = agentVersions.find((v) => v.id === agentVersionId);
  const usable = policyVersions.filter((p) => p.agentId === null || p.agentId === agentVersion?.agentId);
  const [policyVersionId, setPolicyVersionId] = useState(usable[0]?.id ?? "");
  const policyVersion = usable.find((p) => p.id === policyVersionId);
  const [name, setName] = useState("");
  const [checkIds, setCheckIds] = useState<string[]>([]);
  const { pending, error: failure, run } = useActionForm({ refresh: false });
  const [filter, setFilter] = useState<Filter>(NO_FILTER);
  const [preview, setPreview] = useState<{ matching: number; total: number } | { error: string } | null>(null);
  const filtered = filterInput(filter) !== undefined;

  // The count before starting: how many sessions the filters keep (asked again as they change).
  useEffect(() => {
    if (!agentVersionId || !filtered) {
      setPreview(null);
      return;
    }
    let current = true;
    const timer = setTimeout(() => {
      void previewCohortAction({ agentVersionId, filter: filterInput(filter) }).then((result) => {
        if (!current) return;
        // A bad filter is named by its field's message (the dates' order, their format).
        const named = result.ok ? undefined : Object.values(result.error.fieldErrors).flat()[0];
        setPreview(result.ok ? result.data : { error: named ?? result.error.message });
      });
    }, 250);
    return () => {
      current = false;
      clearTimeout(timer);
    };
  }, [agentVersionId, filter, filtered]);
  const size = !filtered ? (agentVersion?.cohortSize ?? 0) : preview && "matching" in preview ? preview.matching : null;
  const setField = (key: keyof Filter) => (e: React.ChangeEvent<HTMLInputElement | HTMLSelectElement>) =>
    setFilter((f) => ({ ...f, [key]: e.target.value }));
  const defaultName =
    policyVersion && agentVersion
      ? `${policyVersion.policyName} v${policyVersion.version} over ${agentVersion.agentName} ${agentVersion.version}`
      : "";

  function chooseAgentVersion(id: string) {
    setAgentVersionId(id);
    const next = agentVersions.find((v) => v.id === id);
    if (!usable.some((p) => p.id === policyVersionId && (p.agentId === null || p.agentId === next?.agentId))) {
      setPolicyVersionId(policyVersions.find((p) => p.agentId === null || p.agentId === next?.agentId)?.id ?? "");
    }
  }

  function submit(event: React.FormEvent) {
    event.preventDefault();
    const chosen = filterInput(filter);
    run(
      () =>
        startExperimentAction({
          name: name.trim() || defaultName,
          policyVersionId,
          agentVersionId,
          ...(checkIds.length > 0 ? { checks: checkIds } : {}),
          ...(chosen ? { filter: chosen } : {}),
        }),
      (data) => router.push(`/experiments/${data.id}`),
    );
  }

  const fieldError = (field: string) =>
    failure?.fields[field]?.map((m) => (
      <p key={m} role="alert" className="mt-1 text-xs text-rose-700">
        {m}
      </p>
    ));

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
      <fieldset className="rounded-md border border-slate-200 px-3 pt-1 pb-3 text-sm">
        <legend className="px-1 font-medium text-slate-900">Which sessions</legend>
        <p className="text-xs text-slate-500">
          All of the cohort, or only the sessions these filters keep (the session browser&apos;s filters).
        </p>
        <div className="mt-2 grid grid-cols-1 gap-3 sm:grid-cols-3">
          <label className="block">
            <span className="text-xs font-medium text-slate-700">Status</span>
            <select
              value={filter.status}
              onChange={setField("status")}
              className="mt-1 block w-full rounded-md border border-slate-300 bg-white px-2 py-1.5 text-sm"
            >
              <option value="">any</option>
              <StatusOptions />
            </select>
          </label>
          {TEXT_FILTERS.map(({ field, label, type, placeholder }) => (
            <label key={field} className="block">
              <span className="text-xs font-medium text-slate-700">{label}</span>
              <input
                type={type}
                value={filter[field]}
                onChange={setField(field)}
                placeholder={placeholder}
                className="mt-1 block w-full rounded-md border border-slate-300 px-2 py-1.5 text-sm"
              />
            </label>
          ))}
        </div>
        {filtered ? (
          <p className="mt-2 text-sm text-slate-700" data-testid="cohort-matching" role="status">
            {preview === null
              ? "Counting…"
              : "error" in preview
                ? preview.error
                : `${preview.matching} of ${preview.total} session${preview.total === 1 ? "" : "s"} match.`}
          </p>
        ) : null}
        {fieldError("filter")}
      </fieldset>
      <label className="block text-sm">
        <span className="font-medium text-slate-900">Policy version</span>
        <span className="block text-xs text-slate-500">
          Policies for this agent or for any agent. History in scope cohort_version answers from the sessions of this
          experiment.
        </span>
        <select
          value={policyVersionId}
          onChange={(e) => setPolicyVersionId(e.target.value)}
          className="mt-1 block w-full rounded-md border border-slate-300 bg-white px-3 py-1.5 text-sm"
        >
          {usable.map((p) => (
            <option key={p.id} value={p.id}>
              {p.policyName} v{p.version} · {p.hash.slice(0, 12)}
            </option>
          ))}
        </select>
        {usable.length === 0 && agentVersion ? (
          <EmptyPickerNote agentName={agentVersion.agentName} policyVersions={policyVersions} />
        ) : null}
        {fieldError("policyVersionId")}
      </label>
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
      <Button type="submit" disabled={pending || !policyVersion || !agentVersion || !size}>
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
