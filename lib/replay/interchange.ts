import { z } from "zod";
import { deepEqual, isPlainObject, type JsonPath } from "./json";
import {
  DriftPolicy,
  ModelPolicy,
  overrideMap,
  Policy,
  ToolLevel,
  ToolRule,
  toolLevelPreset,
  type KnownTool,
  type OnMiss,
  type ToolsPolicy,
} from "./policy";

/**
 * Import and export of the two interchange forms, so policies move to and
 * from the tools analysts already use: Kitaru's `--tool-policy` JSON (override
 * map named `tools`) and policy-levels JSON (run-level choices with one tool
 * level). What one form cannot express is returned as issues, never dropped.
 */

export interface InterchangeIssue {
  path: JsonPath;
  code: "not_expressible" | "approximated" | "assumed_default" | "unknown_key" | "invalid";
  message: string;
}

export type ImportResult<T> =
  { ok: true; value: T; issues: InterchangeIssue[] } | { ok: false; issues: InterchangeIssue[] };

/** A rule as --tool-policy JSON writes it (Kitaru's HistoryConfig, StaticConfig, PassthroughConfig, LLMConfig). */
export type Seed000Rule =
  | { type: "history"; scope: string; on_miss: string }
  | { type: "static"; cases: unknown[]; on_miss?: string }
  | { type: "passthrough" }
  | { type: "llm"; model: string; instructions?: string };

export interface Seed000ToolPolicy {
  default?: Seed000Rule;
  tools?: Record<string, Seed000Rule>;
}

const KITARU_ON_MISS = new Set(["fail", "error_result", "passthrough"]);
const KITARU_TYPES = new Set(["history", "static", "passthrough", "llm"]);

function zodIssues(error: z.ZodError, prefix: JsonPath): InterchangeIssue[] {
  return error.issues.map((i) => ({
    path: [...prefix, ...i.path.filter((p): p is string | number => typeof p !== "symbol")],
    code: "invalid" as const,
    message: i.message,
  }));
}

function importRule(raw: unknown, path: JsonPath, issues: InterchangeIssue[]): z.infer<typeof ToolRule> | null {
  if (!isPlainObject(raw)) {
    issues.push({ path, code: "invalid", message: "A tool rule must be an object with a `type`." });
    return null;
  }
  const rule: Record<string, unknown> = { ...raw };
  if (rule.type === "history") {
    if (rule.scope === undefined) {
      rule.scope = "baseline";
      issues.push({
        path: [...path, "scope"],
        code: "assumed_default",
        message: "`scope` was absent; read as `baseline`, the narrowest scope.",
      });
    }
    if (rule.on_miss === undefined) {
      rule.on_miss = "fail";
      issues.push({
        path: [...path, "on_miss"],
        code: "assumed_default",
        message: "`on_miss` was absent; read as `fail`, which never executes the tool.",
      });
    }
  }
  if (typeof rule.type === "string" && !KITARU_TYPES.has(rule.type)) {
    issues.push({
      path: [...path, "type"],
      code: "not_expressible",
      message: `\`${rule.type}\` is a Branchpoint rule type that the Kitaru \`--tool-policy\` format does not have; kept, but it will not export back to this form.`,
    });
  }
  if (typeof rule.on_miss === "string" && !KITARU_ON_MISS.has(rule.on_miss)) {
    issues.push({
      path: [...path, "on_miss"],
      code: "not_expressible",
      message: `on_miss \`${rule.on_miss}\` is a Branchpoint extension; the Kitaru \`--tool-policy\` format accepts fail, error_result or passthrough.`,
    });
  }
  const parsed = ToolRule.safeParse(rule);
  if (!parsed.success) {
    issues.push(...zodIssues(parsed.error, path));
    return null;
  }
  return parsed.data;
}

