/**
 * Storing an experiment, for both cohort kinds: `agent_version` (an agent version's recorded sessions, or a
 * chosen subset, see ./experiments.ts) and `sessions` (an explicit list of sessions of one agent, of any of
 * its versions: a failure cluster's fix). The policy is checked the same way for both, and the experiment is
 * stored with one queued replay per session in one transaction, so the same jobs run either kind.
 */
import {
  checkPolicy,
  Capability,
  fitCohortEdit,
  Policy,
  policyHash,
  type CohortEdit,
  type Edit,
  type PolicyIssue,
} from "@/lib/replay";
import { setReplayCounterfactual } from "@/lib/db/checks";
import type { Db, DbClient } from "@/lib/db/client";
import { hasModelEndpoint } from "@/lib/db/executors";
import { agentVersionById, createExperimentRow, toolCallsOf } from "@/lib/db/experiments";
import { knownTools } from "@/lib/db/history";
import { agentContext, getPolicyVersionById, savePolicyByName } from "@/lib/db/policies";
import { REPLAY_PRESET_WORDS } from "@/lib/policies/labels";
import { replayPresetPolicy, type ReplayPreset } from "@/lib/policies/presets";
import { withTransaction } from "@/lib/db/transactions";
import { createReplayRow } from "@/lib/db/replay-writes";
import { AppError, notFound } from "@/lib/errors";
import { LIVE_MODEL_POLICIES, type CheckRef, resolveChecks } from "../checks/counterfactual";

type PolicyVersionRow = NonNullable<Awaited<ReturnType<typeof getPolicyVersionById>>> & { id: string };
export type AgentVersionRow = NonNullable<Awaited<ReturnType<typeof agentVersionById>>>;

export interface ExperimentPlan {
  /** The saved version run (`id` empty when `savePolicy` saves it with the experiment). */
  version: Pick<PolicyVersionRow, "id">;
  agentVersion: AgentVersionRow;
  policy: Policy;
  warnings: PolicyIssue[];
  /** A preset's document is saved with the experiment (its `version.id` is empty): a saved version's hash is evidence. */
  savePolicy?: (tx: DbClient, createdBy: string) => Promise<string>;
}

/**
 * The policy version and agent version an experiment names, with the policy checked for that agent version
 * (the editor's and a replay's check: its errors block). Refused before anything is written.
 */
export async function planExperiment(
  prisma: Db,
  policyVersionId: string,
  agentVersionId: string,
): Promise<ExperimentPlan> {
  const [version, agentVersion] = await Promise.all([
    getPolicyVersionById(prisma, policyVersionId),
    agentVersionById(prisma, agentVersionId),
  ]);
  if (!version) throw notFound("policy version", policyVersionId, "policyVersionId");
  if (!agentVersion) throw notFound("agent version", agentVersionId, "agentVersionId");
  if (version.policy.agentId && version.policy.agentId !== agentVersion.agentId) {
    throw new AppError(
      "invalid_input",
      `Policy "${version.policy.name}" belongs to another agent; choose a policy for this agent or one without an agent.`,
      [{ path: "policyVersionId", message: "belongs to another agent" }],
    );
  }
  const parsed = Policy.safeParse(version.document);
  if (!parsed.success)
    throw new AppError("invalid_policy", "The stored policy version is not a valid policy document.");
  const policy = parsed.data;
  const warnings = await vetExperimentPolicy(prisma, policy, agentVersion, "policyVersionId");
  return {
    version: { ...version, id: policyVersionId },
    agentVersion,
    policy,
    warnings,
  };
}

/**
 * A preset (the replay form's: recommended, recorded only, fork-live) adapted to the agent version's adapter,
 * capabilities and known tools, checked as a saved version is; saved, as the agent's policy named after the
 * preset, in the experiment's transaction (saving the same document again adds no version).
 */
