/**
 * A dataset as an experiment's cohort: its members as they are now, which must be sessions of one agent (an
 * experiment replays one agent's runs), and the agent version its policy is checked for. Helpers of the experiment
 * operations (which authorize), not operations themselves.
 */
import type { Db } from "@/lib/db/client";
import { newestAgentVersion } from "@/lib/db/cluster-fixes";
import { datasetAgents, datasetRow, datasetRows, memberSessions } from "@/lib/db/datasets";
import { agentVersionById } from "@/lib/db/experiments";
import { AppError, notFound } from "@/lib/errors";
import type { CohortEdit } from "@/lib/replay";
import type { ReplayPreset } from "@/lib/policies/presets";
import type { CheckRef } from "../checks/counterfactual";
import { planExperiment, planPresetExperiment, storeCohortExperiment } from "../experiments/experiment-create";

/** What an experiment over a dataset is given (the experiment operation's input, checked there). */
export interface DatasetExperimentInput {
  name: string;
  datasetId: string;
  agentVersionId?: string;
  policyVersionId?: string;
  preset?: ReplayPreset;
  checks?: CheckRef[];
  edit?: CohortEdit;
}

export interface DatasetCohort {
  dataset: { id: string; name: string };
  sessionIds: string[];
  agentVersionId: string;
}

/** The dataset's members and the agent version to plan for; refused when it is empty or spans agents. */
export async function datasetCohort(prisma: Db, datasetId: string, agentVersionId?: string): Promise<DatasetCohort> {
  const dataset = await datasetRow(prisma, datasetId);
  if (!dataset) throw notFound("dataset", datasetId, "datasetId");
  const members = await memberSessions(prisma, datasetId);
  if (members.length === 0)
    throw new AppError("invalid_input", `Dataset "${dataset.name}" holds no sessions; add some first.`, [
      { path: "datasetId", message: "no sessions" },
    ]);
  const agents = new Map(members.map((m) => [m.agentId, m.agent.name]));
  if (agents.size > 1)
    throw new AppError(
      "invalid_input",
      `Dataset "${dataset.name}" holds sessions of ${agents.size} agents (${[...agents.values()].join(", ")}); an experiment replays one agent's sessions. Make a dataset of one agent's sessions.`,
      [{ path: "datasetId", message: "sessions of more than one agent" }],
    );
  const agentId = members[0]!.agentId;
  let versionId = agentVersionId;
  if (versionId !== undefined) {
    const version = await agentVersionById(prisma, versionId);
    if (!version) throw notFound("agent version", versionId, "agentVersionId");
    if (version.agentId !== agentId)
      throw new AppError(
        "invalid_input",
        `Agent version ${version.version} is not a version of ${agents.get(agentId)}, whose sessions dataset "${dataset.name}" holds.`,
        [{ path: "agentVersionId", message: "a version of another agent" }],
      );
  } else {
    const newest = await newestAgentVersion(prisma, [...new Set(members.map((m) => m.agentVersionId))]);
    if (!newest)
      throw new AppError("conflict", "The dataset's sessions changed while the experiment was being set up.");
    versionId = newest.id;
  }
  return {
    dataset: { id: dataset.id, name: dataset.name },
    sessionIds: members.map((m) => m.id),
    agentVersionId: versionId,
  };
}

/**
 * An experiment over a saved dataset: its members, as they are now, are the cohort (the experiment keeps them as its
 * replays, and the dataset's name, whatever later happens to the dataset). They must be sessions of one agent; the
 * policy is checked for the agent version named, else for the newest version among the members.
 */
export async function createDatasetExperiment(input: DatasetExperimentInput, createdBy: string, prisma: Db) {
  const cohort = await datasetCohort(prisma, input.datasetId, input.agentVersionId);
  const plan = input.preset
    ? await planPresetExperiment(prisma, input.preset, cohort.agentVersionId)
    : await planExperiment(prisma, input.policyVersionId ?? "", cohort.agentVersionId);
  return storeCohortExperiment(prisma, {
    name: input.name,
    plan,
    sessionIds: cohort.sessionIds,
    edit: input.edit,
    checks: input.checks ?? [],
    cohortKind: "dataset",
    dataset: cohort.dataset,
    createdBy,
  });
}

/** The datasets the new-experiment form offers: each with its size and its members' agents. */
export async function datasetChoices(prisma: Db) {
  const rows = await datasetRows(prisma, 200);
  const agents = await datasetAgents(
    prisma,
    rows.map((r) => r.id),
  );
  return rows.map((r) => ({
    id: r.id,
    name: r.name,
    size: r.size,
    agents: agents
      .filter((a) => a.datasetId === r.id)
      .map(({ agentId, agentName, sessions }) => ({ agentId, agentName, sessions })),
  }));
}
export type DatasetChoice = Awaited<ReturnType<typeof datasetChoices>>[number];
