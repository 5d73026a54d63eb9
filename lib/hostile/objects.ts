/**
 * Building objects from keys an outsider chose (OTLP attribute names, JSON
 * object keys) without touching a prototype. `obj[key] = value` with the key
 * `__proto__` replaces the object's prototype instead of adding a property,
 * and walking into `obj.__proto__` reaches `Object.prototype`, which every
 * object in the process shares: one span could then change how the database
 * driver, React and Node itself behave.
 */

/** Path segments that name a prototype rather than data; refused in dotted keys. */
export const UNSAFE_KEYS: ReadonlySet<string> = new Set(["__proto__", "constructor", "prototype"]);

export function isUnsafeKey(key: string): boolean {
  return UNSAFE_KEYS.has(key);
}

/**
 * Adds `key` as an own, enumerable data property, whatever its name (an own
 * `__proto__` property is plain data: JSON.stringify writes it, nothing
 * inherits from it).
 */
export function setOwn(target: Record<string, unknown>, key: string, value: unknown): void {
  Object.defineProperty(target, key, { value, writable: true, enumerable: true, configurable: true });
}
