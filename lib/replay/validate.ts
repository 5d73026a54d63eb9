import { z } from "zod";
import type { JsonPath } from "./json";
import { effectiveOnMiss, isCatchAllCase, isReadOnly, KnownTool, Policy, type ToolRule } from "./policy";

export const Adapter = z.enum(["pydantic-ai", "langgraph", "openai-agents", "mastra", "vercel-ai-sdk", "generic"]);
export type Adapter = z.infer<typeof Adapter>;

export const Capability = z.enum(["overrides", "tool_policies"]);
export type Capability = z.infer<typeof Capability>;

export const ValidationContext = z.object({
  adapter: Adapter,
  /** Runtime capabilities the agent version declares. */
  capabilities: z.array(Capability),
  /** Whether the policy runs inside an experiment (the only place `cohort_version` exists). */
  inExperiment: z.boolean(),
  /** Tools known for the agent, with their side-effect class (`unknown` when undeclared). */
  knownTools: z.array(KnownTool).default([]),
  /** Adapters that recorded the sessions history may answer from, when known. */
  historyAdapters: z.array(Adapter).optional(),
});
export type ValidationContext = z.input<typeof ValidationContext>;

export const IssueCode = z.enum([
  "schema",
  "openai_agents_history_default",
  "llm_unsupported_by_adapter",
  "llm_adapter_unverified",
  "tool_policies_capability_missing",
  "overrides_capability_missing",
  "live_from_needs_fork_live",
  "cohort_scope_outside_experiment",
  "langgraph_history_envelope",
  "cross_adapter_history",
  "passthrough_on_miss_not_read_only",
  "passthrough_requires_approval",
  "static_case_unreachable",
  "override_for_unknown_tool",
]);
export type IssueCode = z.infer<typeof IssueCode>;

export const PolicyIssue = z.object({
  code: IssueCode,
  severity: z.enum(["error", "warning"]),
  path: z.array(z.union([z.string(), z.number()])),
  message: z.string(),
});
export type PolicyIssue = z.infer<typeof PolicyIssue>;

export type PolicyValidation =
  | { ok: true; policy: Policy; errors: []; warnings: PolicyIssue[] }
  | { ok: false; policy: Policy | null; errors: PolicyIssue[]; warnings: PolicyIssue[] };

/** The rules' own sentences (Kitaru's adapter caveats, the policy-levels advice) as messages, so the editor shows the rule itself. */
const SEED = {
  openaiAgents:
    "The OpenAI Agents adapter does not support a `history` default. Keep its default as `passthrough` and add a named `history` override for each direct function tool you want to replay.",
  llmRejected:
    "The API accepts and stores the `llm` policy, but the PydanticAI, Mastra, and Vercel AI SDK adapters do not support it. Those adapters reject the policy before executing the configured tool. Use `static` when you need to provide a simulated result.",
  llmElsewhere: "Check the relevant adapter page before relying on `llm` elsewhere.",
  capability:
    "Anything beyond passthrough needs a runtime that can intercept tool calls. A replay or experiment run with a non-passthrough policy is rejected when the agent version does not declare the tool_policies runtime capability.",
  cohort: "cohort_version: Any session in the experiment's cohort. This scope is valid only inside experiments.",
  langgraph:
    "A completed history match replays its result, including null, except in LangGraph: it requires a recorded ToolMessage or Command envelope and fails closed for null or malformed completed results.",
  crossAdapter:
    "History matching is guaranteed only within the same adapter implementation. Different frameworks can apply schema defaults, coercion, or serialization differently, which changes the cache key even when a tool call looks equivalent.",
  passthroughMiss:
    "passthrough: execute the live tool. Use this only when repeating the call is safe. Only tools declared `none` or `read` are read-only.",
  approval:
    'A tool not declared read-only runs live only with `approval: "per_call"`: live side effects need an explicit approval each time and are high risk.',
  overrides:
    "The agent version does not declare the `overrides` runtime capability, so model settings cannot be overridden.",
} as const;

function* rulesOf(policy: Policy): Generator<{ rule: ToolRule; path: JsonPath; tool: string | null }> {
  yield { rule: policy.tools.default, path: ["tools", "default"], tool: null };
  for (const [tool, rule] of Object.entries(policy.tools.overrides ?? {})) {
    yield { rule, path: ["tools", "overrides", tool], tool };
  }
}

/**
 * Validates a policy document against its schema and, given the context it
 * will run in, against every caveat of the seeds. Errors block a replay;
 * warnings are shown beside the field. Codes are stable.
 */