export async function planPresetExperiment(
  prisma: Db,
  preset: ReplayPreset,
  agentVersionId: string,
): Promise<ExperimentPlan> {
  const agentVersion = await agentVersionById(prisma, agentVersionId);
  if (!agentVersion) throw notFound("agent version", agentVersionId, "agentVersionId");
  const [agent, tools] = await Promise.all([
    agentContext(prisma, agentVersion.agentId),
    knownTools(prisma, agentVersion.agentId),
  ]);
  const policy = replayPresetPolicy(preset, {
    adapter: agent?.adapter ?? "generic",
    capabilities: agentVersion.capabilities.filter((c): c is Capability => Capability.safeParse(c).success),
    tools,
  });
  const warnings = await vetExperimentPolicy(prisma, policy, agentVersion, "preset");
  return {
    version: { id: "" },
    agentVersion,
    policy,
    warnings,
    savePolicy: async (tx, createdBy) =>
      (
        await savePolicyByName(tx, {
          name: `${REPLAY_PRESET_WORDS[preset].label} (preset)`,
          agentId: agentVersion.agentId,
          document: policy,
          createdBy,
        })
      ).versionId,
  };
}

/** An edit across a cohort, fitted to each member: the seq-addressed edits of those it applies to, and why not for the others. */
export interface FittedCohortEdit {
  edit: CohortEdit;
  /** With several edits composed (a cluster's fix): every one of them, `edit` being the first. */
  all?: CohortEdit[];
  edits: Map<string, Edit[]>;
  notApplied: { sessionId: string; reason: string }[];
}

/**
 * Fits an edit across the cohort to each member's recorded calls of its tool. Refused when it applies to no
 * member (nothing would be edited), naming `field` (the body's field the edit came in).
 */
export async function fitEditToCohort(
  prisma: Db,
  edit: CohortEdit,
  sessionIds: readonly string[],
  field = "edit",
): Promise<FittedCohortEdit> {
  const calls = await toolCallsOf(prisma, sessionIds, edit.tool);
  const bySession = new Map<string, typeof calls>();
  for (const c of calls) bySession.set(c.sessionId, [...(bySession.get(c.sessionId) ?? []), c]);
  const edits = new Map<string, Edit[]>();
  const notApplied: FittedCohortEdit["notApplied"] = [];
  for (const sessionId of sessionIds) {
    const fit = fitCohortEdit(
      (bySession.get(sessionId) ?? []).map((c) => ({ ...c, kind: "tool_call" as const })),
      edit,
    );
    if (fit.applies) edits.set(sessionId, fit.edits);
    else notApplied.push({ sessionId, reason: fit.reason });
  }
  if (edits.size === 0) {
    const reasons = [...new Set(notApplied.map((n) => n.reason))];
    throw new AppError(
      "invalid_input",
      `The edit applies to no session of the cohort (${sessionIds.length}): ${reasons.slice(0, 3).join(" ")}`,
      [{ path: `${field}.${edit.args ? "args" : "tool"}`, message: "matches no recorded call in the cohort" }],
    );
  }
  return { edit, edits, notApplied };
}

/**
 * Checks a policy document for an agent version as an experiment runs it: the editor's and a replay's check
 * (its errors block), and a live model needs a model endpoint (unless one was named: the built-in demo model is
 * not a configured one). Returns the warnings (and errors) to show.
 */
export async function vetExperimentPolicy(
  prisma: Db,
  policy: Policy,
  agentVersion: AgentVersionRow,
  path: string,
  endpointNamed = false,
): Promise<PolicyIssue[]> {
  const agent = await agentContext(prisma, agentVersion.agentId);
  const validation = checkPolicy(policy, {
    adapter: agent?.adapter ?? "generic",
    capabilities: agentVersion.capabilities.filter((c): c is Capability => Capability.safeParse(c).success),
    use: "experiment",
    knownTools: agent?.tools ?? [],
  });
  const blocking = validation.errors;
  if (blocking.length > 0) {
    throw new AppError(
      "invalid_policy",
      blocking.map((i) => i.message).join(" "),
      blocking.map((i) => ({ path: ["policy", ...i.path].join("."), message: i.message })),
    );
  }
  if (LIVE_MODEL_POLICIES.has(policy.model) && !endpointNamed && !(await hasModelEndpoint(prisma))) {
    throw new AppError(
      "executor_missing",
      `Model policy "${policy.model}" runs a live model, and no model endpoint is configured (Settings → Executors).`,
      [{ path, message: "needs a model endpoint" }],
    );
  }
  return [...validation.errors, ...validation.warnings];
}

