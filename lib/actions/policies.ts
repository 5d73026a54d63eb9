"use server";

import { revalidatePath } from "next/cache";
import { z } from "zod";
import { validatedAction } from "@/lib/http/action";
import {
  CreatePolicyInput,
  createPolicy,
  savePolicyVersion,
  setToolSideEffect,
  SetToolSideEffectInput,
  tryRule,
  TryRuleInput,
} from "@/lib/server/policies/policies";
import { plainPolicy } from "@/lib/replay";

/**
 * Creates a policy from a preset or an imported document. A document that
 * passes validation for the agent becomes version 1; one that does not comes
 * back as a draft for the editor (nothing invalid is ever saved as a version).
 */
export const createPolicyAction = validatedAction(CreatePolicyInput, async (principal, input, prisma) => {
  const created = await createPolicy(principal, input, prisma);
  revalidatePath("/policies");
  return { ...created, draft: plainPolicy(created.draft) };
});

const SaveInput = z.object({
  policyId: z.string().min(1).max(64),
  document: z.unknown(),
  note: z.string().max(2000).optional(),
});

/** Saves the editor's document as a new immutable version (none when unchanged). */
export const savePolicyVersionAction = validatedAction(SaveInput, async (principal, input, prisma) => {
  const saved = await savePolicyVersion(
    principal,
    { policyId: input.policyId, policy: input.document ?? null, note: input.note },
    prisma,
  );
  revalidatePath(`/policies/${input.policyId}`);
  revalidatePath("/policies");
  return saved;
});

/** Declares a tool's side-effect class on its tool row. */
export const setToolSideEffectAction = validatedAction(SetToolSideEffectInput, setToolSideEffect);

/** What the document's rule would return for one recorded call (nothing runs live). */
export const tryRuleAction = validatedAction(TryRuleInput, async (principal, input, prisma) => {
  const explanation = await tryRule(principal, input, prisma);
  return JSON.parse(JSON.stringify(explanation)) as typeof explanation;
});
