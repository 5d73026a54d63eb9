import type { CheckDefinition } from "@/lib/replay";

/** The kinds of outcome check, in the words the forms and lists use. */
export const CHECK_KINDS: Record<CheckDefinition["kind"], string> = {
  output_contains: "Final answer contains text",
  output_regex: "Final answer matches a pattern",
  output_json_path: "A value in the final answer equals",
  tool_called: "A tool was called",
  tool_not_called: "A tool was not called",
  max_steps: "At most N steps",
  max_cost: "At most $X cost",
  llm_judge: "A model judges against a rubric",
};

/** One line saying what a check asks of a run. */
export function describeCheck(definition: CheckDefinition): string {
  switch (definition.kind) {
    case "output_contains":
      return `contains "${definition.text}"${definition.caseSensitive ? " (case-sensitive)" : ""}`;
    case "output_regex":
      return `matches /${definition.pattern}/${definition.flags ?? ""}`;
    case "output_json_path":
      return `${definition.path} equals ${JSON.stringify(definition.equals)}`;
    case "tool_called":
    case "tool_not_called":
      return `${definition.tool}${definition.kind === "tool_called" ? " called" : " not called"}${definition.args ? ` with ${JSON.stringify(definition.args)}` : ""}`;
    case "max_steps":
      return `at most ${definition.max} model and tool steps`;
    case "max_cost":
      return `at most $${definition.maxUsd}`;
    case "llm_judge":
      return `judged${definition.model ? ` by ${definition.model}` : ""}: ${definition.rubric.length > 120 ? `${definition.rubric.slice(0, 120)}…` : definition.rubric}`;
  }
}