/** Reads Kitaru's `--tool-policy` JSON into the `tools` part of a policy. */
export function importSeed000ToolPolicy(json: unknown): ImportResult<ToolsPolicy> {
  const issues: InterchangeIssue[] = [];
  if (!isPlainObject(json))
    return { ok: false, issues: [{ path: [], code: "invalid", message: "The tool policy must be a JSON object." }] };
  for (const key of Object.keys(json)) {
    if (key !== "default" && key !== "tools") {
      issues.push({
        path: [key],
        code: "unknown_key",
        message: `\`${key}\` is not part of a Kitaru \`--tool-policy\` document (default, tools); it was not imported.`,
      });
    }
  }
  let defaultRule: z.infer<typeof ToolRule> | null;
  if (json.default === undefined) {
    defaultRule = { type: "passthrough" };
    issues.push({
      path: ["default"],
      code: "assumed_default",
      message:
        "No `default`: under the Kitaru `--tool-policy` format every unnamed tool runs live (passthrough is the default when you set no policy). Consider a `history` default.",
    });
  } else {
    defaultRule = importRule(json.default, ["default"], issues);
  }
  const overrides = overrideMap();
  if (json.tools !== undefined) {
    if (!isPlainObject(json.tools))
      issues.push({ path: ["tools"], code: "invalid", message: "`tools` must map tool names to rules." });
    else
      for (const [name, raw] of Object.entries(json.tools)) {
        const rule = importRule(raw, ["tools", name], issues);
        if (rule) overrides[name] = rule;
      }
  }
  if (!defaultRule || issues.some((i) => i.code === "invalid")) return { ok: false, issues };
  return { ok: true, value: { default: defaultRule, ...(json.tools !== undefined ? { overrides } : {}) }, issues };
}

function exportOnMiss(onMiss: OnMiss | undefined, path: JsonPath, issues: InterchangeIssue[]): string | undefined {
  if (onMiss === "pause") {
    issues.push({
      path,
      code: "approximated",
      message:
        "on_miss `pause` (wait for an analyst fixture) does not exist in the Kitaru `--tool-policy` format; exported as `fail`, which also stops without executing the tool.",
    });
    return "fail";
  }
  return onMiss;
}

function exportRule(rule: z.infer<typeof ToolRule>, path: JsonPath, issues: InterchangeIssue[]): Seed000Rule {
  switch (rule.type) {
    case "history":
      return { type: "history", scope: rule.scope, on_miss: exportOnMiss(rule.on_miss, [...path, "on_miss"], issues)! };
    case "static": {
      const onMiss = exportOnMiss(rule.on_miss, [...path, "on_miss"], issues);
      return { type: "static", cases: rule.cases, ...(onMiss !== undefined ? { on_miss: onMiss } : {}) };
    }
    case "passthrough":
      if (rule.approval === "per_call") {
        issues.push({
          path: [...path, "approval"],
          code: "not_expressible",
          message:
            "The Kitaru `--tool-policy` format has no per-call approval: the exported passthrough runs the live tool without asking.",
        });
      }
      return { type: "passthrough" };
    case "llm":
      return {
        type: "llm",
        model: rule.model,
        ...(rule.instructions !== undefined ? { instructions: rule.instructions } : {}),
      };
    case "fixture": {
      issues.push({
        path,
        code: "approximated",
        message:
          "Analyst fixtures belong to a Branchpoint branch; exported as a static rule with no cases, so every call follows on_miss.",
      });
      return {
        type: "static",
        cases: [],
        on_miss: exportOnMiss(rule.on_miss ?? "pause", [...path, "on_miss"], issues)!,
      };
    }
    case "blocked":
      issues.push({
        path,
        code: "approximated",
        message:
          "The Kitaru `--tool-policy` format has no `blocked` type; exported as a static rule with no cases and on_miss error_result, which returns a tool error for every call.",
      });
      return { type: "static", cases: [], on_miss: "error_result" };
  }
}

/** Writes the `tools` part of a policy as Kitaru's `--tool-policy` JSON. */
export function exportSeed000ToolPolicy(tools: ToolsPolicy): { json: Seed000ToolPolicy; issues: InterchangeIssue[] } {
  const issues: InterchangeIssue[] = [];
  const json: Seed000ToolPolicy = { default: exportRule(tools.default, ["tools", "default"], issues) };
  if (tools.overrides !== undefined) {
    json.tools = {};
    for (const [name, rule] of Object.entries(tools.overrides))
      json.tools[name] = exportRule(rule, ["tools", "overrides", name], issues);
  }
  return { json, issues };
}

// ---------------------------------------------------------------------------
// Policy-levels JSON

export const Seed003Policy = z.strictObject({
  model: ModelPolicy,
  tool: ToolLevel,
  drift: DriftPolicy,
  maxSteps: z.number().int().positive().optional(),
  temperatureOverride: z.number().min(0).max(2).optional(),
});
export type Seed003Policy = z.infer<typeof Seed003Policy>;

