import { describe, expect, it } from "vitest";
import type { Policy, ToolRule } from "./policy";
import {
  checkPolicy,
  COHORT_NOTE,
  validatePolicy,
  type IssueCode,
  type PolicyUse,
  type ValidationContext,
} from "./validate";

const ctx = (over: Partial<ValidationContext> = {}): ValidationContext => ({
  adapter: "generic",
  capabilities: ["tool_policies", "overrides"],
  inExperiment: false,
  knownTools: [
    { name: "search", sideEffect: "read" },
    { name: "refund_payment", sideEffect: "external_mutation" },
  ],
  ...over,
});
const doc = (def: ToolRule, overrides?: Record<string, ToolRule>, extra: Partial<Policy> = {}) => ({
  model: "recorded-only",
  drift: "continue_to_terminal",
  tools: { default: def, ...(overrides ? { overrides } : {}) },
  ...extra,
});
const history = { type: "history", scope: "baseline", on_miss: "fail" } as const;

type Row = [
  rule: string,
  document: unknown,
  context: ValidationContext,
  code: IssueCode,
  severity: "error" | "warning",
  path: (string | number)[],
];
const rows: Row[] = [
  [
    "The OpenAI Agents adapter does not support a history default",
    doc(history),
    ctx({ adapter: "openai-agents" }),
    "openai_agents_history_default",
    "error",
    ["tools", "default"],
  ],
  [
    "PydanticAI does not support llm: it rejects the policy before executing the tool",
    doc(history, { search: { type: "llm", model: "m" } }),
    ctx({ adapter: "pydantic-ai" }),
    "llm_unsupported_by_adapter",
    "error",
    ["tools", "overrides", "search"],
  ],
  [
    "Mastra does not support llm",
    doc({ type: "llm", model: "m" }),
    ctx({ adapter: "mastra" }),
    "llm_unsupported_by_adapter",
    "error",
    ["tools", "default"],
  ],
  [
    "Vercel AI SDK does not support llm",
    doc({ type: "llm", model: "m" }),
    ctx({ adapter: "vercel-ai-sdk" }),
    "llm_unsupported_by_adapter",
    "error",
    ["tools", "default"],
  ],
  [
    "Check the relevant adapter page before relying on llm elsewhere",
    doc({ type: "llm", model: "m" }),
    ctx({ adapter: "langgraph" }),
    "llm_adapter_unverified",
    "warning",
    ["tools", "default"],
  ],
  [
    "A non-passthrough policy is rejected when the agent version lacks the tool_policies capability",
    doc(history),
    ctx({ capabilities: ["overrides"] }),
    "tool_policies_capability_missing",
    "error",
    ["tools", "default"],
  ],
  [
    "cohort_version is valid only inside experiments",
    doc({ type: "history", scope: "cohort_version", on_miss: "fail" }),
    ctx(),
    "cohort_scope_outside_experiment",
    "error",
    ["tools", "default", "scope"],
  ],
  [
    "LangGraph requires a recorded ToolMessage or Command envelope and fails closed for null",
    doc(history),
    ctx({ adapter: "langgraph" }),
    "langgraph_history_envelope",
    "warning",
    ["tools"],
  ],
  [
    "History matching is guaranteed only within the same adapter implementation",
    doc(history),
    ctx({ adapter: "mastra", historyAdapters: ["mastra", "vercel-ai-sdk"] }),
    "cross_adapter_history",
    "warning",
    ["tools"],
  ],
  [
    "on_miss passthrough: use only when repeating the call is safe (tool not read-only)",
    doc(history, { refund_payment: { type: "history", scope: "baseline", on_miss: "passthrough" } }),
    ctx(),
    "passthrough_on_miss_not_read_only",
    "error",
    ["tools", "overrides", "refund_payment", "on_miss"],
  ],
  [
    "on_miss passthrough on the default answers non-read-only tools",
    doc({ type: "history", scope: "baseline", on_miss: "passthrough" }),
    ctx(),
    "passthrough_on_miss_not_read_only",
    "error",
    ["tools", "default", "on_miss"],
  ],
  [
    "tools not declared read-only require approval per_call",
    doc(history, { refund_payment: { type: "passthrough" } }),
    ctx(),
    "passthrough_requires_approval",
    "error",
    ["tools", "overrides", "refund_payment"],
  ],
  [
    "a tool with unknown side effects is not read-only",
    doc(history, { mystery: { type: "passthrough" } }),
    ctx({ knownTools: [{ name: "mystery", sideEffect: "unknown" }] }),
    "passthrough_requires_approval",
    "error",
    ["tools", "overrides", "mystery"],
  ],
  [
    "a case after a catch-all never answers",
    doc({
      type: "static",
      cases: [
        { match_mode: "exact", result: 1 },
        { match_mode: "exact", match: {}, result: 2 },
      ],
    }),
    ctx(),
    "static_case_unreachable",
    "warning",
    ["tools", "default", "cases", 1],
  ],
  [
    "live model policies need the overrides capability",
    doc(history, undefined, { model: "pinned-live" }),
    ctx({ capabilities: ["tool_policies"] }),
    "overrides_capability_missing",
    "error",
    ["model"],
  ],
  [
    "liveFromModelStep belongs to fork-live only",
    doc(history, undefined, { model: "recorded-only", liveFromModelStep: 2 }),
    ctx(),
    "live_from_needs_fork_live",
    "error",
    ["liveFromModelStep"],
  ],
  [
    "match_mode is required",
    doc({ type: "static", cases: [{ match: {}, result: 1 } as never] }),
    ctx(),
    "schema",
    "error",
    ["tools", "default", "cases", 0, "match_mode"],
  ],
  [
    "a misspelt key is an error, not a no-op",
    doc({ type: "history", scope: "baseline", on_miss: "fail", onMiss: "pause" } as never),
    ctx(),
    "schema",
    "error",
    ["tools", "default"],
  ],
];