export function validatePolicy(document: unknown, contextInput: ValidationContext): PolicyValidation {
  const parsed = Policy.safeParse(document);
  if (!parsed.success) {
    return {
      ok: false,
      policy: null,
      errors: parsed.error.issues.map((issue) => ({
        code: "schema" as const,
        severity: "error" as const,
        path: issue.path.filter((p): p is string | number => typeof p !== "symbol"),
        message: issue.message,
      })),
      warnings: [],
    };
  }
  const policy = parsed.data;
  const context = ValidationContext.parse(contextInput);
  const issues = policyCaveats(policy, context);
  const errors = issues.filter((i) => i.severity === "error");
  const warnings = issues.filter((i) => i.severity === "warning");
  return errors.length === 0 ? { ok: true, policy, errors: [], warnings } : { ok: false, policy, errors, warnings };
}

function policyCaveats(policy: Policy, context: z.output<typeof ValidationContext>): PolicyIssue[] {
  const issues: PolicyIssue[] = [];
  const add = (code: IssueCode, severity: "error" | "warning", path: JsonPath, message: string) =>
    issues.push({ code, severity, path, message });
  const hasCapability = (c: Capability) => context.capabilities.includes(c);
  const sideEffectOf = new Map(context.knownTools.map((t) => [t.name, t.sideEffect]));
  const overrides = policy.tools.overrides ?? {};

  if (context.adapter === "openai-agents" && policy.tools.default.type === "history") {
    add("openai_agents_history_default", "error", ["tools", "default"], SEED.openaiAgents);
  }

  let usesHistory = false;
  for (const { rule, path, tool } of rulesOf(policy)) {
    if (rule.type === "llm") {
      if (context.adapter === "pydantic-ai" || context.adapter === "mastra" || context.adapter === "vercel-ai-sdk") {
        add(
          "llm_unsupported_by_adapter",
          "error",
          path,
          `The ${context.adapter} adapter rejects \`llm\`. ${SEED.llmRejected}`,
        );
      } else {
        add(
          "llm_adapter_unverified",
          "warning",
          path,
          `\`llm\` with the ${context.adapter} adapter. ${SEED.llmElsewhere}`,
        );
      }
    }
    if (rule.type !== "passthrough" && !hasCapability("tool_policies")) {
      add(
        "tool_policies_capability_missing",
        "error",
        path,
        `A \`${rule.type}\` rule needs tool interception. ${SEED.capability}`,
      );
    }
    if (rule.type === "history") {
      usesHistory = true;
      if (rule.scope === "cohort_version" && !context.inExperiment) {
        add("cohort_scope_outside_experiment", "error", [...path, "scope"], SEED.cohort);
      }
    }
    if (rule.type === "static") {
      const catchAll = rule.cases.findIndex(isCatchAllCase);
      if (catchAll >= 0 && catchAll < rule.cases.length - 1) {
        add(
          "static_case_unreachable",
          "warning",
          [...path, "cases", catchAll + 1],
          `Case ${catchAll} has no \`match\` (absent or null) and matches anything, so the cases after it never answer (the first case that matches wins).`,
        );
      }
    }
    if (tool !== null && context.knownTools.length > 0 && !sideEffectOf.has(tool)) {
      add(
        "override_for_unknown_tool",
        "warning",
        path,
        `No tool named "${tool}" is known for this agent; check the spelling.`,
      );
    }

    // The tools this rule answers: the named one, or (for the default) every
    // known tool without an override — and, for the default, tools not seen yet.
    const answered =
      tool !== null
        ? [tool]
        : context.knownTools
            .map((t) => t.name)
            .filter((name) => !Object.prototype.hasOwnProperty.call(overrides, name));
    const unsafe = answered.filter((name) => !isReadOnly(sideEffectOf.get(name)));
    const unsafeText = (names: string[]) =>
      tool !== null
        ? `"${tool}" is declared ${sideEffectOf.get(tool) ?? "unknown"}`
        : names.length > 0
          ? `it answers ${names.map((n) => `"${n}" (${sideEffectOf.get(n) ?? "unknown"})`).join(", ")}`
          : "it answers every tool not seen yet, whose side effects are unknown";

    if (effectiveOnMiss(rule) === "passthrough" && (unsafe.length > 0 || tool === null)) {
      add(
        "passthrough_on_miss_not_read_only",
        unsafe.length > 0 ? "error" : "warning",
        [...path, "on_miss"],
        `\`on_miss: passthrough\` executes the live tool, and ${unsafeText(unsafe)}. ${SEED.passthroughMiss}`,
      );
    }
    if (rule.type === "passthrough" && rule.approval !== "per_call" && (unsafe.length > 0 || tool === null)) {
      add(
        "passthrough_requires_approval",
        unsafe.length > 0 ? "error" : "warning",
        path,
        `\`passthrough\` without \`approval: "per_call"\`, and ${unsafeText(unsafe)}; the branch will stop for approval before each such call. ${SEED.approval}`,
      );
    }
  }

  if (usesHistory && context.adapter === "langgraph") {
    add("langgraph_history_envelope", "warning", ["tools"], SEED.langgraph);
  }
  if (usesHistory && context.historyAdapters?.some((a) => a !== context.adapter)) {
    const others = [...new Set(context.historyAdapters.filter((a) => a !== context.adapter))];
    add(
      "cross_adapter_history",
      "warning",
      ["tools"],
      `History may answer from sessions recorded by ${others.join(", ")} while this agent runs on ${context.adapter}. ${SEED.crossAdapter}`,
    );
  }

  if (policy.liveFromModelStep !== undefined && policy.model !== "recorded-until-divergence") {
    add(
      "live_from_needs_fork_live",
      "error",
      ["liveFromModelStep"],
      `liveFromModelStep applies to fork-live ("recorded-until-divergence") only; under "${policy.model}" it would be ignored.`,
    );
  }

  const overridesModel =
    policy.model === "pinned-live" ||
    policy.model === "compatible-live" ||
    policy.model === "determinism-probe" ||
    policy.temperatureOverride !== undefined ||
    policy.liveModel !== undefined;
  if (overridesModel && !hasCapability("overrides")) {
    add(
      "overrides_capability_missing",
      "error",
      policy.model === "recorded-only" || policy.model === "blocked" || policy.model === "provider-fixture"
        ? policy.temperatureOverride !== undefined
          ? ["temperatureOverride"]
          : ["liveModel"]
        : ["model"],
      SEED.overrides,
    );
  }
  return issues;
}