/** Reads policy-levels JSON; the tool level becomes its preset rules. */
export function importSeed003Policy(
  json: unknown,
  options: { knownTools?: readonly KnownTool[] } = {},
): ImportResult<Policy> {
  const parsed = Seed003Policy.safeParse(json);
  if (!parsed.success) {
    const issues = zodIssues(parsed.error, []).map((i) =>
      i.message.toLowerCase().includes("unrecognized") ? { ...i, code: "unknown_key" as const } : i,
    );
    return { ok: false, issues };
  }
  const { tool, ...rest } = parsed.data;
  const issues: InterchangeIssue[] = [];
  if (
    tool === "live-readonly" &&
    !(options.knownTools ?? []).some((t) => t.sideEffect === "none" || t.sideEffect === "read")
  ) {
    issues.push({
      path: ["tool"],
      code: "assumed_default",
      message: "live-readonly: no tool is declared read-only, so no tool runs live; the rest pause for fixtures.",
    });
  }
  const policy = Policy.parse({
    ...rest,
    tools: toolLevelPreset(tool, options.knownTools ? { knownTools: options.knownTools } : {}),
  });
  return { ok: true, value: policy, issues };
}

function levelOf(tools: ToolsPolicy): ToolLevel | null {
  for (const level of ToolLevel.options) {
    if (level === "live-readonly") {
      const overrides = Object.entries(tools.overrides ?? {});
      const defaultMatches = deepEqual(tools.default, toolLevelPreset("live-readonly").default);
      if (
        defaultMatches &&
        overrides.length > 0 &&
        overrides.every(([, r]) => r.type === "passthrough" && r.approval !== "per_call")
      )
        return level;
      continue;
    }
    if (level === "simulated") {
      if (tools.default.type === "llm" && !tools.overrides) return level;
      continue;
    }
    if (deepEqual(tools, toolLevelPreset(level))) return level;
  }
  return null;
}

function closestLevel(tools: ToolsPolicy): ToolLevel {
  const d = tools.default;
  switch (d.type) {
    case "history":
      return d.on_miss === "pause" ? "pause-for-fixture" : "recorded-only";
    case "static":
    case "fixture":
      return "analyst-fixture";
    case "llm":
      return "simulated";
    case "passthrough":
      return d.approval === "per_call" ? "live-explicit" : "live-readonly";
    case "blocked":
      return "blocked";
  }
}

/** Writes a policy as policy-levels JSON. Tool rules that no level stands for are reported. */
export function exportSeed003Policy(policy: Policy): { json: Seed003Policy; issues: InterchangeIssue[] } {
  const issues: InterchangeIssue[] = [];
  let tool = levelOf(policy.tools);
  if (tool === null) {
    tool = closestLevel(policy.tools);
    issues.push({
      path: ["tools"],
      code: "approximated",
      message: `The tool rules are not one of the named tool levels; exported as \`${tool}\`, the level of the default rule. Per-tool overrides and rule details are not in this form.`,
    });
  } else if (tool === "simulated") {
    issues.push({
      path: ["tools", "default"],
      code: "not_expressible",
      message: "The simulator's model and instructions are not part of the policy-levels shape.",
    });
  } else if (tool === "live-readonly") {
    issues.push({
      path: ["tools", "overrides"],
      code: "not_expressible",
      message:
        "Which tools run live is not in the policy-levels shape; it follows from the tools' declared side effects.",
    });
  }
  for (const key of [
    "maxTokens",
    "maxCostUsd",
    "maxLiveCalls",
    "probeRuns",
    "liveModel",
    "liveFromModelStep",
    "agentIdleTimeoutS",
    "mcpServer",
  ] as const) {
    if (policy[key] !== undefined)
      issues.push({
        path: [key],
        code: "not_expressible",
        message: `\`${key}\` is not part of the policy-levels shape.`,
      });
  }
  const json: Seed003Policy = {
    model: policy.model,
    tool,
    drift: policy.drift,
    ...(policy.maxSteps !== undefined ? { maxSteps: policy.maxSteps } : {}),
    ...(policy.temperatureOverride !== undefined ? { temperatureOverride: policy.temperatureOverride } : {}),
  };
  return { json, issues };
}
