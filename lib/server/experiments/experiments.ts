/**
 * Experiments: one policy version run over a cohort of sessions of
 * one agent version. `createExperiment` checks everything that can be refused
 * and stores the experiment with one replay per cohort session, in one
 * transaction; `runExperiment` runs those replays one after another with the
 * replay service, so each result is stored as soon as it exists. A replay that
 * fails is recorded failed and the experiment goes on; a replay that pauses
 * stays paused (an analyst can resume it) and counts as done.
 */
import { z } from "zod";
import { CheckRef, MAX_CHECKS_PER_REPLAY } from "../checks/counterfactual";
import {
  CohortEdit,
  outcomeSummary,
  runPassed,
  type CheckVerdict,
  type FirstDivergence,
  type OutcomeSummary,
  type PolicyIssue,
} from "@/lib/replay";
import type { StoredVerdicts } from "@/lib/db/checks";
import type { Db, DbClient } from "@/lib/db/client";
import {
  agentVersionsWithCohorts,
  cohortSessions,
  experimentProgress,
  getExperiment as readExperiment,
  memberDeltas,
  listExperiments as readExperiments,
  policyVersionChoices,
  queuedReplayIds,
  type ExperimentRow,
  countCohort,
  type CohortFilter,
} from "@/lib/db/experiments";
import { settleExperiment } from "@/lib/db/jobs";
import { loadReplayComparison } from "@/lib/db/replay-comparison";
import { isTerminal } from "@/lib/db/replays";
import { AppError, notFound } from "@/lib/errors";
import { authorize } from "../authz";
import { countByStatus, experimentState } from "./experiment-status";
import { planExperiment, planPresetExperiment, storeCohortExperiment } from "./experiment-create";
import { REPLAY_PRESETS } from "@/lib/policies/presets";
import { REPLAY_PRESET_WORDS } from "@/lib/policies/labels";
import { hasModelEndpoint } from "@/lib/db/executors";
import { refuseNul } from "../replays/replay-inputs";
import type { Principal } from "../principal";
import type { QueueDeps } from "../job-queue";
import { enqueueReplaysFor } from "../replays/run-queued-replay";
import { createDatasetExperiment, datasetChoices } from "../datasets/dataset-cohort";

const day = z
  .string()
  .refine(
    (v) => /^\d{4}-\d{2}-\d{2}$/.test(v) && !Number.isNaN(Date.parse(`${v}T00:00:00Z`)),
    "Give a date as YYYY-MM-DD.",
  );

/** The session browser's filters, to run an experiment over part of a cohort. Dates are days (UTC), both included. */
export const CohortFilterInput = z
  .object({
    status: z.enum(["completed", "failed", "incomplete"]).optional(),
    tool: z.string().trim().min(1).max(200).optional(),
    q: z.string().trim().min(1).max(200).optional(),
    from: day.optional(),
    to: day.optional(),
  })
  .refine((f) => !(f.from && f.to && f.from > f.to), { message: "The first day comes after the last.", path: ["to"] });
export type CohortFilterInput = z.infer<typeof CohortFilterInput>;

function cohortFilterOf(f: CohortFilterInput | undefined): CohortFilter {
  if (!f) return {};
  const next = (d: string) => new Date(Date.parse(`${d}T00:00:00Z`) + 86_400_000);
  return {
    ...(f.status ? { status: f.status } : {}),
    ...(f.tool ? { tool: f.tool } : {}),
    ...(f.q ? { q: f.q } : {}),
    ...(f.from ? { from: new Date(`${f.from}T00:00:00Z`) } : {}),
    ...(f.to ? { to: next(f.to) } : {}),
  };
}

export const CohortPreviewInput = z.object({
  agentVersionId: z.string().min(1, "Choose an agent version."),
  filter: CohortFilterInput.optional(),
});
export type CohortPreviewInput = z.infer<typeof CohortPreviewInput>;

/** How many sessions of an agent version's cohort the filter keeps, before an experiment is started. */
export async function previewCohort(principal: Principal, input: CohortPreviewInput, prisma: Db) {
  authorize(principal, "experiments.read");
  return countCohort(prisma, input.agentVersionId, cohortFilterOf(input.filter));
}

