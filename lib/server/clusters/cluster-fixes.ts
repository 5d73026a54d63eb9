/**
 * Fixing a failure cluster: a policy (saved, a preset, or written inline, optionally with another model and the
 * model endpoint a live one runs on, and with an edit of a tool's results) run as an experiment over the cluster's
 * members (or a seeded sample) and a control sample of the agent's passing sessions. The experiment is an ordinary one whose cohort is that list of sessions, run by the same jobs; its
 * figures ("fixes M of N, breaks J of K") are read from its replays (lib/clusters/fix.ts decides).
 */
import { z } from "zod";
import { fixFigures, type FixJudge, type FixReplay } from "@/lib/clusters/fix";
import type { Db } from "@/lib/db";
import type { DbClient } from "@/lib/db/client";
import { findCheckByName, type StoredVerdicts } from "@/lib/db/checks";
import {
  branchFailureSteps,
  clusterFixOfExperiment,
  fixReplays,
  insertClusterFix,
  latestPolicyVersion,
  listClusterFixRows,
  newestAgentVersion,
  samplePassingSessions,
  sampleClusterMembers,
  type ClusterFixRow,
} from "@/lib/db/cluster-fixes";
import { clusterIsDemo } from "@/lib/db/cluster-members";
import { clusterById } from "@/lib/db/clusters";
import { agentVersionById } from "@/lib/db/experiments";
import { savePolicyByName } from "@/lib/db/policies";
import { AppError, notFound } from "@/lib/errors";
import { CohortEdit, ModelPolicy, Policy, runPassed, toolLevelPreset, ToolLevel } from "@/lib/replay";
import { authorize } from "../authz";
import { LIVE_MODEL_POLICIES, resolveModelEndpoint } from "../checks/counterfactual";
import { storeExperiment, vetExperimentPolicy } from "../experiments/experiment-create";
import { refuseNul } from "../replays/replay-inputs";
import { runExperiment } from "../experiments/experiments";
import type { QueueDeps } from "../job-queue";
import type { Principal } from "../principal";
import { presentCluster } from "./cluster-shared";
import { fitFixEdits, MAX_FIX_EDITS, storedFixEdits } from "./fix-edits";

const Id = z.string().min(1).max(64);
/** Most members (and control sessions) one fix runs. */
export const MAX_FIX_SESSIONS = 1000;

/** `POST /api/v1/clusters/:id/fixes`: which policy, and over which sessions. */
const FixFields = z
  .strictObject({
    /** A saved policy (its newest version). */
    policyId: Id.optional(),
    /** A policy document written inline (saved with the experiment, as the agent's "Cluster fix" policy). */
    policy: Policy.optional(),
    /** A tool level preset (every model step from the recording). */
    preset: ToolLevel.optional(),
    /** A model change over the chosen policy: another model policy, and the model a live one runs. */
    model: ModelPolicy.optional(),
    liveModel: z.string().trim().min(1).max(200).optional(),
    /** The model endpoint (id or name) a live model policy runs on; by default as a replay chooses it. */
    modelEndpoint: z.string().trim().min(1).max(200).optional(),
    /** An edit of a tool's results on every session where it applies (as an experiment over a cohort takes it). */
    edit: CohortEdit.optional(),
    /** Several such edits, composed where more than one applies to a session (instead of `edit`). */
    edits: z.array(CohortEdit).min(1, "Give at least one edit, or leave edits out.").max(MAX_FIX_EDITS).optional(),
    /** A random sample of this many members (drawn with `seed`); every member when left out. */
    sample: z.number().int().min(1).max(MAX_FIX_SESSIONS).optional(),
    /** This many passing sessions of the agent, drawn with `seed`, run as a control (none when left out). */
    controlSample: z.number().int().min(0).max(MAX_FIX_SESSIONS).optional(),
    seed: z.number().int().min(0).max(2_147_483_647).optional(),
    name: z.string().trim().min(1).max(200).optional(),
  })
  .superRefine((v, ctx) => refuseNul({ edit: v.edit, edits: v.edits }, ctx))
  .refine((b) => b.edit === undefined || b.edits === undefined, {
    message: "Give either edit (one edit) or edits (several), not both.",
    path: ["edits"],
  })
  .refine((b) => [b.policyId, b.policy, b.preset].filter((v) => v !== undefined).length === 1, {
    message: "Give exactly one of policyId (a saved policy), policy (a document) or preset (a tool level).",
    path: ["policyId"],
  });
/** The body, with an own `__proto__` key refused like any other unknown key (zod would pass over it). */
export const ClusterFixBody = z
  .custom<unknown>((v) => !(v && typeof v === "object" && Object.prototype.hasOwnProperty.call(v, "__proto__")), {
    message: 'Unknown key "__proto__".',
  })
  .pipe(FixFields);
export type ClusterFixBody = z.infer<typeof ClusterFixBody>;

export const ClusterFixInput = z.object({ clusterId: Id, body: ClusterFixBody });
export type ClusterFixInput = z.infer<typeof ClusterFixInput>;

