// ---------------------------------------------------------------------------
// A fix as a set of changes to a base policy, for the smallest fixing change
// over a cluster: the policy's (each tool override, the default tool rule,
// the model, and the run settings) and the fix's edits of tools' results
// (each names a tool, not a step, so it carries across the members). Pure.
// ---------------------------------------------------------------------------
import {
  canonicalJson,
  cohortEditArgsWords,
  deepEqual,
  overrideMap,
  type CohortEdit,
  type Policy,
  type ToolRule,
} from "@/lib/replay";

export type PolicyChange =
  | { kind: "override"; tool: string; rule: ToolRule | null }
  | { kind: "default"; rule: ToolRule }
  | { kind: "model"; model: Policy["model"]; liveModel: string | undefined }
  | { kind: "settings"; fields: Partial<Policy> };

const MODEL_FIELDS = new Set(["model", "liveModel"]);
const own = (o: object | undefined, k: string) => o !== undefined && Object.prototype.hasOwnProperty.call(o, k);

/** The changes that turn `base` into `fix`, in a stable order (the ddmin's indices name them). */
export function policyChanges(base: Policy, fix: Policy): PolicyChange[] {
  const out: PolicyChange[] = [];
  const baseOverrides = base.tools.overrides ?? {};
  const fixOverrides = fix.tools.overrides ?? {};
  const tools = [...new Set([...Object.keys(baseOverrides), ...Object.keys(fixOverrides)])].sort();
  for (const tool of tools) {
    const before = own(baseOverrides, tool) ? baseOverrides[tool]! : null;
    const after = own(fixOverrides, tool) ? fixOverrides[tool]! : null;
    if (!deepEqual(before, after)) out.push({ kind: "override", tool, rule: after });
  }
  if (!deepEqual(base.tools.default, fix.tools.default)) out.push({ kind: "default", rule: fix.tools.default });
  if (base.model !== fix.model || base.liveModel !== fix.liveModel)
    out.push({ kind: "model", model: fix.model, liveModel: fix.liveModel });
  const fields: Record<string, unknown> = {};
  const keys = new Set([...Object.keys(base), ...Object.keys(fix)]);
  for (const k of [...keys].sort())
    if (k !== "tools" && !MODEL_FIELDS.has(k) && !deepEqual(base[k as keyof Policy], fix[k as keyof Policy]))
      fields[k] = fix[k as keyof Policy];
  if (Object.keys(fields).length > 0) out.push({ kind: "settings", fields: fields });
  return out;
}

/** `base` with these changes made. */
export function applyChanges(base: Policy, changes: readonly PolicyChange[]): Policy {
  let policy: Policy = { ...base, tools: { ...base.tools } };
  const overrides = overrideMap(Object.entries(base.tools.overrides ?? {}));
  for (const c of changes) {
    if (c.kind === "override") {
      if (c.rule === null) delete overrides[c.tool];
      else overrides[c.tool] = c.rule;
    } else if (c.kind === "default") policy.tools = { ...policy.tools, default: c.rule };
    else if (c.kind === "model") {
      policy = { ...policy, model: c.model };
      if (c.liveModel === undefined) delete policy.liveModel;
      else policy.liveModel = c.liveModel;
    } else {
      policy = { ...policy, ...c.fields };
      for (const [k, v] of Object.entries(c.fields)) if (v === undefined) delete policy[k as keyof Policy];
    }
  }
  const { overrides: _drop, ...tools } = policy.tools;
  return { ...policy, tools: Object.keys(overrides).length > 0 ? { ...tools, overrides } : tools };
}

/** A change of a whole fix: one of its policy's, or one of its edits. */
export type FixChange = PolicyChange | { kind: "edit"; edit: CohortEdit };

/** A fix's changes, in a stable order: the policy's from `base` (none without a policy), then its edits. */
export function fixChanges(base: Policy, policy: Policy | undefined, edits: readonly CohortEdit[] = []): FixChange[] {
  return [...policyChanges(base, policy ?? base), ...edits.map((edit) => ({ kind: "edit" as const, edit }))];
}

/** The fix these changes make: `base` with their policy changes, and their edits. */
export function applyFixChanges(base: Policy, changes: readonly FixChange[]): { policy: Policy; edits: CohortEdit[] } {
  const policy = applyChanges(
    base,
    changes.filter((c): c is PolicyChange => c.kind !== "edit"),
  );
  return { policy, edits: changes.flatMap((c) => (c.kind === "edit" ? [c.edit] : [])) };
}

/** An edit's result, cut short: `{"refunded":false,"reason":"the or…}`. */
function shortJson(value: unknown): string {
  const text = canonicalJson(value) ?? String(value);
  return text.length > 40 ? `${text.slice(0, 39)}…` : text;
}

/**
 * A change in words: "refund_payment: static", "model: recorded-until-divergence",
 * `refund_payment (order_id = "4821") returns {"refunded":false}`.
 */
export function describeChange(c: FixChange): string {
  if (c.kind === "edit") {
    const args = cohortEditArgsWords(c.edit.args);
    return `${c.edit.tool}${args ? ` (${args})` : ""} returns ${shortJson(c.edit.value)}`;
  }
  if (c.kind === "override") return `${c.tool}: ${c.rule === null ? "as the default" : c.rule.type}`;
  if (c.kind === "default") return `every other tool: ${c.rule.type}`;
  if (c.kind === "model") return `model: ${c.model}${c.liveModel ? ` (${c.liveModel})` : ""}`;
  return `run settings: ${Object.keys(c.fields).join(", ")}`;
}
