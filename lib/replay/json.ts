/**
 * JSON helpers shared by matching, replay and comparison. Values are parsed
 * JSON: equality is structural, `true` never equals `1`, arrays compare whole.
 */

export type JsonPath = (string | number)[];

/** A JSON text's value, or JSON.parse's own words for why it is not JSON ("not JSON" when it gave none). */
export function parseJsonText(text: string): { ok: true; value: unknown } | { ok: false; message: string } {
  try {
    return { ok: true, value: JSON.parse(text) as unknown };
  } catch (error) {
    return { ok: false, message: error instanceof Error ? error.message : "not JSON" };
  }
}

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}

/** Structural equality of JSON values (reference-equal values short-circuit). */
export function deepEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== typeof b || a === null || b === null || typeof a !== "object") {
    // NaN is not JSON; two NaNs are still "the same recorded value".
    return typeof a === "number" && typeof b === "number" && Number.isNaN(a) && Number.isNaN(b);
  }
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!deepEqual(a[i], b[i])) return false;
    return true;
  }
  if (Array.isArray(b)) return false;
  const ao = a as Record<string, unknown>;
  const bo = b as Record<string, unknown>;
  let aCount = 0;
  for (const key in ao) {
    const value = ao[key];
    if (value === undefined) continue;
    aCount++;
    if (!deepEqual(value, bo[key])) return false;
  }
  let bCount = 0;
  for (const key in bo) if (bo[key] !== undefined) bCount++;
  return aCount === bCount;
}

/**
 * True only when two values certainly have the same canonical JSON (`canonicalJson`): equal primitives, and
 * arrays and plain objects (own keys, those set to `undefined` skipped) equal member by member. False means
 * "not shown here": anything else (a Date, a class instance, NaN, a cycle) is left to the canonical text.
 * A cheap test before serializing both sides.
 */
export function sameJson(a: unknown, b: unknown, depth = 0): boolean {
  if (a === b) return typeof a !== "number" || Number.isFinite(a);
  if (depth > 1_000 || a === null || b === null || typeof a !== "object" || typeof b !== "object") return false;
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) {
      const x: unknown = a[i];
      const y: unknown = b[i];
      if (x === undefined || y === undefined || !sameJson(x, y, depth + 1)) return false;
    }
    return true;
  }
  if (Array.isArray(b) || !isPlainRecord(a) || !isPlainRecord(b)) return false;
  let count = 0;
  for (const key of Object.keys(a)) {
    const value = a[key];
    if (value === undefined) continue;
    count++;
    if (!Object.prototype.hasOwnProperty.call(b, key) || !sameJson(value, b[key], depth + 1)) return false;
  }
  for (const key of Object.keys(b)) if (b[key] !== undefined) count--;
  return count === 0;
}

/** An object made by a literal or JSON.parse (no class, no toJSON of its own to change its JSON). */
function isPlainRecord(value: object): value is Record<string, unknown> {
  const proto: unknown = Object.getPrototypeOf(value);
  return (proto === Object.prototype || proto === null) && typeof (value as { toJSON?: unknown }).toJSON !== "function";
}

/**
 * The paths at which two JSON values differ: a key present on one side only,
 * a leaf with another value, or arrays of different length (reported at the
 * array, then element by element up to the shorter length).
 */
export function differingPaths(a: unknown, b: unknown, limit = 50): JsonPath[] {
  const out: JsonPath[] = [];
  const walk = (x: unknown, y: unknown, path: JsonPath): void => {
    if (out.length >= limit || x === y) return;
    if (isPlainObject(x) && isPlainObject(y)) {
      const keys = new Set([...Object.keys(x), ...Object.keys(y)]);
      for (const key of [...keys].sort()) {
        const inX = Object.prototype.hasOwnProperty.call(x, key) && x[key] !== undefined;
        const inY = Object.prototype.hasOwnProperty.call(y, key) && y[key] !== undefined;
        if (inX !== inY) out.push([...path, key]);
        else walk(x[key], y[key], [...path, key]);
        if (out.length >= limit) return;
      }
      return;
    }
    if (Array.isArray(x) && Array.isArray(y)) {
      if (x.length !== y.length) out.push(path);
      const n = Math.min(x.length, y.length);
      for (let i = 0; i < n; i++) walk(x[i], y[i], [...path, i]);
      return;
    }
    if (!deepEqual(x, y)) out.push(path);
  };
  walk(a, b, []);
  return out;
}

/** `a.b[2].c` style rendering of a path, for messages. */
export function formatPath(path: JsonPath): string {
  if (path.length === 0) return "(whole value)";
  return path.map((part, i) => (typeof part === "number" ? `[${part}]` : i === 0 ? part : `.${part}`)).join("");
}