export const CreateExperimentInput = z
  .object({
    name: z.string().trim().min(1, "Name the experiment.").max(200),
    /** A saved policy version; or `preset`. */
    policyVersionId: z.string().min(1, "Choose a policy version.").optional(),
    /** A preset (the replay form's), adapted to the agent version and saved with the experiment; or `policyVersionId`. */
    preset: z
      .enum(REPLAY_PRESETS as readonly ["recommended", "recorded", "fork-live"], {
        message: `Choose one of the presets: ${REPLAY_PRESETS.join(", ")}.`,
      })
      .optional(),
    /** Whose sessions are the cohort; with `datasetId`, the version the policy is checked for. */
    agentVersionId: z.string().min(1, "Choose an agent version.").max(64).optional(),
    /** A saved dataset's members are the cohort (one agent's sessions, of any of its versions); or `agentVersionId`. */
    datasetId: z.string().min(1, "Choose a dataset.").max(64).optional(),
    /** A chosen subset of the cohort; all of it when left out. */
    sessionIds: z
      .array(z.string().min(1))
      .min(1, "Choose at least one session, or leave the list out for the whole cohort.")
      .max(10_000)
      .optional(),
    /** Outcome checks every member is judged by (saved check ids or inline definitions), on its base run and branch. */
    checks: z.array(CheckRef).max(MAX_CHECKS_PER_REPLAY).optional(),
    /** Only the cohort's sessions these filters keep (with `sessionIds`, both apply). */
    filter: CohortFilterInput.optional(),
    /** One edit on every member where it applies: every call of `tool` (with `args`, when given) returns `value`. */
    edit: CohortEdit.optional(),
  })
  .superRefine((v, ctx) => refuseNul({ edit: v.edit }, ctx))
  .refine((v) => !(v.policyVersionId !== undefined && v.preset !== undefined), {
    message: 'Send either "policyVersionId" or "preset", not both.',
    path: ["preset"],
  })
  .refine((v) => v.agentVersionId !== undefined || v.datasetId !== undefined, {
    message: 'Choose an agent version ("agentVersionId") or a dataset ("datasetId").',
    path: ["agentVersionId"],
  })
  .refine((v) => v.datasetId === undefined || (v.sessionIds ?? v.filter) === undefined, {
    message: 'A dataset is the whole cohort: send "datasetId" without "sessionIds" or "filter".',
    path: ["datasetId"],
  })
  .refine((v) => v.policyVersionId !== undefined || v.preset !== undefined, {
    message: 'Choose a policy version ("policyVersionId") or a preset ("preset").',
    path: ["policyVersionId"],
  });
export type CreateExperimentInput = z.infer<typeof CreateExperimentInput>;
export type ExperimentPresetChoice = Awaited<ReturnType<typeof experimentChoices>>["presets"][number];

export interface CreatedExperiment {
  id: string;
  status: string;
  total: number;
  warnings: PolicyIssue[];
  /** With an edit across the cohort: how many members it applies to, and why not to the others. */
  edit?: { applied: number; notApplied: { sessionId: string; reason: string }[] };
}

/**
 * Stores an experiment and one replay (status `running`, not yet run) per
 * cohort session. Refused before anything is written: an unknown policy or
 * agent version, a policy for another agent, an empty cohort, a session id
 * outside the cohort, a policy that is not valid, a live model without an endpoint.
 */
export async function createExperiment(
  principal: Principal,
  input: CreateExperimentInput,
  prisma: Db,
): Promise<CreatedExperiment> {
  authorize(principal, "experiments.run");
  if (input.datasetId) return createDatasetExperiment({ ...input, datasetId: input.datasetId }, principal.name, prisma);
  const plan = input.preset
    ? await planPresetExperiment(prisma, input.preset, input.agentVersionId ?? "")
    : await planExperiment(prisma, input.policyVersionId ?? "", input.agentVersionId ?? "");
  const { agentVersion } = plan;

  const requested = input.sessionIds ? [...new Set(input.sessionIds)] : undefined;
  const filter = cohortFilterOf(input.filter);
  const filtered = Object.keys(filter).length > 0;
  const cohort = await cohortSessions(prisma, agentVersion.id, requested, filter);
  if (requested && !filtered && cohort.length !== requested.length) {
    const inCohort = new Set(cohort.map((s) => s.id));
    const outside = requested.filter((id) => !inCohort.has(id));
    throw new AppError(
      "invalid_input",
      `${outside.length} of the chosen sessions are not recorded sessions of this agent version: ${outside.slice(0, 5).join(", ")}${outside.length > 5 ? ", …" : ""}.`,
      outside.slice(0, 20).map((id) => ({ path: "sessionIds", message: `"${id}" is not in the cohort` })),
    );
  }
  if (cohort.length === 0 && filtered) {
    throw new AppError(
      "invalid_input",
      `No session of agent version ${agentVersion.version} matches the filters; loosen them.`,
      [{ path: "filter", message: "no session matches" }],
    );
  }
  if (cohort.length === 0) {
    throw new AppError(
      "invalid_input",
      `Agent version ${agentVersion.version} has no recorded sessions; import some first.`,
      [{ path: "agentVersionId", message: "no sessions" }],
    );
  }

  return storeCohortExperiment(prisma, {
    name: input.name,
    plan,
    sessionIds: cohort.map((s) => s.id),
    edit: input.edit,
    checks: input.checks ?? [],
    cohortKind: "agent_version",
    createdBy: principal.name,
  });
}