describe("validation with context: every seed caveat has a stable code and path", () => {
  it.each(rows)("%s", (_rule, document, context, code, severity, path) => {
    const result = validatePolicy(document, context);
    const all = [...result.errors, ...result.warnings];
    const hit = all.find((i) => i.code === code);
    expect(hit, JSON.stringify(all)).toBeDefined();
    expect(hit!.severity).toBe(severity);
    expect(hit!.path).toEqual(path);
    expect(hit!.message.length).toBeGreaterThan(20);
    if (severity === "error") expect(result.ok).toBe(false);
  });

  it("messages quote the rule itself", () => {
    const r = validatePolicy(doc(history), ctx({ adapter: "openai-agents" }));
    expect(r.errors[0]!.message).toContain("Keep its default as `passthrough`");
  });

  it("Kitaru's advice for OpenAI Agents (passthrough default, named history overrides) passes", () => {
    const r = validatePolicy(
      doc({ type: "passthrough" }, { search: history }),
      ctx({ adapter: "openai-agents", knownTools: [{ name: "search", sideEffect: "read" }] }),
    );
    expect(r.ok).toBe(true);
    expect(r.errors).toEqual([]);
  });

  it("passthrough alone needs no tool_policies capability", () => {
    const r = validatePolicy(doc({ type: "passthrough", approval: "per_call" }), ctx({ capabilities: [] }));
    expect(r.errors.map((e) => e.code)).not.toContain("tool_policies_capability_missing");
  });

  it("cohort_version inside an experiment is accepted", () => {
    const r = validatePolicy(
      doc({ type: "history", scope: "cohort_version", on_miss: "fail" }),
      ctx({ inExperiment: true }),
    );
    expect(r.ok).toBe(true);
  });

  it("passthrough with approval per_call for a side-effecting tool is accepted; passthrough for a read-only tool needs none", () => {
    const r = validatePolicy(
      doc(history, { refund_payment: { type: "passthrough", approval: "per_call" }, search: { type: "passthrough" } }),
      ctx(),
    );
    expect(r.errors).toEqual([]);
  });

  it("the recommended RCA default is valid for every adapter with the tool_policies capability except openai-agents", () => {
    for (const adapter of ["pydantic-ai", "langgraph", "mastra", "vercel-ai-sdk", "generic"] as const) {
      expect(
        validatePolicy(
          doc({ type: "history", scope: "baseline", on_miss: "pause" }, undefined, { maxSteps: 100 }),
          ctx({ adapter }),
        ).ok,
      ).toBe(true);
    }
  });
});

