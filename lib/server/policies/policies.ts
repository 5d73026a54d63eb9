/**
 * Policies and their immutable versions: create (from a preset or an imported
 * document), save a version (validated where it will run), save by name (for
 * automation), declare a tool's side effect, try a rule on a recorded call.
 */
import { z } from "zod";
import type { Db } from "@/lib/db";
import { historyLookupFor } from "@/lib/db/history";
import {
  addPolicyVersion,
  agentContext,
  agentIdOfName,
  agentSessionEvents,
  agentTools,
  createPolicy as insertPolicy,
  getPolicy as readPolicy,
  listAgents,
  listPolicies as readPolicies,
  policyOwner,
  policyVersionsForAgent as readVersionsForAgent,
  recordedCalls,
  savePolicyByName as upsertPolicyByName,
  setToolSideEffect as upsertToolSideEffect,
  type AgentContext,
  type PolicyWithVersions,
  type SavedVersion,
} from "@/lib/db/policies";
import { withTransaction } from "@/lib/db/transactions";
import { AppError, notFound } from "@/lib/errors";
import { importPolicyText } from "@/lib/policies/interchange";
import { presetPolicy } from "@/lib/policies/presets";
import { validateInContext } from "@/lib/policies/validation";
import {
  explainToolRule,
  SideEffect,
  ToolLevel,
  type InterchangeIssue,
  type Policy,
  type PolicyIssue,
  type RuleExplanation,
} from "@/lib/replay";
import { authorize } from "../authz";
import type { Principal } from "../principal";

const Id = z.string().min(1).max(64);

/** A policy document: anything present (checked by validation, not by shape). */
const PolicyDocument = z.unknown().refine((v) => v !== undefined, "Required");

function issuePath(path: readonly (string | number)[]): string {
  return path
    .map((p) => (typeof p === "number" ? `[${p}]` : p))
    .join(".")
    .replaceAll(".[", "[");
}

/** A 400 naming each error of an invalid document, at its path under `policy`. */
function invalidPolicyError(errors: readonly PolicyIssue[]): AppError {
  return new AppError(
    "invalid_policy",
    `The policy has ${errors.length} error${errors.length === 1 ? "" : "s"}; nothing was saved.`,
    errors.map((e) => ({ path: ["policy", issuePath(e.path)].filter(Boolean).join("."), message: e.message })),
  );
}

async function requireAgent(prisma: Db, agentId: string | null | undefined): Promise<AgentContext | null> {
  if (!agentId) return null;
  const agent = await agentContext(prisma, agentId);
  if (!agent) throw notFound("agent", agentId, "agentId");
  return agent;
}

/** The document checked where it will run. */
function checked(document: unknown, agent: AgentContext | null): Policy {
  const result = validateInContext(document, agent);
  if (!result.ok) throw invalidPolicyError(result.errors);
  return result.policy;
}

// ---------------------------------------------------------------------------

export const CreatePolicyInput = z.object({
  name: z.string().trim().min(1, "Give the policy a name").max(200),
  agentId: Id.optional(),
  source: z.discriminatedUnion("kind", [
    z.object({ kind: z.literal("preset"), preset: z.union([ToolLevel, z.literal("recommended")]) }),
    z.object({ kind: z.literal("import"), text: z.string().min(1, "Paste or upload a policy").max(1_000_000) }),
  ]),
});
export type CreatePolicyInput = z.infer<typeof CreatePolicyInput>;

/**
 * Creates a policy from a preset or an imported document. A document that
 * passes validation for the agent becomes version 1; one that does not comes
 * back as a draft for the editor (nothing invalid is ever saved as a version).
 */
export async function createPolicy(principal: Principal, input: CreatePolicyInput, prisma: Db) {
  authorize(principal, "policies.write");
  const agent = await requireAgent(prisma, input.agentId);
  let document: Policy;
  let issues: InterchangeIssue[] = [];
  if (input.source.kind === "preset") {
    document = presetPolicy(input.source.preset, agent);
  } else {
    const imported = importPolicyText(input.source.text, agent ? { knownTools: agent.tools } : {});
    if (!imported.ok) {
      throw new AppError(
        "invalid_policy",
        "The document could not be imported.",
        imported.issues.map((i) => ({
          path: `source.text${i.path.length ? `.${i.path.join(".")}` : ""}`,
          message: i.message,
        })),
      );
    }
    document = imported.policy;
    issues = imported.issues;
  }
  const valid = validateInContext(document, agent).ok;
  const created = await withTransaction(prisma, (tx) =>
    insertPolicy(tx, {
      name: input.name,
      agentId: agent?.id,
      document: valid ? document : undefined,
      note: valid ? "created" : undefined,
    }),
  );
  return { id: created.id, version: created.version?.version ?? 0, draft: valid ? null : document, issues };
}

export const SavePolicyVersionInput = z.object({
  policyId: Id,
  policy: PolicyDocument,
  note: z.string().max(2000).optional(),
});
export type SavePolicyVersionInput = z.infer<typeof SavePolicyVersionInput>;

/** Saves a document as a new immutable version of a policy, validated for its agent; an unchanged document creates none (`created: false`). */
export async function savePolicyVersion(
  principal: Principal,
  input: SavePolicyVersionInput,
  prisma: Db,
): Promise<SavedVersion> {
  authorize(principal, "policies.write");
  const owner = await policyOwner(prisma, input.policyId);
  if (!owner) throw notFound("policy", input.policyId);
  const policy = checked(input.policy, await requireAgent(prisma, owner.agentId));
  return withTransaction(prisma, (tx) => addPolicyVersion(tx, owner.id, policy, { note: input.note }));
}