/**
 * Puts an experiment's queued replays on the job queue: one job per member, so
 * they spread across the workers. The experiment is `running` once a member
 * starts and `completed` (or `cancelled`) when none is queued or running
 * (lib/db/jobs `settleExperiment`). A replay that fails is recorded failed and
 * the others go on; one that pauses stays paused (an analyst can resume it)
 * and counts as done. With no queue plugged in, they run in this call, one after another.
 */
export async function runExperiment(
  principal: Principal,
  input: ExperimentRef,
  prisma: Db,
  deps: QueueDeps = {},
): Promise<void> {
  authorize(principal, "experiments.run");
  const { experimentId } = input;
  const ids = await queuedReplayIds(prisma, experimentId);
  await enqueueReplaysFor(prisma, ids, deps);
  await settleExperiment(prisma, experimentId);
}

/** Stores an experiment with its cohort and puts one job per member replay on the queue: the page polls its progress. */
export async function startExperiment(
  principal: Principal,
  input: CreateExperimentInput,
  prisma: Db,
  deps: QueueDeps = {},
): Promise<CreatedExperiment> {
  const created = await createExperiment(principal, input, prisma);
  await runExperiment(principal, { experimentId: created.id }, prisma, deps);
  return created;
}

// ---------------------------------------------------------------------------
// Reading

export type ExperimentResult = {
  replayId: string;
  session: { id: string; label: string };
  /** `queued` until a worker takes it. */
  status: string;
  comparability: string | null;
  evidenceStrength: string | null;
  firstDivergence: Pick<FirstDivergence, "pairIndex" | "baseSeq" | "branchSeq" | "summary"> | null;
  error: { code: string; message: string } | null;
  stepCount: number;
  /** Branch minus base, for a finished branch (null until then): cost in USD and latency in ms. */
  deltas: { costUsd: number; latencyMs: number } | null;
  /** Whether the base run and the branch passed the experiment's checks (null: no verdict yet, or none possible). */
  outcome: { base: boolean | null; branch: boolean | null };
  /** With an edit across the cohort: whether it applies to this member, and why not (null: no edit). */
  edit: { applied: true } | { applied: false; reason: string } | null;
};

/** An experiment's edit across its cohort, and the members it did not apply to. */
export type ExperimentEdit = CohortEdit & {
  /** Every edit composed across the cohort (a cluster's fix may run several); this one alone for most. */
  all: CohortEdit[];
  applied: number;
  notApplied: { sessionId: string; label: string; reason: string }[];
};

export type ExperimentSummary = {
  total: number;
  done: number;
  byComparability: Record<string, number>;
  byStatus: Record<string, number>;
  /** The members' outcomes under the experiment's checks; null when it has none. */
  outcomes: (OutcomeSummary & { checks: string[] }) | null;
};

export type ExperimentDetail = {
  id: string;
  name: string;
  status: string;
  /** agent_version: the version's recorded sessions; sessions: an explicit list (a failure cluster's fix); dataset: a dataset's members. */
  cohortKind: string;
  /** The dataset the cohort was taken from (`id` null once it was deleted); null for other cohorts. */
  dataset: { id: string | null; name: string } | null;
  createdAt: Date;
  finishedAt: Date | null;
  policyVersion: { id: string; version: number; hash: string; policyId: string; policyName: string };
  agentVersion: { id: string; version: string; agentId: string; agentName: string };
  summary: ExperimentSummary;
  results: ExperimentResult[];
  /** The edit applied across the cohort (null: none). */
  edit: ExperimentEdit | null;
};

