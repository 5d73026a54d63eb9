/**
 * Replay orchestration: loads a base session, its tools and a policy, builds
 * the history lookup for wider scopes from the database, runs the engine with
 * the branch's log first, and persists steps, log, fixtures and status in one
 * transaction per run. Resuming (a fixture, an approval) re-runs the branch
 * from the start with its log, so a live call is never repeated.
 */
import { randomBytes, randomUUID } from "node:crypto";
import { type z } from "zod";
import {
  Policy,
  policyHash,
  validateEdits,
  checkPolicy,
  Adapter,
  Capability,
  type PolicyIssue,
  type SessionEvent,
} from "@/lib/replay";
import type { Db } from "@/lib/db";
import type { DbClient } from "@/lib/db/client";
import { hasModelEndpoint } from "@/lib/db/executors";
import { isDemoModel } from "@/lib/executors/demo-model";
import { knownTools } from "@/lib/db/history";
import { getPolicyVersionById } from "@/lib/db/policies";
import { withTransaction } from "@/lib/db/transactions";
import { createReplayRow } from "@/lib/db/replay-writes";
import { DEFAULT_AGENT_IDLE_TIMEOUT_S, hashAgentToken, makeAgentDriven } from "@/lib/db/agent-replays";
import { setReplayCounterfactual } from "@/lib/db/checks";
import { sessionContext } from "@/lib/db/session-reads";
import { sessionEventsForRun } from "@/lib/db/replay-save";
import { AppError, formatIssuePath, issuesFromZod, notFound } from "@/lib/errors";
import { authorize } from "../authz";
import { LIVE_MODEL_POLICIES, prepareCounterfactual } from "../checks/counterfactual";
import type { Principal } from "../principal";
import type { QueueDeps } from "../job-queue";
import { type PolicyWarningsInput, type StartReplayInput } from "./replay-inputs";
import { enqueueReplaysFor } from "./run-queued-replay";

function policyIssues(error: z.ZodError): ReturnType<typeof issuesFromZod> {
  return issuesFromZod(error, ["policy"]);
}

async function resolvePolicy(
  prisma: Db,
  input: StartReplayInput,
): Promise<{ policy: Policy; policyVersionId: string | null }> {
  if (input.policyVersionId) {
    const version = await getPolicyVersionById(prisma, input.policyVersionId);
    if (!version) throw notFound("policy version", input.policyVersionId, "policyVersionId");
    const parsed = Policy.safeParse(version.document);
    if (!parsed.success)
      throw new AppError(
        "invalid_policy",
        "The stored policy version is not a valid policy document.",
        policyIssues(parsed.error),
      );
    return { policy: parsed.data, policyVersionId: version.id };
  }
  const parsed = Policy.safeParse(input.policy);
  if (!parsed.success)
    throw new AppError("invalid_policy", "The policy document is not valid.", policyIssues(parsed.error));
  return { policy: parsed.data, policyVersionId: null };
}

type SessionContext = { agentId: string; agent: { adapter: string }; agentVersion: { capabilities: string[] } };

async function validateForSession(prisma: Db, session: SessionContext, policy: Policy) {
  const adapter = Adapter.safeParse(session.agent.adapter);
  return checkPolicy(policy, {
    adapter: adapter.success ? adapter.data : "generic",
    capabilities: session.agentVersion.capabilities.filter((c): c is Capability => Capability.safeParse(c).success),
    use: "replay",
    knownTools: await knownTools(prisma, session.agentId),
  });
}

/**
 * The caveats `createReplay` would return as warnings for each policy, before
 * anything is started, so the start form can show them beside the choice.
 * A document that is not a valid policy gets its schema issues.
 */
export async function replayPolicyWarnings(
  principal: Principal,
  input: PolicyWarningsInput,
  prisma: Db,
): Promise<string[][]> {
  authorize(principal, "replays.read");
  const session = await sessionContext(prisma, input.sessionId);
  if (!session) return input.documents.map(() => []);
  return Promise.all(
    input.documents.map(async (document) => {
      const parsed = Policy.safeParse(document);
      if (!parsed.success) return parsed.error.issues.map((i) => i.message);
      const validation = await validateForSession(prisma, session, parsed.data);
      return [...validation.errors, ...validation.warnings].map((i) => i.message);
    }),
  );
}

/** Runs inside the transaction that stores new replays (an investigation records its probe's replays with them); throwing stores nothing. */
export type StoredHook = (tx: DbClient, replayIds: string[]) => Promise<void>;

export interface StartedReplay {
  id: string;
  warnings: PolicyIssue[];
  /** Repeated trials: every trial's replay id (the first is `id`), sharing `trialSetId`. */
  trialSetId?: string;
  trialIds?: string[];
  /** Agent-driven: the replay's token, shown once (stored as its hash). */
  agentToken?: string;
}

/**
 * Checks a replay request and stores the replay (status `running`) with its
 * policy snapshot and hash. Everything that can be refused is refused here,
 * before a row exists: unknown session, bad policy, edits of the wrong kind or
 * seq, a live model policy without an endpoint.
 */
