"use client";

import { useRouter } from "next/navigation";
import { useState } from "react";
import { startExperimentAction } from "@/lib/actions/experiments";
import type { AgentVersionCohort, PolicyVersionChoice } from "@/lib/db/experiments";
import { Button } from "@/components/ui/Button";
import { Notice } from "@/components/ui/Notice";
import { CheckPicker, type CheckChoice } from "@/components/checks/CheckPicker";
import { Card } from "@/components/ui/Card";
import { useActionForm } from "@/components/ui/useActionForm";
import { CohortFilterFields, filterInput, NO_FILTER, useCohortPreview, type Filter } from "./CohortFilterFields";

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
  const filtered = filterInput(filter) !== undefined;

  const preview = useCohortPreview(agentVersionId, filter, filtered);
  const size = !filtered ? (agentVersion?.cohortSize ?? 0) : preview && "matching" in preview ? preview.matching : null;
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
      <CohortFilterFields filter={filter} onChange={setFilter} filtered={filtered} preview={preview}>
        {fieldError("filter")}
      </CohortFilterFields>
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