const StoredCohortEdit = z.object({
  edit: CohortEdit,
  /** Several edits composed (stored since fixes took several; `edit` is the first). */
  edits: z.array(CohortEdit).optional(),
  notApplied: z.array(z.object({ sessionId: z.string(), reason: z.string() })),
});

function strengthOf(evidence: unknown): string | null {
  if (evidence && typeof evidence === "object" && "strength" in evidence && typeof evidence.strength === "string")
    return evidence.strength;
  return null;
}

function errorOf(value: unknown): { code: string; message: string } | null {
  if (value && typeof value === "object" && "message" in value) {
    const v = value as { code?: unknown; message?: unknown };
    return { code: typeof v.code === "string" ? v.code : "error", message: String(v.message) };
  }
  return null;
}

function outcomeOf(stored: unknown, finished: boolean): ExperimentResult["outcome"] {
  const verdicts = (stored ?? null) as StoredVerdicts | null;
  return {
    base: runPassed(verdicts?.base),
    branch: finished ? runPassed(verdicts?.branch) : null,
  };
}

function checkNamesOf(checks: unknown): string[] {
  return Array.isArray(checks)
    ? checks.flatMap((c: Partial<Pick<CheckVerdict, "name">>) => (typeof c?.name === "string" ? [c.name] : []))
    : [];
}

/** Counts by replay status and comparability, and progress. Pure, for the page and the API alike. */
function summarize(
  results: readonly Pick<ExperimentResult, "status" | "comparability" | "outcome">[],
  checks: readonly string[],
): ExperimentSummary {
  const byComparability: Record<string, number> = {};
  const byStatus: Record<string, number> = {};
  let done = 0;
  for (const r of results) {
    byStatus[r.status] = (byStatus[r.status] ?? 0) + 1;
    if (r.status === "running" || r.status === "queued") continue;
    done += 1;
    if (r.comparability) byComparability[r.comparability] = (byComparability[r.comparability] ?? 0) + 1;
  }
  const outcomes = checks.length > 0 ? { checks: [...checks], ...outcomeSummary(results.map((r) => r.outcome)) } : null;
  return { total: results.length, done, byComparability, byStatus, outcomes };
}

/**
 * Where a member's branch first diverged, and its cost and latency against its base run. An exact member
 * (every step equal) has no divergence and its deltas come from one query for the cohort (`exact`);
 * the others are read from their comparison, whose metrics leave out the base steps a branch never reached.
 */
async function comparisonOf(
  client: DbClient,
  r: ExperimentRow["replays"][number],
  exact: Map<string, { costUsd: number; latencyMs: number }>,
): Promise<Pick<ExperimentResult, "firstDivergence" | "deltas">> {
  // A replay still running, or one that failed before its first step, has nothing to compare.
  if (r.status === "running" || r.status === "queued" || r.stepCount === 0)
    return { firstDivergence: null, deltas: null };
  if (r.comparability === "exact") return { firstDivergence: null, deltas: exact.get(r.id) ?? null };
  const view = await loadReplayComparison(client, r.id, { inputDrift: false });
  if (!view) return { firstDivergence: null, deltas: null };
  const { firstDivergence: d, metrics } = view.comparison;
  return {
    firstDivergence: d
      ? { pairIndex: d.pairIndex, baseSeq: d.baseSeq, branchSeq: d.branchSeq, summary: d.summary }
      : null,
    deltas: isTerminal(r.status) ? { costUsd: metrics.costUsd.delta, latencyMs: metrics.latencyMs.delta } : null,
  };
}

