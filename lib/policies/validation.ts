import {
  checkPolicy,
  type PolicyCheckContext,
  type PolicyIssue,
  type PolicyUse,
  type PolicyValidation,
} from "@/lib/replay";
import type { AgentContext } from "@/lib/db/policies";

export type { AgentContext };

export function validationContextOf(agent: AgentContext, use: PolicyUse = "saved"): PolicyCheckContext {
  return { adapter: agent.adapter, capabilities: agent.capabilities, knownTools: agent.tools, use };
}

/** Checks that need no agent: the rest depend on an adapter and capabilities a policy without an agent does not have. */
const CONTEXT_FREE_CODES = new Set<PolicyIssue["code"]>([
  "schema",
  "static_case_unreachable",
  "cohort_scope_outside_experiment",
]);

/**
 * Validates a document to be saved, where it will run (pure: the editor runs
 * it on every change, the server again before saving). The same check as a
 * replay's and an experiment's (`checkPolicy`): in the agent's context when
 * the policy has one; otherwise against the schema and the checks that hold
 * whatever runs it.
 */
export function validateInContext(document: unknown, agent: AgentContext | null): PolicyValidation {
  if (agent) return checkPolicy(document, validationContextOf(agent));
  const result = checkPolicy(document, {
    adapter: "generic",
    capabilities: ["overrides", "tool_policies"],
    use: "saved",
  });
  const errors = result.errors.filter((i) => CONTEXT_FREE_CODES.has(i.code));
  const warnings = result.warnings.filter((i) => CONTEXT_FREE_CODES.has(i.code));
  // A document that does not parse has a schema error, which is context-free: policy is null only then.
  if (errors.length > 0 || result.policy === null) return { ok: false, policy: result.policy, errors, warnings };
  return { ok: true, policy: result.policy, errors: [], warnings };
}
