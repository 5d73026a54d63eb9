import { z } from "zod";
import { contentHash } from "./canonical";

/**
 * The policy document: the run-level choices (model, drift, budget) and the
 * per-tool rules in one document. Field names of tool rules keep
 * Kitaru's spelling (`on_miss`, `match_mode`) so exported rules mean the
 * same in Kitaru. Objects are strict: a misspelt key is an error, not a no-op.
 */

export const ModelPolicy = z.enum([
  "recorded-only",
  "determinism-probe",
  "pinned-live",
  "compatible-live",
  "provider-fixture",
  "blocked",
  /** Fork-live: copy model outputs while the model's input equals the recorded input; run live from the first that differs. */
  "recorded-until-divergence",
]);
export type ModelPolicy = z.infer<typeof ModelPolicy>;

export const DriftPolicy = z.enum(["stop_on_first_divergence", "continue_to_terminal", "continue_until_budget"]);
export type DriftPolicy = z.infer<typeof DriftPolicy>;

/** Kitaru's `on_miss` values plus our `pause` (the `pause-for-fixture` tool level): stop and wait for a fixture. */
export const OnMiss = z.enum(["fail", "error_result", "passthrough", "pause"]);
export type OnMiss = z.infer<typeof OnMiss>;

export const HistoryScope = z.enum(["baseline", "cohort_version", "agent"]);
export type HistoryScope = z.infer<typeof HistoryScope>;

export const MatchMode = z.enum(["exact", "subset"]);
export type MatchMode = z.infer<typeof MatchMode>;

/** A static case. `match_mode` is required (as in Kitaru); a case without `match` (absent or null) matches anything. */
export const StaticCase = z.strictObject({
  match_mode: MatchMode,
  match: z.unknown().optional(),
  result: z.unknown(),
});
export type StaticCase = z.infer<typeof StaticCase>;

/**
 * Whether a static case has no match condition: `match` absent or null. The
 * peer's JSON export writes catch-all cases as `"match": null` and its code
 * treats null like an absent key, so null means "matches anything" here too.
 */
export function isCatchAllCase(c: Pick<StaticCase, "match">): boolean {
  return c.match === undefined || c.match === null;
}

export const HistoryRule = z.strictObject({
  type: z.literal("history"),
  scope: HistoryScope,
  on_miss: OnMiss,
});
export type HistoryRule = z.infer<typeof HistoryRule>;

export const StaticRule = z.strictObject({
  type: z.literal("static"),
  cases: z.array(StaticCase),
  /** Absent means `fail`: the safe reading when nothing was said. */
  on_miss: OnMiss.optional(),
});
export type StaticRule = z.infer<typeof StaticRule>;

export const FixtureRule = z.strictObject({
  type: z.literal("fixture"),
  /** Absent means `pause`: an analyst fixture rule waits for the analyst. */
  on_miss: OnMiss.optional(),
});
export type FixtureRule = z.infer<typeof FixtureRule>;

export const Approval = z.enum(["none", "per_call"]);
export type Approval = z.infer<typeof Approval>;

export const PassthroughRule = z.strictObject({
  type: z.literal("passthrough"),
  /** `per_call` asks the analyst before each execution. Tools not declared
   *  read-only always need it, whatever this says: a live side effect
   *  is never repeated without someone saying yes. */
  approval: Approval.optional(),
});
export type PassthroughRule = z.infer<typeof PassthroughRule>;

export const LlmRule = z.strictObject({
  type: z.literal("llm"),
  model: z.string().min(1),
  instructions: z.string().optional(),
});
export type LlmRule = z.infer<typeof LlmRule>;

export const BlockedRule = z.strictObject({ type: z.literal("blocked") });
export type BlockedRule = z.infer<typeof BlockedRule>;

export const ToolRule = z.discriminatedUnion("type", [
  HistoryRule,
  StaticRule,
  FixtureRule,
  PassthroughRule,
  LlmRule,
  BlockedRule,
]);
export type ToolRule = z.infer<typeof ToolRule>;
export type ToolRuleType = ToolRule["type"];

/** A tool name → rule map. Null-prototype, so every own key is a tool name, `__proto__` included. */
export type ToolOverrides = Record<string, ToolRule>;