export interface StoreExperiment {
  name: string;
  plan: ExperimentPlan;
  sessionIds: readonly string[];
  checks: readonly CheckRef[];
  cohortKind: "agent_version" | "sessions" | "dataset";
  /** The dataset the cohort was taken from (kind `dataset`). */
  dataset?: { id: string; name: string };
  createdBy: string;
  /** Saves the policy version in the experiment's transaction (a policy written inline); else the plan's. */
  savePolicy?: (tx: DbClient) => Promise<string>;
  /** Writes what belongs with the experiment in its transaction (a cluster's fix record). */
  alongside?: (tx: DbClient, experimentId: string) => Promise<void>;
  /** An edit across the cohort: each member it applies to carries its own edits. */
  cohortEdit?: FittedCohortEdit;
  /** The model endpoint a live model policy runs on (a cluster's fix names one); else the executor's choice. */
  modelEndpointId?: string | null;
}

/** Stores the experiment (status `pending`) and one queued replay per session, in one transaction; returns its id. */
export async function storeExperiment(prisma: Db, e: StoreExperiment): Promise<string> {
  const checks = await resolveChecks(prisma, e.checks);
  const { version, agentVersion, policy } = e.plan;
  const hash = policyHash(policy);
  return withTransaction(prisma, async (tx) => {
    const policyVersionId = e.savePolicy
      ? await e.savePolicy(tx)
      : e.plan.savePolicy
        ? await e.plan.savePolicy(tx, e.createdBy)
        : version.id;
    const experiment = await createExperimentRow(tx, {
      name: e.name,
      policyVersionId,
      agentVersionId: agentVersion.id,
      cohortKind: e.cohortKind,
      ...(e.dataset ? { dataset: e.dataset } : {}),
      createdBy: e.createdBy,
      ...(e.cohortEdit
        ? {
            cohortEdit: {
              edit: e.cohortEdit.edit,
              ...(e.cohortEdit.all ? { edits: e.cohortEdit.all } : {}),
              notApplied: e.cohortEdit.notApplied,
            },
          }
        : {}),
    });
    for (const sessionId of e.sessionIds) {
      const replay = await createReplayRow(tx, {
        sessionId,
        policy,
        policyHash: hash,
        policyVersionId,
        experimentId: experiment.id,
        edits: e.cohortEdit?.edits.get(sessionId) ?? [],
        createdBy: e.createdBy,
      });
      if (checks.length > 0 || e.modelEndpointId)
        await setReplayCounterfactual(tx, replay.id, {
          modelEndpointId: e.modelEndpointId ?? null,
          checks,
          trialSetId: null,
          trialIndex: null,
        });
    }
    await e.alongside?.(tx, experiment.id);
    return experiment.id;
  });
}

/**
 * Fits an optional edit to the cohort, stores the experiment with it and answers what the API and the form show:
 * the new experiment's id, its size, the plan's warnings and how many members the edit applies to.
 */
export async function storeCohortExperiment(
  prisma: Db,
  e: Omit<StoreExperiment, "cohortEdit"> & { edit?: CohortEdit | undefined },
) {
  const { edit, ...rest } = e;
  const cohortEdit = edit ? await fitEditToCohort(prisma, edit, e.sessionIds) : undefined;
  const id = await storeExperiment(prisma, { ...rest, ...(cohortEdit ? { cohortEdit } : {}) });
  return {
    id,
    status: "pending" as const,
    total: e.sessionIds.length,
    warnings: e.plan.warnings,
    ...(cohortEdit ? { edit: { applied: cohortEdit.edits.size, notApplied: cohortEdit.notApplied } } : {}),
  };
}
