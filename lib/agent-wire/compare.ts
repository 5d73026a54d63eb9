import { deepEqual, differingPaths, formatPath } from "@/lib/replay";

/**
 * What of a live model call's input is compared with its recording: the conversation always, the model and
 * the temperature where both sides name them, and the tools by name where both sides list them. A recording
 * keeps fields its exporter adds (the agent's name, the provider, a response id) that say nothing about the
 * call, and each exporter spells a tool's schema its own way (`parameters`, `inputSchema`), so those are left
 * out rather than reported as a difference the agent did not make.
 */
export function comparableInputs(live: unknown, recorded: unknown): [Record<string, unknown>, Record<string, unknown>] {
  const a = asObject(live);
  const b = asObject(recorded);
  const left: Record<string, unknown> = { messages: a.messages };
  const right: Record<string, unknown> = { messages: b.messages };
  for (const key of ["model", "temperature"] as const)
    if (a[key] !== undefined && b[key] !== undefined) {
      left[key] = a[key];
      right[key] = b[key];
    }
  if (Array.isArray(a.tools) && Array.isArray(b.tools)) {
    left.tools = toolNames(a.tools);
    right.tools = toolNames(b.tools);
  }
  return [left, right];
}

function asObject(value: unknown): Record<string, unknown> {
  return value !== null && typeof value === "object" && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
}

/** A tool list's names in order: `{ name }`, or `{ type: "function", function: { name } }` as Chat Completions sends it. */
function toolNames(tools: readonly unknown[]): unknown[] {
  return tools.map((tool) => {
    const t = asObject(tool);
    return typeof t.name === "string" ? t.name : asObject(t.function).name;
  });
}

/** Whether a live input equals the recorded one in every part they both have (see comparableInputs). */
export function sameInput(live: unknown, recorded: unknown): boolean {
  const [a, b] = comparableInputs(live, recorded);
  return deepEqual(a, b);
}

/** The first differing path of the live input against the recorded one, in words. */
export function firstDifference(live: unknown, recorded: unknown): string {
  const paths = differingPaths(...comparableInputs(live, recorded), 1);
  return paths.length > 0 ? formatPath(paths[0]!) : "(the whole input)";
}
