import {
  importSeed000ToolPolicy,
  importSeed003Policy,
  isPlainObject,
  parseJsonText,
  Policy,
  RECOMMENDED_RCA_POLICY,
  type InterchangeIssue,
  type KnownTool,
} from "@/lib/replay";

/** The forms a pasted or uploaded policy can come in. */
export type PolicyForm = "branchpoint" | "seed-000" | "seed-003";

export const FORM_LABELS: Record<PolicyForm, string> = {
  branchpoint: "Branchpoint policy document",
  "seed-000": "Kitaru --tool-policy JSON",
  "seed-003": "policy-levels JSON",
};

export type DetectedImport =
  | { ok: true; form: PolicyForm; policy: Policy; issues: InterchangeIssue[] }
  | { ok: false; form: PolicyForm | null; issues: InterchangeIssue[] };

/** Which form a JSON value is in: ours has `model`, policy-levels JSON names a `tool` level, Kitaru's --tool-policy JSON has only `default` and `tools`. */
export function detectPolicyForm(value: unknown): PolicyForm | null {
  if (!isPlainObject(value)) return null;
  if (typeof value.tool === "string") return "seed-003";
  if ("model" in value || "drift" in value) return "branchpoint";
  if ("default" in value || "tools" in value) return "seed-000";
  return null;
}

/**
 * Reads a document in any of the three forms into our policy. What the form
 * did not say (--tool-policy JSON has no run-level choices) or could not hold comes
 * back as issues, never silently.
 */
export function importPolicyText(text: string, options: { knownTools?: readonly KnownTool[] } = {}): DetectedImport {
  const json = parseJsonText(text);
  if (!json.ok)
    return { ok: false, form: null, issues: [{ path: [], code: "invalid", message: `Not JSON: ${json.message}` }] };
  const value = json.value;
  const form = detectPolicyForm(value);
  switch (form) {
    case null:
      return {
        ok: false,
        form,
        issues: [
          {
            path: [],
            code: "invalid",
            message:
              "Not a policy: expected a Branchpoint policy (model, drift, tools), Kitaru --tool-policy JSON (default, tools) or policy-levels JSON (model, tool, drift).",
          },
        ],
      };
    case "branchpoint": {
      const parsed = Policy.safeParse(value);
      if (parsed.success) return { ok: true, form, policy: parsed.data, issues: [] };
      return {
        ok: false,
        form,
        issues: parsed.error.issues.map((i) => ({
          path: i.path.filter((p): p is string | number => typeof p !== "symbol"),
          code: "invalid" as const,
          message: i.message,
        })),
      };
    }
    case "seed-003": {
      const result = importSeed003Policy(value, options.knownTools ? { knownTools: options.knownTools } : {});
      return result.ok
        ? { ok: true, form, policy: result.value, issues: result.issues }
        : { ok: false, form, issues: result.issues };
    }
    case "seed-000": {
      const result = importSeed000ToolPolicy(value);
      if (!result.ok) return { ok: false, form, issues: result.issues };
      const { tools: _tools, ...runLevel } = RECOMMENDED_RCA_POLICY;
      void _tools;
      return {
        ok: true,
        form,
        policy: { ...runLevel, tools: result.value },
        issues: [
          ...result.issues,
          {
            path: [],
            code: "assumed_default",
            message: `A Kitaru --tool-policy document has no run-level choices; model "${runLevel.model}", drift "${runLevel.drift}" and maxSteps ${runLevel.maxSteps ?? "—"} come from the recommended RCA default.`,
          },
        ],
      };
    }
  }
}

/** The CLI flag, quoted for a POSIX shell: `kitaru experiment create --tool-policy '…'`. */
export function toolPolicyFlag(json: unknown): string {
  return `--tool-policy '${JSON.stringify(json).replaceAll("'", `'\\''`)}'`;
}