export const SavePolicyByNameInput = z
  .strictObject({
    name: z.string().trim().min(1).max(200),
    agentId: Id.optional(),
    /** The agent by name, as sessions show it: for scripts that know the name only. */
    agentName: z.string().trim().min(1).max(200).optional(),
    policy: PolicyDocument,
    note: z.string().max(2000).optional(),
  })
  .refine((b) => b.agentId === undefined || b.agentName === undefined, {
    path: ["agentName"],
    message: "give agentId or agentName, not both",
  });
export type SavePolicyByNameInput = z.infer<typeof SavePolicyByNameInput>;

/**
 * A new version of the policy named `name` (for the agent, when given by id
 * or name), creating the policy on first use. The same document always has
 * the same hash, and saving it again creates no version. The check's warnings
 * come back with it.
 */
export async function savePolicyByName(
  principal: Principal,
  input: SavePolicyByNameInput,
  prisma: Db,
): Promise<SavedVersion & { warnings: PolicyIssue[] }> {
  authorize(principal, "policies.write");
  let agentId = input.agentId ?? null;
  if (input.agentName !== undefined) {
    agentId = await agentIdOfName(prisma, input.agentName);
    if (agentId === null)
      throw new AppError("not_found", `No agent named "${input.agentName}".`, [
        { path: "agentName", message: "unknown agent" },
      ]);
  }
  const result = validateInContext(input.policy, await requireAgent(prisma, agentId));
  if (!result.ok) throw invalidPolicyError(result.errors);
  const policy = result.policy;
  const saved = await withTransaction(prisma, (tx) =>
    upsertPolicyByName(tx, { name: input.name, agentId, document: policy, note: input.note }),
  );
  return { ...saved, warnings: result.warnings };
}

export const SetToolSideEffectInput = z.object({
  agentId: Id,
  tool: z.string().trim().min(1).max(200),
  sideEffect: SideEffect,
});
export type SetToolSideEffectInput = z.infer<typeof SetToolSideEffectInput>;

/** Declares a tool's side-effect class on its tool row. */
export async function setToolSideEffect(principal: Principal, input: SetToolSideEffectInput, prisma: Db) {
  authorize(principal, "policies.write");
  await requireAgent(prisma, input.agentId);
  return upsertToolSideEffect(prisma, input.agentId, input.tool, input.sideEffect);
}

export const TryRuleInput = z.object({
  agentId: Id,
  document: z.unknown(),
  sessionId: Id,
  seq: z.number().int().nonnegative(),
});
export type TryRuleInput = z.infer<typeof TryRuleInput>;

/** What the document's rule would return for one recorded call of the agent; nothing runs live. */
export async function tryRule(principal: Principal, input: TryRuleInput, prisma: Db): Promise<RuleExplanation> {
  authorize(principal, "policies.read");
  const agent = await requireAgent(prisma, input.agentId);
  const result = validateInContext(input.document, agent);
  if (!result.policy) throw new AppError("invalid_policy", "Fix the document's schema errors first; then try a rule.");
  const session = await agentSessionEvents(prisma, input.agentId, input.sessionId);
  if (!session)
    throw new AppError("not_found", "That session is not one of this agent's.", [
      { path: "sessionId", message: "not a session of this agent" },
    ]);
  const event = session.events.find((e) => e.seq === input.seq);
  if (!event || event.kind !== "tool_call")
    throw new AppError("invalid_input", `Step ${input.seq} of that session is not a tool call.`, [
      { path: "seq", message: "not a tool call" },
    ]);
  // The replay's lookup: `agent` scope reads the agent's sessions that are not
  // replays; `cohort_version` (experiments only) is tried as the cohort of
  // this session's agent version.
  return explainToolRule(result.policy, { seq: input.seq }, session.events, {
    tools: agent?.tools ?? [],
    ...(agent ? { adapter: agent.adapter } : {}),
    historyLookup: historyLookupFor(prisma, { agentId: input.agentId, cohortAgentVersionId: session.agentVersionId }),
    cohort: { agentVersionId: session.agentVersionId },
  });
}

// ---------------------------------------------------------------------------
// Reading

export const PolicyRef = z.object({ policyId: Id });
export type PolicyRef = z.infer<typeof PolicyRef>;

/** The policy with its versions, newest first. */
export async function getPolicy(principal: Principal, input: PolicyRef, prisma: Db): Promise<PolicyWithVersions> {
  authorize(principal, "policies.read");
  const policy = await readPolicy(prisma, input.policyId);
  if (!policy) throw notFound("policy", input.policyId);
  return policy;
}

/** The policy, and for its agent: the context it is validated in, its tools and recorded calls (the editor's data). */
export async function getPolicyForEditor(principal: Principal, input: PolicyRef, prisma: Db) {
  authorize(principal, "policies.read");
  const policy = await readPolicy(prisma, input.policyId);
  if (!policy) throw notFound("policy", input.policyId);
  const [agent, tools, calls] = policy.agentId
    ? await Promise.all([
        agentContext(prisma, policy.agentId),
        agentTools(prisma, policy.agentId),
        recordedCalls(prisma, policy.agentId),
      ])
    : [null, [], []];
  return { policy, agent, tools, calls };
}

/** Every policy (newest first) and the agents a new one can be for. */
export async function listPolicies(principal: Principal, _input: Record<string, never>, prisma: Db) {
  authorize(principal, "policies.read");
  const [policies, agents] = await Promise.all([readPolicies(prisma), listAgents(prisma)]);
  return { policies, agents };
}

export const AgentRef = z.object({ agentId: Id });
export type AgentRef = z.infer<typeof AgentRef>;

/** The policy versions a session of the agent can be replayed with. */
export async function policyVersionsForAgent(principal: Principal, input: AgentRef, prisma: Db) {
  authorize(principal, "policies.read");
  return readVersionsForAgent(prisma, input.agentId);
}
