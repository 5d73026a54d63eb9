import { setOwn } from "./objects";

/**
 * Text PostgreSQL cannot store. A lone UTF-16 surrogate (`\ud800` with no
 * partner: common in strings cut mid-emoji) is valid in a JS string and in a
 * JSON escape, but PostgreSQL refuses it in text and JSON (22P02, 22P05),
 * after whatever ran before the write. It is repaired where input enters, as
 * NUL is at the executor boundary: replaced with U+FFFD, and counted so the
 * caller can note it.
 */

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

export function hasLoneSurrogate(text: string): boolean {
  LONE_SURROGATE.lastIndex = 0;
  const found = LONE_SURROGATE.test(text);
  LONE_SURROGATE.lastIndex = 0;
  return found;
}

/** One string with its lone surrogates replaced by U+FFFD, and how many there were. */
export function repairText(text: string): { text: string; replaced: number } {
  if (!hasLoneSurrogate(text)) return { text, replaced: 0 };
  let replaced = 0;
  const out = text.replace(LONE_SURROGATE, () => {
    replaced++;
    return "\uFFFD";
  });
  return { text: out, replaced };
}

/**
 * A JSON-like value with every lone surrogate (in strings and in keys)
 * replaced by U+FFFD. Returns the same value when nothing needed repair.
 * Iterative over arrays and objects, so it is safe on deep values.
 */
export function repairLoneSurrogates<T>(value: T): { value: T; replaced: number } {
  if (!mayHoldLoneSurrogate(value)) return { value, replaced: 0 };
  let replaced = 0;
  const fix = (s: string): string => {
    const r = repairText(s);
    replaced += r.replaced;
    return r.text;
  };
  const walk = (v: unknown, depth: number): unknown => {
    if (typeof v === "string") return fix(v);
    if (depth > 10_000 || v === null || typeof v !== "object") return v;
    if (Array.isArray(v)) return v.map((inner: unknown) => walk(inner, depth + 1));
    if (v instanceof Date || ArrayBuffer.isView(v)) return v;
    const out: Record<string, unknown> = {};
    for (const [k, inner] of Object.entries(v)) setOwn(out, fix(k), walk(inner, depth + 1));
    return out;
  };
  const result = walk(value, 0);
  return { value: replaced === 0 ? value : (result as T), replaced };
}

/** JSON text's escape for a lone surrogate (JSON.stringify writes a paired one as is, a lone one as `\udXXX`). */
const ESCAPED_SURROGATE = /\\ud[89a-f][0-9a-f]{2}/;

/**
 * False when `value` certainly holds no lone surrogate, in a string or a key: one
 * native serialization and one scan of its text, instead of a walk that copies
 * every object (the repair's). True when it may (an escaped backslash followed by
 * such text matches too, and a value JSON cannot write is not ruled out).
 */
function mayHoldLoneSurrogate(value: unknown): boolean {
  if (typeof value === "string") return hasLoneSurrogate(value);
  if (value === null || typeof value !== "object") return false;
  try {
    const text = JSON.stringify(value);
    return text === undefined || ESCAPED_SURROGATE.test(text);
  } catch {
    return true;
  }
}
