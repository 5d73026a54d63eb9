"use server";

import { revalidatePath } from "next/cache";
import { z } from "zod";
import { importPolicyText } from "@/components/policies/interchange";
import { presetPolicy, validateInContext } from "@/components/policies/validation";
import {
  addPolicyVersion,
  agentContext,
  createPolicy,
  invalidPolicyError,
  setToolSideEffect,
  tryRuleOnRecordedCall,
  withTransaction,
  type AgentContext,
} from "@/lib/db/policies";
import { validatedAction } from "@/lib/http/action";
import { ApiError } from "@/lib/http/errors";
import { SideEffect, ToolLevel, type InterchangeIssue, type Policy } from "@/lib/replay";

const Id = z.string().min(1).max(64);

async function requireAgent(
  prisma: Parameters<typeof agentContext>[0],
  agentId: string | null | undefined,
): Promise<AgentContext | null> {
  if (!agentId) return null;
  const agent = await agentContext(prisma, agentId);
  if (!agent)
    throw new ApiError(404, "agent_not_found", "That agent does not exist.", [
      { path: "agentId", message: "unknown agent" },
    ]);
  return agent;
}

const CreateInput = z.object({
  name: z.string().trim().min(1, "Give the policy a name").max(200),
  agentId: Id.optional(),
  source: z.discriminatedUnion("kind", [
    z.object({ kind: z.literal("preset"), preset: z.union([ToolLevel, z.literal("recommended")]) }),
    z.object({ kind: z.literal("import"), text: z.string().min(1, "Paste or upload a policy").max(1_000_000) }),
  ]),
});

/**
 * Creates a policy from a preset or an imported document. A document that
 * passes validation for the agent becomes version 1; one that does not comes
 * back as a draft for the editor (nothing invalid is ever saved as a version).
 */
export const createPolicyAction = validatedAction("policies.write", CreateInput, async (input, prisma, principal) => {
  const agent = await requireAgent(prisma, input.agentId);
  let document: Policy;
  let issues: InterchangeIssue[] = [];
  if (input.source.kind === "preset") {
    document = presetPolicy(input.source.preset, agent);
  } else {
    const imported = importPolicyText(input.source.text, agent ? { knownTools: agent.tools } : {});
    if (!imported.ok) {
      throw new ApiError(
        400,
        "invalid_import",
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
    createPolicy(tx, {
      name: input.name,
      agentId: agent?.id,
      document: valid ? document : undefined,
      note: valid ? "created" : undefined,
      createdBy: principal.name,
    }),
  );
  revalidatePath("/policies");
  return { id: created.id, version: created.version?.version ?? 0, draft: valid ? null : document, issues };
});

const SaveInput = z.object({ policyId: Id, document: z.unknown(), note: z.string().max(2000).optional() });

/** Saves the editor's document as a new immutable version (none when unchanged). */
export const savePolicyVersionAction = validatedAction("policies.write", SaveInput, async (input, prisma, principal) => {
  const policy = await prisma.policy.findUnique({ where: { id: input.policyId }, select: { id: true, agentId: true } });
  if (!policy) throw new ApiError(404, "not_found", "This policy no longer exists.");
  const agent = await requireAgent(prisma, policy.agentId);
  const result = validateInContext(input.document, agent);
  if (!result.ok) throw invalidPolicyError(result.errors, "");
  const saved = await withTransaction(prisma, (tx) =>
    addPolicyVersion(tx, policy.id, result.policy, { note: input.note, createdBy: principal.name }),
  );
  revalidatePath(`/policies/${policy.id}`);
  revalidatePath("/policies");
  return saved;
});

const SideEffectInput = z.object({ agentId: Id, tool: z.string().trim().min(1).max(200), sideEffect: SideEffect });

/** Declares a tool's side-effect class on its tool row. */
export const setToolSideEffectAction = validatedAction("policies.write", SideEffectInput, async (input, prisma, principal) => {
  await requireAgent(prisma, input.agentId);
  return setToolSideEffect(prisma, input.agentId, input.tool, input.sideEffect);
});

const TryInput = z.object({ agentId: Id, document: z.unknown(), sessionId: Id, seq: z.number().int().nonnegative() });

/** What the document's rule would return for one recorded call (nothing runs live). */
export const tryRuleAction = validatedAction("policies.read", TryInput, async (input, prisma, principal) => {
  const agent = await requireAgent(prisma, input.agentId);
  const result = validateInContext(input.document, agent);
  if (!result.policy)
    throw new ApiError(400, "invalid_policy", "Fix the document's schema errors first; then try a rule.");
  const explanation = await tryRuleOnRecordedCall(prisma, {
    agentId: input.agentId,
    policy: result.policy,
    sessionId: input.sessionId,
    seq: input.seq,
  });
  return JSON.parse(JSON.stringify(explanation)) as typeof explanation;
});