describe("checkPolicy: one validation for the editor, a replay and an experiment", () => {
  const generic = { adapter: "generic" as const, capabilities: [], knownTools: [] };
  const history = {
    model: "recorded-only",
    drift: "continue_to_terminal",
    tools: { default: { type: "history", scope: "baseline", on_miss: "pause" } },
  };
  const cohort = {
    ...history,
    tools: { default: { type: "history", scope: "cohort_version", on_miss: "error_result" } },
  };
  const verdict = (doc: unknown, use: PolicyUse) => {
    const r = checkPolicy(doc, { ...generic, use });
    return {
      ok: r.ok,
      errors: r.errors.map((i) => [i.code, i.severity, i.message]),
      warnings: r.warnings.map((i) => [i.code, i.severity, i.message]),
    };
  };

  it("a history rule on the generic adapter (no tool_policies) saves and runs, with the same warning in the same words", () => {
    const saved = verdict(history, "saved");
    expect(saved.ok).toBe(true);
    expect(saved.warnings.map(([code, severity]) => [code, severity])).toEqual([
      ["tool_policies_capability_missing", "warning"],
    ]);
    expect(saved.warnings[0]![2]).toMatch(/^Branchpoint's engine intercepts every tool itself/);
    expect(verdict(history, "replay")).toEqual(saved);
    expect(verdict(history, "experiment")).toEqual(saved);
  });

  it("cohort_version: saved with a note, refused for one session, plain in an experiment", () => {
    const saved = verdict(cohort, "saved");
    expect(saved.ok).toBe(true);
    expect(saved.warnings).toContainEqual(["cohort_scope_outside_experiment", "warning", COHORT_NOTE]);
    const replay = verdict(cohort, "replay");
    expect(replay.ok).toBe(false);
    expect(replay.errors.map(([code, severity]) => [code, severity])).toEqual([
      ["cohort_scope_outside_experiment", "error"],
    ]);
    expect(replay.errors[0]![2]).toContain(COHORT_NOTE);
    const experiment = verdict(cohort, "experiment");
    expect(experiment.ok).toBe(true);
    expect(experiment.warnings.map(([code]) => code)).not.toContain("cohort_scope_outside_experiment");
  });

  it("a document that does not parse is an error everywhere, with the same issues", () => {
    const bad = { ...history, maxSteps: -1 };
    const saved = verdict(bad, "saved");
    expect(saved.ok).toBe(false);
    expect(saved.errors.map(([code]) => code)).toEqual(["schema"]);
    expect(verdict(bad, "replay")).toEqual(saved);
    expect(verdict(bad, "experiment")).toEqual(saved);
  });

  it("the messages users read cite no spec document", () => {
    const llm = { ...history, tools: { default: { type: "llm", model: "m", instructions: "x" } } };
    for (const adapter of ["vercel-ai-sdk", "openai-agents", "langgraph"] as const) {
      const r = checkPolicy(llm, { adapter, capabilities: [], knownTools: [], use: "saved" });
      for (const issue of [...r.errors, ...r.warnings]) expect(issue.message).not.toMatch(/seed|DESIGN|§/i);
    }
  });
});
