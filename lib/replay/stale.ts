import { differingPaths, formatPath, type JsonPath } from "./json";
import type { ToolAnswer } from "./tool-call";

/**
 * Stale recordings: whether a recorded tool answer is still what the live
 * tool answers for the same arguments (Hoverfly's diff mode). Paths the
 * analyst marks volatile (timestamps, request ids) are ignored, with `*` for
 * any key or index; a volatile path covers everything under it.
 */

/** Path segments; the string "*" stands for any key or index. */
export type VolatilePattern = (string | number)[];

/** `$.meta.updated_at`, `items[*].price`, `$["odd key"]` → segments; null when malformed. */
export function parseVolatilePath(raw: string): VolatilePattern | null {
  let rest = raw.trim();
  if (rest.startsWith("$")) rest = rest.slice(1);
  const out: VolatilePattern = [];
  const token = /^(?:\.([^.[\]]+)|\[(\d+|\*)\]|\["((?:[^"\\]|\\.)*)"\]|([^.[\]]+))/;
  let first = true;
  while (rest.length > 0) {
    const m = token.exec(rest);
    if (!m || (m[4] !== undefined && !first)) return null;
    const key = m[1] ?? m[4];
    if (key !== undefined) out.push(key === "*" ? "*" : key);
    else if (m[2] !== undefined) out.push(m[2] === "*" ? "*" : Number(m[2]));
    else out.push(JSON.parse(`"${m[3]}"`) as string);
    rest = rest.slice(m[0].length);
    first = false;
  }
  return out.length > 0 ? out : null;
}

function covers(pattern: VolatilePattern, path: JsonPath): boolean {
  if (pattern.length > path.length) return false;
  return pattern.every((part, i) => part === "*" || part === path[i] || String(part) === String(path[i]));
}

export interface StaleVerdict {
  stale: boolean;
  /** Where the live answer differs from the recording (volatile paths left out), as `a.b[2]`. */
  paths: string[];
  /** Differences left out because a volatile path covers them. */
  ignored: string[];
}

/** Compares a recorded answer with the live one; errors are compared as answers too. */
export function staleDiff(
  recorded: { output: unknown; error: unknown },
  live: ToolAnswer,
  volatile: readonly VolatilePattern[] = [],
): StaleVerdict {
  const recordedFailed = recorded.error !== null && recorded.error !== undefined;
  const liveFailed = live.error !== undefined;
  if (recordedFailed !== liveFailed)
    return {
      stale: true,
      paths: [recordedFailed ? "(recorded an error; the tool now answers)" : "(the tool now fails)"],
      ignored: [],
    };
  const diff = recordedFailed
    ? differingPaths(recorded.error, live.error).map((p) => ["error", ...p] as JsonPath)
    : differingPaths(recorded.output, live.output);
  const paths: string[] = [];
  const ignored: string[] = [];
  for (const path of diff) (volatile.some((v) => covers(v, path)) ? ignored : paths).push(formatPath(path));
  return { stale: paths.length > 0, paths, ignored };
}
