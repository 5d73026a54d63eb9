/**
 * Storing an experiment, for both cohort kinds: `agent_version` (an agent version's recorded sessions, or a
 * chosen subset, see ./experiments.ts) and `sessions` (an explicit list of sessions of one agent, of any of
 * its versions: a failure cluster's fix). The policy is checked the same way for both, and the experiment is
 * stored with one queued replay per session in one transaction, so the same jobs run either kind.
 */
import { checkPolicy, Capability, Policy, policyHash, type PolicyIssue } from "@/lib/replay";
import { setReplayCounterfactual } from "@/lib/db/checks";
import type { Db, DbClient } from "@/lib/db/client";
import { hasModelEndpoint } from "@/lib/db/executors";
import { agentVersionById, createExperimentRow } from "@/lib/db/experiments";
import { agentContext, getPolicyVersionById } from "@/lib/db/policies";
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
 * Checks a policy document for an agent version as an experiment runs it: the editor's and a replay's check
 * (its errors block), and a live model needs a model endpoint. Returns the warnings (and errors) to show.
 */
export async function vetExperimentPolicy(
  prisma: Db,
  policy: Policy,
  agentVersion: AgentVersionRow,
  path: string,
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
  if (LIVE_MODEL_POLICIES.has(policy.model) && !(await hasModelEndpoint(prisma))) {
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
  cohortKind: "agent_version" | "sessions";
  createdBy: string;
  /** Saves the policy version in the experiment's transaction (a policy written inline); else the plan's. */
  savePolicy?: (tx: DbClient) => Promise<string>;
  /** Writes what belongs with the experiment in its transaction (a cluster's fix record). */
  alongside?: (tx: DbClient, experimentId: string) => Promise<void>;
}

/** Stores the experiment (status `pending`) and one queued replay per session, in one transaction; returns its id. */
export async function storeExperiment(prisma: Db, e: StoreExperiment): Promise<string> {
  const checks = await resolveChecks(prisma, e.checks);
  const { version, agentVersion, policy } = e.plan;
  const hash = policyHash(policy);
  return withTransaction(prisma, async (tx) => {
    const policyVersionId = e.savePolicy ? await e.savePolicy(tx) : version.id;
    const experiment = await createExperimentRow(tx, {
      name: e.name,
      policyVersionId,
      agentVersionId: agentVersion.id,
      cohortKind: e.cohortKind,
      createdBy: e.createdBy,
    });
    for (const sessionId of e.sessionIds) {
      const replay = await createReplayRow(tx, {
        sessionId,
        policy,
        policyHash: hash,
        policyVersionId,
        experimentId: experiment.id,
        edits: [],
        createdBy: e.createdBy,
      });
      if (checks.length > 0)
        await setReplayCounterfactual(tx, replay.id, {
          modelEndpointId: null,
          checks,
          trialSetId: null,
          trialIndex: null,
        });
    }
    await e.alongside?.(tx, experiment.id);
    return experiment.id;
  });
}