async function checkAndStoreReplay(
  prisma: Db,
  input: StartReplayInput,
  createdBy: string,
  onStored?: StoredHook,
): Promise<StartedReplay> {
  const session = await sessionContext(prisma, input.sessionId);
  if (!session) throw notFound("session", input.sessionId, "sessionId");
  const { policy, policyVersionId } = await resolvePolicy(prisma, input);

  // The stored form: the checks below read seqs, kinds and names, never a model call's whole input.
  const base: SessionEvent[] = await sessionEventsForRun(prisma, session.id);
  const edits = validateEdits(base, input.edits ?? []);
  if (!edits.ok) {
    throw new AppError(
      "invalid_edits",
      `The edits do not fit this session: ${edits.issues.map((i) => i.message).join(" ")}`,
      edits.issues.map((i) => ({ path: formatIssuePath(["edits", ...i.path]), message: i.message })),
    );
  }
  // Demo data runs on the built-in demo model when nothing else is configured; naming that model for other data
  // is refused with its own reason (resolveModelEndpoint).
  if (
    LIVE_MODEL_POLICIES.has(policy.model) &&
    !session.demo &&
    !isDemoModel(input.modelEndpoint) &&
    !(await hasModelEndpoint(prisma))
  ) {
    throw new AppError(
      "executor_missing",
      policy.model === "recorded-until-divergence"
        ? "Fork-live runs the model live from the first step whose input changed, and no model endpoint is configured (Settings → Executors). Without a live model, edits cannot change what the agent does: every later model output would be copied from the record."
        : `Model policy "${policy.model}" runs a live model, and no model endpoint is configured (Settings → Executors).`,
      [{ path: "policy.model", message: "needs a model endpoint" }],
    );
  }
  const counterfactual = await prepareCounterfactual(prisma, input, policy.model, base, session);
  const validation = await validateForSession(prisma, session, policy);
  // The same check as the editor's (checkPolicy): its errors block, its warnings travel with the replay.
  // An agent-driven branch learns what its driver can intercept from the driver: each call is checked then.
  const agentDriven = input.driver === "agent";
  const blocking = validation.errors.filter((i) => !(agentDriven && i.code === "tool_policies_capability_missing"));
  if (blocking.length > 0) {
    throw new AppError(
      "invalid_policy",
      blocking.map((i) => i.message).join(" "),
      blocking.map((i) => ({ path: formatIssuePath(["policy", ...i.path]), message: i.message })),
    );
  }
  // Repeated trials are ordinary replays sharing a trial-set id: one row each, written together.
  const trials = counterfactual.trials;
  const agentToken = agentDriven ? `bpa_${randomBytes(32).toString("base64url")}` : null;
  const trialSetId = trials > 1 ? `ts_${randomUUID()}` : null;
  const ids = await withTransaction(prisma, async (tx) => {
    const created: string[] = [];
    for (let k = 0; k < trials; k++) {
      const { id } = await createReplayRow(tx, {
        sessionId: session.id,
        policy,
        policyHash: policyHash(policy),
        policyVersionId,
        edits: edits.plan.all,
        createdBy,
      });
      await setReplayCounterfactual(tx, id, {
        modelEndpointId: counterfactual.modelEndpointId,
        checks: counterfactual.checks,
        trialSetId,
        trialIndex: trialSetId ? k : null,
      });
      created.push(id);
    }
    if (agentToken)
      await makeAgentDriven(tx, created[0]!, {
        tokenHash: hashAgentToken(agentToken),
        driver: {
          adapter: input.agent?.adapter ?? null,
          version: input.agent?.version ?? null,
          command: input.agent?.command ?? null,
          capabilities: input.agent?.capabilities ?? [],
        },
        idleTimeoutS: policy.agentIdleTimeoutS ?? DEFAULT_AGENT_IDLE_TIMEOUT_S,
      });
    if (onStored) await onStored(tx, created);
    return created;
  });
  return {
    id: ids[0]!,
    warnings: [...validation.errors, ...validation.warnings],
    ...(trialSetId ? { trialSetId, trialIds: ids } : {}),
    ...(agentToken ? { agentToken } : {}),
  };
}

/**
 * Checks and stores a replay without running it (status `queued`); run it
 * with `runReplay` (in the background: the dashboard polls its progress).
 * Repeated trials are stored as one replay each (`trialIds`), to run one by one.
 */
export async function createReplay(
  principal: Principal,
  input: StartReplayInput,
  prisma: Db,
  onStored?: StoredHook,
): Promise<StartedReplay> {
  authorize(principal, "replays.run");
  return checkAndStoreReplay(prisma, input, principal.name, onStored);
}

export interface StartReplayDeps extends QueueDeps {
  /** Runs once the replay is stored, before it is queued (a worker may take it the moment it is): the API reads its answer here. */
  beforeQueued?: (started: StartedReplay) => Promise<void>;
}

/**
 * Checks and stores a new replay, and puts it on the queue: it answers with the replay `queued`.
 * Repeated trials are stored as one replay each, one job each.
 */
export async function startReplay(
  principal: Principal,
  input: StartReplayInput,
  prisma: Db,
  deps: StartReplayDeps = {},
): Promise<StartedReplay> {
  authorize(principal, "replays.run");
  const started = await checkAndStoreReplay(prisma, input, principal.name);
  await deps.beforeQueued?.(started);
  // An agent-driven replay waits for its agent (`waiting_for_agent`): no worker runs it.
  if (!started.agentToken) await enqueueReplaysFor(prisma, started.trialIds ?? [started.id], deps);
  return started;
}