/** The policy a fix runs: its document, and the saved version when it is run unchanged. */
async function fixPolicy(prisma: Db, body: ClusterFixBody, agentId: string) {
  let document: Policy;
  let savedVersionId: string | null = null;
  if (body.policyId !== undefined) {
    const version = await latestPolicyVersion(prisma, body.policyId);
    if (!version) throw notFound("policy", body.policyId, "policyId");
    if (version.policy.agentId && version.policy.agentId !== agentId)
      throw new AppError("invalid_input", `Policy "${version.policy.name}" belongs to another agent.`, [
        { path: "policyId", message: "belongs to another agent" },
      ]);
    const parsed = Policy.safeParse(version.document);
    if (!parsed.success) throw new AppError("invalid_policy", "The saved policy is not a valid policy document.");
    document = parsed.data;
    savedVersionId = version.id;
  } else if (body.policy !== undefined) document = body.policy;
  else document = { model: "recorded-only", drift: "continue_to_terminal", tools: toolLevelPreset(body.preset!) };
  if (body.model !== undefined || body.liveModel !== undefined) {
    document = {
      ...document,
      ...(body.model !== undefined ? { model: body.model } : {}),
      ...(body.liveModel !== undefined ? { liveModel: body.liveModel } : {}),
    };
    savedVersionId = null;
  }
  return { document, savedVersionId };
}

/**
 * The model endpoint the fix's live model runs on, when one is named: refused for a model policy that takes every
 * model step from the recording (nothing would call it), and named as a replay names it.
 */
async function fixEndpoint(prisma: Db, body: ClusterFixBody, policy: Policy, clusterId: string) {
  if (body.modelEndpoint === undefined) return null;
  if (!LIVE_MODEL_POLICIES.has(policy.model))
    throw new AppError(
      "invalid_input",
      `A model endpoint serves only a live model: under "${policy.model}" every model step comes from the recording. Choose a live model too.`,
      [{ path: "modelEndpoint", message: "needs a live model policy" }],
    );
  return resolveModelEndpoint(prisma, body.modelEndpoint, undefined, { demo: await clusterIsDemo(prisma, clusterId) });
}

/** How the cluster's members are judged: by its failing check while that check is saved, else by the run. */
async function judgeOf(prisma: Db, checkName: string): Promise<{ judge: FixJudge; checkId: string | null }> {
  if (checkName === "") return { judge: { kind: "run" }, checkId: null };
  const check = await findCheckByName(prisma, checkName);
  return check ? { judge: { kind: "check", checkName }, checkId: check.id } : { judge: { kind: "run" }, checkId: null };
}

/**
 * Starts a fix: samples the members and the control, checks the policy against the newest agent version among
 * the members, stores the experiment with the fix's record in one transaction, and queues its replays.
 * Refused before anything is written: an unknown cluster or policy, a cluster too large without a sample, no
 * passing session for a control asked for, a policy that is not valid for the agent.
 */
export async function startClusterFix(
  principal: Principal,
  input: ClusterFixInput,
  prisma: Db,
  deps: QueueDeps & {
    /** Writes what belongs with the fix in its transaction (a smallest-fix search's record of the probe running). */
    alongside?: (tx: DbClient, experimentId: string) => Promise<void>;
  } = {},
) {
  authorize(principal, "experiments.run");
  const { body } = input;
  const cluster = await clusterById(prisma, input.clusterId);
  if (!cluster) throw notFound("cluster", input.clusterId);
  const seed = body.seed ?? 0;
  const members = await sampleClusterMembers(prisma, cluster.id, body.sample ?? MAX_FIX_SESSIONS + 1, seed);
  if (members.length > MAX_FIX_SESSIONS)
    throw new AppError(
      "invalid_input",
      `The cluster has more than ${MAX_FIX_SESSIONS} sessions; give a sample size (at most ${MAX_FIX_SESSIONS}).`,
      [{ path: "sample", message: "needed for a cluster this large" }],
    );
  if (members.length === 0)
    throw new AppError("invalid_input", "The cluster has no sessions to run a fix over.", [
      { path: "clusterId", message: "no sessions" },
    ]);
  const controlSample = body.controlSample ?? 0;
  const control = await samplePassingSessions(prisma, cluster.agentId, controlSample, seed);
  if (controlSample > 0 && control.length === 0)
    throw new AppError("invalid_input", `Agent ${cluster.agent.name} has no passing session for a control sample.`, [
      { path: "controlSample", message: "no passing session" },
    ]);
  const newest = await newestAgentVersion(prisma, [...new Set(members.map((m) => m.agentVersionId))]);
  const agentVersion = newest ? await agentVersionById(prisma, newest.id) : null;
  if (!agentVersion) throw new AppError("conflict", "The cluster's sessions changed while the fix was being set up.");
  const { document, savedVersionId } = await fixPolicy(prisma, body, cluster.agentId);
  const endpoint = await fixEndpoint(prisma, body, document, cluster.id);
  const warnings = await vetExperimentPolicy(
    prisma,
    document,
    agentVersion,
    body.policyId !== undefined ? "policyId" : "policy",
    endpoint !== null,
  );
  const memberIds = members.map((m) => m.sessionId);
  const cohortEdit = await fitFixEdits(prisma, body, memberIds, control);
  const { judge, checkId } = await judgeOf(prisma, cluster.check);
  const label = presentCluster(cluster).label;
  let fixId = "";
  const experimentId = await storeExperiment(prisma, {
    name: body.name ?? `Fix: ${label}`.slice(0, 200),
    plan: { version: { id: savedVersionId ?? "" }, agentVersion, policy: document, warnings },
    sessionIds: [...memberIds, ...control],
    checks: checkId ? [checkId] : [],
    cohortKind: "sessions",
    createdBy: principal.name,
    ...(cohortEdit ? { cohortEdit } : {}),
    ...(endpoint ? { modelEndpointId: endpoint.id } : {}),
    ...(savedVersionId
      ? {}
      : {
          savePolicy: async (tx) =>
            (
              await savePolicyByName(tx, {
                name: `Cluster fix: ${label}`.slice(0, 200),
                agentId: cluster.agentId,
                document,
                createdBy: principal.name,
              })
            ).versionId,
        }),
    alongside: async (tx, id) => {
      fixId = (
        await insertClusterFix(tx, {
          clusterId: cluster.id,
          experimentId: id,
          judge: judge.kind,
          checkName: judge.kind === "check" ? judge.checkName : null,
          memberIds,
          controlIds: control,
          sample: body.sample ?? null,
          controlSample,
          seed,
          createdBy: principal.name,
        })
      ).id;
      await deps.alongside?.(tx, id);
    },
  });
  await runExperiment(principal, { experimentId }, prisma, deps);
  return {
    id: fixId,
    experimentId,
    members: memberIds.length,
    control: control.length,
    judge,
    warnings: warnings.map((w) => ({ code: w.code, message: w.message })),
    ...(cohortEdit ? { edit: { applied: cohortEdit.edits.size, notApplied: cohortEdit.notApplied } } : {}),
    modelEndpoint: endpoint,
  };
}

