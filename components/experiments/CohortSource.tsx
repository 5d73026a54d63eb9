"use client";

import { useState } from "react";
import type { AgentVersionCohort } from "@/lib/db/experiments";
import type { DatasetChoice } from "@/lib/server/datasets/dataset-cohort";

export type CohortSource = "version" | "dataset";

/** A dataset an experiment can run over: it holds sessions, all of one agent. */
const runnable = (d: DatasetChoice) => d.size > 0 && d.agents.length === 1;

/**
 * Where the new experiment's cohort comes from, and what is chosen there: an agent version (its recorded sessions)
 * or a saved dataset (its members). A dataset page's link starts on that dataset. Each choice returns the agent its
 * sessions belong to, so the form can keep a policy that runs on it.
 */
export function useCohortSource(
  datasets: readonly DatasetChoice[],
  agentVersions: readonly AgentVersionCohort[],
  initialDatasetId: string | undefined,
) {
  const startDataset = datasets.find((d) => d.id === initialDatasetId);
  const [source, setSource] = useState<CohortSource>(startDataset ? "dataset" : "version");
  const [datasetId, setDatasetId] = useState(startDataset?.id ?? datasets.find(runnable)?.id ?? "");
  const [agentVersionId, setAgentVersionId] = useState(agentVersions.find((v) => v.cohortSize > 0)?.id ?? "");
  const dataset = source === "dataset" ? datasets.find((d) => d.id === datasetId) : undefined;
  const agentVersion = source === "version" ? agentVersions.find((v) => v.id === agentVersionId) : undefined;
  return {
    source,
    datasetId,
    dataset,
    agentVersionId,
    agentVersion,
    cohortAgentId: source === "dataset" ? dataset?.agents[0]?.agentId : agentVersion?.agentId,
    cohortAgentName: source === "dataset" ? dataset?.agents[0]?.agentName : agentVersion?.agentName,
    chooseAgentVersion(id: string) {
      setAgentVersionId(id);
      return agentVersions.find((v) => v.id === id)?.agentId;
    },
    chooseSource(next: CohortSource, id: string) {
      setSource(next);
      setDatasetId(id);
      return next === "dataset"
        ? datasets.find((d) => d.id === id)?.agents[0]?.agentId
        : agentVersions.find((v) => v.id === agentVersionId)?.agentId;
    },
  };
}
type Cohort = ReturnType<typeof useCohortSource>;

/** How many sessions the experiment will replay (null while a filter's count is on its way). */
export function cohortSizeOf(c: Cohort, filtered: boolean, preview: unknown): number | null {
  if (c.source === "dataset") return c.dataset && runnable(c.dataset) ? c.dataset.size : 0;
  if (!filtered) return c.agentVersion?.cohortSize ?? 0;
  return preview && typeof preview === "object" && "matching" in preview ? (preview.matching as number) : null;
}

/** The cohort as an experiment's default name says it. */
export function cohortName(c: Cohort): string | undefined {
  if (c.dataset) return `dataset ${c.dataset.name}`;
  return c.agentVersion ? `${c.agentVersion.agentName} ${c.agentVersion.version}` : undefined;
}

/** The agent version whose recorded sessions are the cohort, and its size. */
export function AgentVersionField({
  agentVersions,
  agentVersionId,
  agentVersion,
  onChange,
  children,
}: {
  agentVersions: readonly AgentVersionCohort[];
  agentVersionId: string;
  agentVersion: AgentVersionCohort | undefined;
  onChange: (id: string) => void;
  children: React.ReactNode;
}) {
  return (
    <>
      <label className="block text-sm">
        <span className="font-medium text-slate-900">Agent version</span>
        <span className="block text-xs text-slate-500">
          The cohort is the recorded sessions of this version (replays excluded); narrow it below.
        </span>
        <select
          value={agentVersionId}
          onChange={(e) => onChange(e.target.value)}
          className="mt-1 block w-full rounded-md border border-slate-300 bg-white px-3 py-1.5 text-sm"
        >
          {agentVersions.map((v) => (
            <option key={v.id} value={v.id} disabled={v.cohortSize === 0}>
              {v.agentName} {v.version} · {v.cohortSize} session{v.cohortSize === 1 ? "" : "s"}
            </option>
          ))}
        </select>
        {children}
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
    </>
  );
}

/** The cohort's sources as the radio buttons name them. */
const SOURCES = [
  ["version", "An agent version's sessions"],
  ["dataset", "A saved dataset"],
] as const;

/** Where the cohort comes from: an agent version's recorded sessions, or a saved dataset (its members as they are now). */
export function CohortSourceField({
  source,
  onSource,
  datasets,
  datasetId,
  onDataset,
  children,
}: {
  source: "version" | "dataset";
  onSource: (source: "version" | "dataset") => void;
  datasets: readonly DatasetChoice[];
  datasetId: string;
  onDataset: (id: string) => void;
  children: React.ReactNode;
}) {
  return (
    <fieldset className="space-y-2 text-sm">
      <legend className="font-medium text-slate-900">Cohort</legend>
      <div className="flex flex-wrap gap-x-5 gap-y-1">
        {SOURCES.map(([value, words]) => (
          <label key={value} className="inline-flex items-center gap-2">
            <input
              type="radio"
              name="cohort-source"
              checked={source === value}
              onChange={() => onSource(value)}
              className="accent-indigo-600"
            />
            {words}
          </label>
        ))}
      </div>
      {source === "dataset" ? (
        <label className="block">
          <span className="block text-xs text-slate-600">
            Its sessions as they are now are replayed; the experiment keeps them if the dataset changes later.
          </span>
          <select
            value={datasetId}
            onChange={(e) => onDataset(e.target.value)}
            aria-label="Dataset"
            className="mt-1 block w-full rounded-md border border-slate-300 bg-white px-3 py-1.5 text-sm"
          >
            {datasets.map((d) => (
              <option key={d.id} value={d.id} disabled={!runnable(d)}>
                {d.name} · {d.size} session{d.size === 1 ? "" : "s"}
                {d.agents.length === 1
                  ? ` · ${d.agents[0]!.agentName}`
                  : d.agents.length > 1
                    ? " · several agents"
                    : ""}
              </option>
            ))}
          </select>
        </label>
      ) : null}
      {children}
    </fieldset>
  );
}

/** What a dataset cohort holds, or why it cannot be run. */
export function DatasetCohortNote({ dataset }: { dataset: DatasetChoice }) {
  if (dataset.size === 0) return <>Dataset {dataset.name} holds no sessions; add some from the session list.</>;
  if (dataset.agents.length > 1)
    return (
      <>
        Dataset {dataset.name} holds sessions of {dataset.agents.length} agents (
        {dataset.agents.map((a) => a.agentName).join(", ")}); an experiment replays one agent&apos;s sessions.
      </>
    );
  return (
    <>
      Cohort: <strong className="tabular-nums">{dataset.size}</strong> session{dataset.size === 1 ? "" : "s"} of dataset{" "}
      <strong>{dataset.name}</strong> ({dataset.agents[0]?.agentName}). Each is replayed once, as a job for the workers.
    </>
  );
}