/** A fresh override map with no prototype: `map["__proto__"] = rule` stores a tool, never a prototype. */
export function overrideMap(entries: Iterable<readonly [string, ToolRule]> = []): ToolOverrides {
  const map = Object.create(null) as ToolOverrides;
  for (const [name, rule] of entries) map[name] = rule;
  return map;
}

/**
 * The policy as plain JSON objects, for React's boundary between server and
 * client components, which passes plain objects only: a null-prototype
 * override map in a server component's props fails the page's render, and in
 * a server action's argument it arrives as an opaque reference instead of a
 * map (so the document no longer parses). Own keys are kept, a tool named
 * `__proto__` included (JSON.parse makes it an own property); parse it again
 * (`Policy.parse`) before looking rules up by name.
 */
export function plainPolicy<P extends Policy | null | undefined>(policy: P): P {
  return policy == null ? policy : (JSON.parse(JSON.stringify(policy)) as P);
}

/** The JSON Schema shape of an override map (zod's record parser is not used: it drops a `__proto__` key). */
const OverridesShape = z.record(z.string().min(1), ToolRule);

/**
 * Override maps keep every own key. zod's record parser silently skips a
 * `__proto__` key (and assigning one to a plain object would set its
 * prototype), so a tool named `__proto__` would vanish and the default rule
 * answer instead. This parses each own enumerable key itself into a
 * null-prototype object, reporting issues at `[name, ...]` as the record did.
 */
const Overrides = z.preprocess(
  (input, ctx) => {
    if (input === null || typeof input !== "object" || Array.isArray(input)) return input;
    const out = overrideMap();
    for (const name of Object.keys(input)) {
      if (name.length === 0) {
        ctx.addIssue({ code: "custom", message: "A tool name must not be empty.", path: [name], input });
        continue;
      }
      const parsed = ToolRule.safeParse((input as Record<string, unknown>)[name]);
      if (parsed.success) out[name] = parsed.data;
      else for (const issue of parsed.error.issues) ctx.addIssue({ ...issue, path: [name, ...issue.path] });
    }
    return out;
  },
  z.custom<ToolOverrides>((value) => value !== null && typeof value === "object" && !Array.isArray(value), {
    message: "`overrides` must map tool names to rules.",
  }),
);

export const ToolsPolicy = z.strictObject({
  default: ToolRule,
  overrides: Overrides.optional(),
});
export type ToolsPolicy = z.infer<typeof ToolsPolicy>;

export const Policy = z.strictObject({
  model: ModelPolicy,
  drift: DriftPolicy,
  /** Counts the branch's model and tool steps; reaching it ends the branch as `budget_exhausted`. */
  maxSteps: z.number().int().positive().optional(),
  temperatureOverride: z.number().min(0).max(2).optional(),
  /** Budget on live spending: tokens and cost reported by executors, and live executions. */
  maxTokens: z.number().int().positive().optional(),
  maxCostUsd: z.number().positive().optional(),
  maxLiveCalls: z.number().int().nonnegative().optional(),
  /** determinism-probe: how many times each recorded input is re-run (default 3). */
  probeRuns: z.number().int().min(2).max(50).optional(),
  /** The model a live policy runs (pinned-live: the pinned model; compatible-live: the substitute). */
  liveModel: z.string().min(1).optional(),
  /**
   * A branch your own agent drives through Branchpoint's MCP proxy: the name of the registered upstream MCP
   * server (Settings → Executors) whose tools the proxy lists and to which passthrough calls go. Absent: the only
   * registered one, or none (the recording's tool definitions) when several or none are registered.
   */
  mcpServer: z.string().trim().min(1).max(100).optional(),
  /**
   * Fork-live only: run the model live from this model step on (0 = the first), even where its input is unchanged;
   * earlier model steps are copied while their input matches. A blame search probes a run this way.
   */
  liveFromModelStep: z.number().int().nonnegative().max(1_000_000).optional(),
  /**
   * A branch your own agent drives: how many seconds it may stay silent (no model or tool call) before the
   * replay is abandoned (default 600).
   */
  agentIdleTimeoutS: z
    .number()
    .int()
    .min(1)
    .max(7 * 24 * 3600)
    .optional(),
  tools: ToolsPolicy,
});
export type Policy = z.infer<typeof Policy>;

