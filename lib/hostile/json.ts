/**
 * JSON from outside, with its nesting bounded. V8 parses deep documents, but
 * everything after the parse that walks a value (validation, canonical JSON,
 * cache keys, the database driver) recurses, and 3,000 levels overflowed the
 * stack as a 500. The text is scanned first (linear, no recursion), so a
 * document deeper than the limit is refused before it is parsed.
 */

/** The deepest nesting of objects and arrays accepted anywhere in a JSON input. */
export const MAX_JSON_DEPTH = 512;

export type DepthExcess = { offset: number; line: number; column: number };

/**
 * Where `text` first nests objects or arrays deeper than `limit`, or null.
 * Brackets inside strings do not count. The text need not be valid JSON.
 */
export function jsonDepthExcess(text: string, limit = MAX_JSON_DEPTH): DepthExcess | null {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text.charCodeAt(i);
    if (inString) {
      if (ch === 0x5c)
        i++; // backslash: skip the escaped character
      else if (ch === 0x22) inString = false;
      continue;
    }
    if (ch === 0x22) inString = true;
    else if (ch === 0x7b || ch === 0x5b) {
      depth++;
      if (depth > limit) {
        const before = text.slice(0, i);
        const line = before.split("\n").length;
        return { offset: i, line, column: i - (before.lastIndexOf("\n") + 1) + 1 };
      }
    } else if (ch === 0x7d || ch === 0x5d) depth--;
  }
  return null;
}

/** The message every route gives for a too-deep document. */
export function depthMessage(excess: DepthExcess, limit = MAX_JSON_DEPTH): string {
  return `the JSON nests objects and arrays more than ${limit} levels deep (at line ${excess.line}, column ${excess.column}); the limit is ${limit}`;
}

export class JsonTooDeepError extends Error {
  override name = "JsonTooDeepError";
  constructor(readonly excess: DepthExcess) {
    super(depthMessage(excess));
  }
}

/** JSON.parse for untrusted text: throws JsonTooDeepError before parsing a too-deep document, SyntaxError as JSON.parse does. */
export function parseJsonBounded(text: string, limit = MAX_JSON_DEPTH): unknown {
  const excess = jsonDepthExcess(text, limit);
  if (excess) throw new JsonTooDeepError(excess);
  return JSON.parse(text) as unknown;
}

/**
 * Whether an already-built value (a server action's argument) nests deeper
 * than `limit`; iterative, so a hostile value cannot overflow the check itself.
 * Returns the path to the first too-deep point, or null.
 */
export function valueDepthExcess(value: unknown, limit = MAX_JSON_DEPTH): (string | number)[] | null {
  const stack: { value: unknown; path: (string | number)[] }[] = [{ value, path: [] }];
  const seen = new Set<object>();
  while (stack.length > 0) {
    const { value: v, path } = stack.pop()!;
    if (v === null || typeof v !== "object" || seen.has(v)) continue;
    seen.add(v);
    if (path.length >= limit) return path;
    if (Array.isArray(v)) v.forEach((inner: unknown, i) => stack.push({ value: inner, path: [...path, i] }));
    else for (const [k, inner] of Object.entries(v)) stack.push({ value: inner, path: [...path, k] });
  }
  return null;
}

/** Number literals that may be past a double's range: a long run of digits, or a large exponent. */
const HUGE_NUMBER = /-?\d{300,}(?:\.\d+)?(?:[eE][+-]?\d+)?|-?\d+(?:\.\d+)?[eE]\+?\d{3,}/g;

/**
 * Where JSON `text` (already parsed to `value`) writes a number too large for a double, which JSON.parse made
 * Infinity and every writer would then store as null without a word; null when there is none. A regular
 * expression finds the candidates (a match inside a string is only text: the parsed value decides).
 */
export function hugeNumberAt(text: string, value: unknown): { line: number; column: number; message: string } | null {
  HUGE_NUMBER.lastIndex = 0;
  for (let m = HUGE_NUMBER.exec(text); m !== null; m = HUGE_NUMBER.exec(text)) {
    if (Number.isFinite(Number(m[0]))) continue;
    if (!holdsNonFinite(value)) return null;
    const before = text.slice(0, m.index);
    return {
      line: before.split("\n").length,
      column: m.index - (before.lastIndexOf("\n") + 1) + 1,
      message: `the number ${m[0].slice(0, 40)}${m[0].length > 40 ? "…" : ""} is too large to store (the largest is about 1.8e308)`,
    };
  }
  return null;
}

/** Whether a parsed value holds Infinity (what JSON.parse makes of a number too large), walked without recursion. */
function holdsNonFinite(value: unknown): boolean {
  const stack: unknown[] = [value];
  while (stack.length > 0) {
    const v = stack.pop();
    if (typeof v === "number" && !Number.isFinite(v)) return true;
    if (v !== null && typeof v === "object") for (const inner of Object.values(v)) stack.push(inner);
  }
  return false;
}
