import { parseJsonBounded } from "@/lib/hostile/json";
import { EventError } from "@/lib/replay";

export type FixtureFormResult =
  | { ok: true; body: { output: unknown } | { error: EventError } }
  | { ok: false; path: "text" | "note"; message: string };

/** What the fixture form holds (JSON text, output or error) as the fixture API's body, or what is wrong with it. */
export function parseFixtureForm(kind: "output" | "error", text: string): FixtureFormResult {
  if (text.trim() === "")
    return {
      ok: false,
      path: "text",
      message: `Enter the ${kind === "output" ? "tool's result" : "error"} as JSON (for no result, write null).`,
    };
  let value: unknown;
  try {
    value = parseJsonBounded(text);
  } catch (error) {
    return {
      ok: false,
      path: "text",
      message: `The ${kind} is not valid JSON: ${error instanceof Error ? error.message : String(error)}`,
    };
  }
  if (kind === "output") return { ok: true, body: { output: value } };
  const parsed = EventError.safeParse(value);
  if (!parsed.success)
    return {
      ok: false,
      path: "text",
      message: 'An error fixture is a JSON object { "type": "...", "message": "..." } with both strings.',
    };
  return { ok: true, body: { error: parsed.data } };
}