/** An experiment with one result per cohort session, or null when it does not exist. */
async function loadExperiment(client: DbClient, id: string): Promise<ExperimentDetail | null> {
  const row = await readExperiment(client, id);
  if (!row) return null;
  const results: ExperimentResult[] = [];
  const stored = row.cohortEdit === null ? null : StoredCohortEdit.safeParse(row.cohortEdit).data;
  const skipped = new Map(stored?.notApplied.map((n) => [n.sessionId, n.reason]));
  const editOf = (sessionId: string): ExperimentResult["edit"] => {
    if (!stored) return null;
    const reason = skipped.get(sessionId);
    return reason === undefined ? { applied: true } : { applied: false, reason };
  };
  const exact = await memberDeltas(
    client,
    row.replays.filter((r) => r.comparability === "exact" && isTerminal(r.status)).map((r) => r.id),
  );
  for (const r of row.replays) {
    const status = r.status;
    results.push({
      replayId: r.id,
      session: { id: r.session.id, label: r.session.title ?? r.session.externalId ?? r.session.id },
      status,
      comparability:
        isTerminal(r.status) || r.status === "paused" || r.status === "awaiting_approval" ? r.comparability : null,
      evidenceStrength: r.status === "running" || r.status === "queued" ? null : strengthOf(r.evidence),
      ...(await comparisonOf(client, r, exact)),
      error: errorOf(r.error),
      stepCount: r.stepCount,
      outcome: outcomeOf(r.verdicts, isTerminal(r.status)),
      edit: editOf(r.session.id),
    });
  }
  const checks = checkNamesOf(row.replays[0]?.checks);
  return {
    id: row.id,
    name: row.name,
    status: row.status,
    cohortKind: row.cohortKind,
    dataset: row.datasetName !== null ? { id: row.datasetId, name: row.datasetName } : null,
    createdAt: row.createdAt,
    finishedAt: row.finishedAt,
    policyVersion: {
      id: row.policyVersion.id,
      version: row.policyVersion.version,
      hash: row.policyVersion.hash,
      policyId: row.policyVersion.policy.id,
      policyName: row.policyVersion.policy.name,
    },
    agentVersion: {
      id: row.agentVersion.id,
      version: row.agentVersion.version,
      agentId: row.agentVersion.agent.id,
      agentName: row.agentVersion.agent.name,
    },
    summary: summarize(results, checks),
    results,
    edit: stored
      ? {
          ...stored.edit,
          all: stored.edits ?? [stored.edit],
          applied: results.filter((r) => r.edit?.applied).length,
          notApplied: results.flatMap((r) =>
            r.edit && !r.edit.applied
              ? [{ sessionId: r.session.id, label: r.session.label, reason: r.edit.reason }]
              : [],
          ),
        }
      : null,
  };
}

export const ExperimentRef = z.object({ experimentId: z.string().min(1) });
export type ExperimentRef = z.infer<typeof ExperimentRef>;

/** An experiment with its progress and one result per cohort session. */
export async function getExperiment(principal: Principal, input: ExperimentRef, prisma: Db): Promise<ExperimentDetail> {
  authorize(principal, "experiments.read");
  const experiment = await loadExperiment(prisma, input.experimentId);
  if (!experiment) throw notFound("experiment", input.experimentId);
  return experiment;
}

/** Progress, for the poll. */
export async function getExperimentProgress(principal: Principal, input: ExperimentRef, prisma: Db) {
  authorize(principal, "experiments.read");
  const progress = await experimentProgress(prisma, input.experimentId);
  if (!progress) throw notFound("experiment", input.experimentId);
  return progress;
}

/**
 * Experiments newest first, each with its `state` as its own page states it: a
 * run that is over while members wait for a fixture (as after a worker was
 * killed mid-call: the call in doubt is not repeated, its member waits for the
 * answer) reads "waiting for fixtures", not "completed".
 */
export async function listExperiments(principal: Principal, _input: Record<string, never>, prisma: Db) {
  authorize(principal, "experiments.read");
  return (await readExperiments(prisma)).map((e) => ({
    ...e,
    state: experimentState(e.status, countByStatus(e.byStatus)),
  }));
}
export type ExperimentListEntry = Awaited<ReturnType<typeof listExperiments>>[number];

/** What the new-experiment form offers: agent versions with their cohorts, saved datasets, the presets, and saved policy versions. */
export async function experimentChoices(principal: Principal, _input: Record<string, never>, prisma: Db) {
  authorize(principal, "experiments.read");
  const [agentVersions, policyVersions, forkLive, datasets] = await Promise.all([
    agentVersionsWithCohorts(prisma),
    policyVersionChoices(prisma),
    hasModelEndpoint(prisma),
    datasetChoices(prisma),
  ]);
  // Fork-live runs the model live: offered only with a model endpoint to run it on.
  const presets = REPLAY_PRESETS.filter((p) => p !== "fork-live" || forkLive).map((preset) => ({
    preset,
    ...REPLAY_PRESET_WORDS[preset],
  }));
  return { agentVersions, policyVersions, presets, datasets };
}