/** The policy document as JSON Schema (draft 2020-12), for editors and the HTTP API. */
export function policyJsonSchema(): Record<string, unknown> {
  const shape = Policy.extend({ tools: ToolsPolicy.extend({ overrides: OverridesShape.optional() }) });
  return z.toJSONSchema(shape, { target: "draft-2020-12", io: "input" });
}

/** Content hash of a policy version: sha256 of its RFC 8785 canonical form. Same document, same hash. */
export function policyHash(policy: Policy): string {
  return contentHash(Policy.parse(policy));
}

/** The rule that answers calls to `toolName`, with its JSON path in the document. */
export function ruleFor(tools: ToolsPolicy, toolName: string): { rule: ToolRule; path: (string | number)[] } {
  const override =
    tools.overrides && Object.prototype.hasOwnProperty.call(tools.overrides, toolName)
      ? tools.overrides[toolName]
      : undefined;
  if (override) return { rule: override, path: ["tools", "overrides", toolName] };
  return { rule: tools.default, path: ["tools", "default"] };
}

/** The effective `on_miss` of a rule that has one (absent values resolved as documented above). */
export function effectiveOnMiss(rule: ToolRule): OnMiss | null {
  switch (rule.type) {
    case "history":
      return rule.on_miss;
    case "static":
      return rule.on_miss ?? "fail";
    case "fixture":
      return rule.on_miss ?? "pause";
    default:
      return null;
  }
}

// ---------------------------------------------------------------------------
// The policy-levels tool levels as presets over the rules, so one document
// has both views and the editor can show either.

export const ToolLevel = z.enum([
  "recorded-only",
  "pause-for-fixture",
  "analyst-fixture",
  "simulated",
  "live-readonly",
  "live-explicit",
  "blocked",
]);
export type ToolLevel = z.infer<typeof ToolLevel>;

export const SideEffect = z.enum(["none", "read", "write", "external_mutation", "unknown"]);
export type SideEffect = z.infer<typeof SideEffect>;

/** Only `none` and `read` count as read-only; anything undeclared is `unknown`, so a tool is assumed unsafe until declared. */
export function isReadOnly(sideEffect: SideEffect | undefined): boolean {
  return sideEffect === "none" || sideEffect === "read";
}

export const KnownTool = z.object({ name: z.string().min(1), sideEffect: SideEffect.default("unknown") });
export type KnownTool = z.infer<typeof KnownTool>;

export interface PresetOptions {
  /** live-readonly: the tools that get a passthrough override (only read-only ones are used). */
  knownTools?: readonly KnownTool[];
  /** simulated: the simulator model and its instructions. */
  simulatorModel?: string;
  simulatorInstructions?: string;
}

export const DEFAULT_SIMULATOR_MODEL = "simulator";

/** The tool rules a policy-levels tool level stands for. */
export function toolLevelPreset(level: ToolLevel, options: PresetOptions = {}): ToolsPolicy {
  switch (level) {
    case "recorded-only":
      return { default: { type: "history", scope: "baseline", on_miss: "fail" } };
    case "pause-for-fixture":
      return { default: { type: "history", scope: "baseline", on_miss: "pause" } };
    case "analyst-fixture":
      return { default: { type: "fixture", on_miss: "pause" } };
    case "simulated":
      return {
        default: {
          type: "llm",
          model: options.simulatorModel ?? DEFAULT_SIMULATOR_MODEL,
          ...(options.simulatorInstructions === undefined ? {} : { instructions: options.simulatorInstructions }),
        },
      };
    case "live-readonly": {
      const overrides = overrideMap();
      for (const tool of options.knownTools ?? []) {
        if (isReadOnly(tool.sideEffect)) overrides[tool.name] = { type: "passthrough" };
      }
      return {
        default: { type: "history", scope: "baseline", on_miss: "pause" },
        ...(Object.keys(overrides).length > 0 ? { overrides } : {}),
      };
    }
    case "live-explicit":
      return { default: { type: "passthrough", approval: "per_call" } };
    case "blocked":
      return { default: { type: "blocked" } };
  }
}

/** The recommended default for root-cause analysis: no unbounded live calls, a missing divergent tool output stops and asks for a fixture, and the branch still runs to the end for comparison. */
export const RECOMMENDED_RCA_POLICY: Policy = Object.freeze({
  model: "recorded-only",
  drift: "continue_to_terminal",
  maxSteps: 100,
  tools: toolLevelPreset("pause-for-fixture"),
});