const ids = (value: unknown): string[] => (Array.isArray(value) ? value.filter((v) => typeof v === "string") : []);

/** Fixes with their figures, read from their experiments' replays. */
async function presentFixes(prisma: Db, rows: readonly ClusterFixRow[]) {
  const replays = await fixReplays(
    prisma,
    rows.map((r) => r.experimentId),
  );
  const runJudged = new Set(rows.filter((r) => r.judge === "run").map((r) => r.experimentId));
  const steps = await branchFailureSteps(
    prisma,
    replays.filter((r) => runJudged.has(r.experimentId ?? "")).map((r) => r.id),
  );
  return rows.map((row) => {
    const judge: FixJudge = row.judge === "check" ? { kind: "check", checkName: row.checkName ?? "" } : { kind: "run" };
    const bySession = new Map<string, FixReplay>();
    for (const r of replays) {
      if (r.experimentId !== row.experimentId) continue;
      bySession.set(r.sessionId, {
        sessionId: r.sessionId,
        status: r.status,
        branchPassed: runPassed((r.verdicts as StoredVerdicts | null)?.branch),
        steps: steps.get(r.id) ?? [],
      });
    }
    const pick = (list: string[]) => list.flatMap((id) => (bySession.has(id) ? [bySession.get(id)!] : []));
    const controlIds = ids(row.controlIds);
    return {
      id: row.id,
      clusterId: row.clusterId,
      experimentId: row.experimentId,
      experimentName: row.experiment.name,
      status: row.experiment.status,
      policy: {
        id: row.experiment.policyVersion.policy.id,
        name: row.experiment.policyVersion.policy.name,
        versionId: row.experiment.policyVersion.id,
        version: row.experiment.policyVersion.version,
      },
      judge,
      /** The edits of tools' results the fix ran (none: empty). */
      edits: storedFixEdits(row.experiment.cohortEdit),
      sample: row.sample,
      controlSample: row.controlSample,
      seed: row.seed,
      createdBy: row.createdBy,
      createdAt: row.createdAt.toISOString(),
      figures: fixFigures(judge, pick(ids(row.memberIds)), row.controlSample > 0 ? pick(controlIds) : null),
    };
  });
}
export type ClusterFixView = Awaited<ReturnType<typeof presentFixes>>[number];

/** A cluster's fixes, newest first, each with its figures. */
export async function listClusterFixes(principal: Principal, input: { clusterId: string }, prisma: Db) {
  authorize(principal, "experiments.read");
  const cluster = await clusterById(prisma, input.clusterId);
  if (!cluster) throw notFound("cluster", input.clusterId);
  return { fixes: await presentFixes(prisma, await listClusterFixRows(prisma, cluster.id)) };
}

/** The fix an experiment was run for, with its figures and cluster; null for an ordinary experiment. */
export async function fixOfExperiment(principal: Principal, input: { experimentId: string }, prisma: Db) {
  authorize(principal, "experiments.read");
  const row = await clusterFixOfExperiment(prisma, input.experimentId);
  if (!row) return null;
  const [fix] = await presentFixes(prisma, [row]);
  const cluster = await clusterById(prisma, row.clusterId);
  return { ...fix!, clusterLabel: cluster ? presentCluster(cluster).label : null };
}
