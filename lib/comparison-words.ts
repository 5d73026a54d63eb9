import type { ComparisonMetrics } from "@/lib/replay";

/**
 * The comparison's own figures in the words a reader sees. The comparison page, a report and its
 * Markdown say them alike; the API keeps its keys.
 */
export const COMPARISON_FIGURE_WORDS = {
  first_divergence_step: "First divergence at pair",
  tool_sequence_distance: "Tool calls added, removed or swapped",
  fixture_dependency_count: "Steps answered by a fixture",
  tool_argument_changed: "Tool arguments changed",
} as const satisfies Partial<Record<keyof ComparisonMetrics, string>>;

/** The figures a report lists after its metrics table, each as its words and its value. */
export function reportFigures(
  m: Pick<ComparisonMetrics, "tool_sequence_distance" | "fixture_dependency_count" | "tool_argument_changed">,
): [string, string][] {
  return [
    [COMPARISON_FIGURE_WORDS.tool_sequence_distance, String(m.tool_sequence_distance)],
    [COMPARISON_FIGURE_WORDS.fixture_dependency_count, String(m.fixture_dependency_count)],
    [COMPARISON_FIGURE_WORDS.tool_argument_changed, m.tool_argument_changed ? "yes" : "no"],
  ];
}

/** A replay's count of steps per source covers its model and tool calls only (user messages and the rest have none). */
export const STEPS_BY_SOURCE_WORDS = "Model and tool steps by source";