// ---------------------------------------------------------------------------
// The one check the editor, the policies API, the replay form and experiments share.

/** Where a policy document is checked: saved (editor, policies API), run on one session, or run over a cohort. */
export type PolicyUse = "saved" | "replay" | "experiment";

export type PolicyCheckContext = Omit<ValidationContext, "inExperiment"> & { use: PolicyUse };

/** Said of `cohort_version` in a saved policy: allowed, with what it means. */
export const COHORT_NOTE =
  "`cohort_version` applies in experiments, where history answers from any session of the cohort; a replay of a single session refuses it.";

/** Said of the runtime caveats: what they mean for a replay here. */
const RUNTIME_NOTE =
  "Branchpoint's engine intercepts every tool itself, so a replay here runs it; an agent runtime may not.";

/**
 * The one validation of a policy document, in the context it will run in:
 * the same rules and the same words whether the editor saves it, the API
 * stores it, the replay form runs it or an experiment does. Errors are what
 * Branchpoint refuses to run: a document that does not parse, and
 * `cohort_version` outside an experiment when it is about to run on one
 * session. A saved policy may hold `cohort_version` (with a note that it
 * applies in experiments). The adapters' runtime caveats (adapter support,
 * capabilities, live execution) are warnings everywhere: Branchpoint's engine
 * intercepts every tool, so it runs what they describe, and the warning
 * still says what an agent runtime would do with the document.
 */
export function checkPolicy(document: unknown, context: PolicyCheckContext): PolicyValidation {
  const { use, ...rest } = context;
  const result = validatePolicy(document, { ...rest, inExperiment: use === "experiment" });
  if (result.policy === null) return result;
  const errors: PolicyIssue[] = [];
  const warnings: PolicyIssue[] = [...result.warnings];
  for (const issue of result.errors) {
    if (issue.code === "schema") errors.push(issue);
    else if (issue.code === "cohort_scope_outside_experiment")
      if (use === "replay") errors.push({ ...issue, message: `${COHORT_NOTE} ${issue.message}` });
      else warnings.push({ ...issue, severity: "warning", message: COHORT_NOTE });
    else warnings.push({ ...issue, severity: "warning", message: `${RUNTIME_NOTE} ${issue.message}` });
  }
  return errors.length === 0
    ? { ok: true, policy: result.policy, errors: [], warnings }
    : { ok: false, policy: result.policy, errors, warnings };
}
