// ---------------------------------------------------------------------------
// A fix as a set of changes to a base policy, for the smallest fixing change
// over a cluster: edits name steps of one session, so across a cluster's
// members the changes that carry are the policy's: each tool override, the
// default tool rule, the model, and the run settings. Pure.
// ---------------------------------------------------------------------------
import { deepEqual, overrideMap, type Policy, type ToolRule } from "@/lib/replay";

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

/** A change in words: "refund_payment: static", "model: recorded-until-divergence". */
export function describeChange(c: PolicyChange): string {
  if (c.kind === "override") return `${c.tool}: ${c.rule === null ? "as the default" : c.rule.type}`;
  if (c.kind === "default") return `every other tool: ${c.rule.type}`;
  if (c.kind === "model") return `model: ${c.model}${c.liveModel ? ` (${c.liveModel})` : ""}`;
  return `run settings: ${Object.keys(c.fields).join(", ")}`;
}
