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
  // Only `__proto__` is an accessor on the way up from a plain object (Object.prototype's): any other key
  // assigned becomes an own data property, as defined, at a fraction of defineProperty's cost.
  if (key === "__proto__" || !isPlainTarget(target))
    Object.defineProperty(target, key, { value, writable: true, enumerable: true, configurable: true });
  else target[key] = value;
}

/** An object whose prototype is Object.prototype or null and that is not frozen or sealed (assignment defines). */
function isPlainTarget(target: object): boolean {
  const proto = Object.getPrototypeOf(target) as unknown;
  return (proto === Object.prototype || proto === null) && Object.isExtensible(target);
}
