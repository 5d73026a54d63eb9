/** What the replay operations take: the checked inputs of starting, resuming, listing and comparing. */
import { PAIR_ID } from "@/lib/session-view/compare-rows";
import { z } from "zod";
import { Edits, EventError } from "@/lib/replay";
import { hasLoneSurrogate } from "@/lib/hostile/text";
import { CounterfactualInput } from "../checks/counterfactual";

/**
 * Where a value holds U+0000 or an unpaired UTF-16 surrogate (in a string or a
 * key), which PostgreSQL cannot store in JSON. Checked before anything runs: a
 * note that could not be saved used to fail after the live call it approved.
 */
function nulPath(value: unknown, path: (string | number)[] = []): (string | number)[] | null {
  if (typeof value === "string") return value.includes("\u0000") || hasLoneSurrogate(value) ? path : null;
  if (Array.isArray(value)) {
    for (let k = 0; k < value.length; k++) {
      const found = nulPath(value[k], [...path, k]);
      if (found) return found;
    }
    return null;
  }
  if (value !== null && typeof value === "object") {
    for (const [key, inner] of Object.entries(value as Record<string, unknown>)) {
      if (key.includes("\u0000") || hasLoneSurrogate(key)) return [...path, key];
      const found = nulPath(inner, [...path, key]);
      if (found) return found;
    }
  }
  return null;
}

/** Refuses a NUL character anywhere in the value, naming its path. */
export function refuseNul(value: unknown, ctx: z.RefinementCtx) {
  const path = nulPath(value);
  if (path)
    ctx.addIssue({
      code: "custom",
      path,
      message:
        "Contains a NUL character (U+0000) or an unpaired UTF-16 surrogate (such as \\ud800), which cannot be stored; remove it.",
    });
}

/** What an agent driving a branch says about itself (it goes into the evidence). */
export const AgentDriverInput = z.strictObject({
  adapter: z.string().trim().min(1).max(100).optional(),
  version: z.string().trim().min(1).max(100).optional(),
  command: z.string().trim().min(1).max(4000).optional(),
  capabilities: z.array(z.string().trim().min(1).max(100)).max(20).optional(),
});
export type AgentDriverInput = z.infer<typeof AgentDriverInput>;

export const StartReplayInput = z
  .object({
    sessionId: z.string().min(1, "Choose a session."),
    policy: z.unknown().optional(),
    policyVersionId: z.string().min(1).optional(),
    edits: Edits.optional(),
    /** "server" (default): the worker runs the branch; "agent": your own agent drives it through the agent endpoints. */
    driver: z.enum(["server", "agent"]).optional(),
    agent: AgentDriverInput.optional(),
  })
  .extend(CounterfactualInput.shape)
  .superRefine((v, ctx) => refuseNul({ policy: v.policy, edits: v.edits, checks: v.checks, agent: v.agent }, ctx))
  .refine((v) => v.agent === undefined || v.driver === "agent", {
    message: '"agent" describes the agent driving the branch: send it with "driver": "agent".',
    path: ["agent"],
  })
  .refine((v) => v.driver !== "agent" || (v.edits ?? []).length === 0, {
    message:
      "Edits are for replays the server runs; when your own agent drives the branch, change a tool's answer with a static or fixture rule instead.",
    path: ["edits"],
  })
  .refine((v) => v.driver !== "agent" || (v.trials ?? 1) === 1, {
    message: "Repeated trials are for replays the server runs; run your agent once per agent-driven replay.",
    path: ["trials"],
  })
  .refine((v) => !(v.policy !== undefined && v.policyVersionId !== undefined), {
    message: 'Send either "policy" or "policyVersionId", not both.',
    path: ["policy"],
  })
  .refine((v) => v.policy !== undefined || v.policyVersionId !== undefined, {
    message: 'Send a "policy" document or a "policyVersionId" (the recommended default is RECOMMENDED_RCA_POLICY).',
    path: ["policy"],
  });
export type StartReplayInput = z.infer<typeof StartReplayInput>;

/** A fixture for the pending call: exactly one of output and error, and a note. */
export const FixtureInput = z
  .object({
    output: z.unknown().optional(),
    error: EventError.optional(),
    note: z.string().trim().min(1, "Say where the value comes from (a note is required).").max(4000),
    /** Optional checks: the call the analyst means. A mismatch is refused. */
    callId: z.string().optional(),
    tool: z.string().optional(),
    provenance: z.record(z.string(), z.unknown()).optional(),
  })
  .superRefine(refuseNul)
  .refine((v) => (v.output !== undefined) !== (v.error !== undefined), {
    message: 'Send exactly one of "output" (the tool\'s result) and "error" ({ type, message }).',
    path: ["output"],
  });
export type FixtureInput = z.infer<typeof FixtureInput>;

export const ApprovalInput = z
  .object({
    decision: z.enum(["approved", "denied"]),
    note: z.string().trim().max(2000).optional(),
    callId: z.string().optional(),
  })
  .superRefine(refuseNul);
export type ApprovalInput = z.infer<typeof ApprovalInput>;

const ReplayId = z.string().min(1, "Name the replay.");

/** `supplyFixture`'s input: the replay and the fixture for its pending call. */
export const SupplyFixtureInput = z.object({ replayId: ReplayId }).and(FixtureInput);
export type SupplyFixtureInput = z.infer<typeof SupplyFixtureInput>;

/** `decideApproval`'s input: the replay and the decision on its pending live call. */
export const DecideApprovalInput = z.object({ replayId: ReplayId }).and(ApprovalInput);
export type DecideApprovalInput = z.infer<typeof DecideApprovalInput>;

export const ReplayRef = z.object({ replayId: ReplayId });
export type ReplayRef = z.infer<typeof ReplayRef>;

export const ListReplaysInput = z.object({
  limit: z.coerce.number().int().min(1).max(200).optional(),
  cursor: z.string().min(1).optional(),
  sessionId: z.string().min(1).optional(),
});
export type ListReplaysInput = z.infer<typeof ListReplaysInput>;

/** Pair ids name their seqs: p<base>-<branch>, i<branch>, r<base>. */
export const ComparisonPairInput = z.object({
  replayId: ReplayId,
  pairId: z.string().regex(PAIR_ID, "not a pair id"),
});
export type ComparisonPairInput = z.infer<typeof ComparisonPairInput>;

export const PolicyWarningsInput = z.object({ sessionId: z.string().min(1), documents: z.array(z.unknown()) });
export type PolicyWarningsInput = z.infer<typeof PolicyWarningsInput>;
