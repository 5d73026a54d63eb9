import { parseJsonBounded } from "@/lib/hostile/json";
import { setOwn } from "@/lib/hostile/objects";
import type { ImportIssue } from "../types";
import type { OtlpSpan } from "./decode";
import { formatPath } from "./path";

/**
 * Typed reads of one span's attributes. A present attribute of the wrong type
 * (or JSON-in-a-string that does not parse) is a warning at its exact path —
 * `resourceSpans[0].scopeSpans[0].spans[3].attributes["gen_ai.tool.call.arguments"]`
 * — and reads as absent; the mapping degrades instead of failing.
 */
export class SpanAttributes {
  constructor(
    readonly span: OtlpSpan,
    private readonly warnings: ImportIssue[],
  ) {}

  has(key: string): boolean {
    return this.span.attributes[key] !== undefined && this.span.attributes[key] !== null;
  }

  raw(key: string): unknown {
    return this.span.attributes[key];
  }

  warn(key: string | null, message: string): void {
    const suffix = key === null ? "" : formatPath(["attributes", key]);
    const path = [this.span.path, suffix].filter((part) => part !== "").join(".");
    this.warnings.push({ path, message: `span ${this.span.spanId} (${this.span.name || "unnamed"}): ${message}` });
  }

  string(key: string): string | undefined {
    const value = this.span.attributes[key];
    if (value === undefined || value === null) return undefined;
    if (typeof value === "string") return value;
    this.warn(key, `expected a string, found ${describe(value)}`);
    return undefined;
  }

  /** A non-negative integer (token counts): a whole number, or a decimal string. */
  count(key: string): number | undefined {
    const value = this.span.attributes[key];
    if (value === undefined || value === null) return undefined;
    if (typeof value === "number" && Number.isInteger(value) && value >= 0) return value;
    if (typeof value === "string" && /^\d+$/.test(value) && Number.isSafeInteger(Number(value))) return Number(value);
    this.warn(key, `expected a non-negative integer, found ${describe(value)}`);
    return undefined;
  }

  number(key: string): number | undefined {
    const value = this.span.attributes[key];
    if (value === undefined || value === null) return undefined;
    if (typeof value === "number" && Number.isFinite(value)) return value;
    this.warn(key, `expected a number, found ${describe(value)}`);
    return undefined;
  }

  /** JSON that the source wrote as a string (or as a structured AnyValue already). Absent when it does not parse. */
  json(key: string): unknown {
    const value = this.span.attributes[key];
    if (value === undefined || value === null) return undefined;
    if (typeof value !== "string") return value;
    const parsed = parseJson(value);
    if (parsed.ok) return parsed.value;
    this.warn(key, `is not valid JSON (${parsed.error})`);
    return undefined;
  }

  /** A value that is usually JSON text (tool results): parsed when it parses, else the text as it is. */
  jsonOrText(key: string): unknown {
    const value = this.span.attributes[key];
    if (typeof value !== "string") return value ?? undefined;
    const parsed = parseJson(value);
    return parsed.ok ? parsed.value : value;
  }

  /** Every attribute under `prefix.` as a record keyed by the rest of the key. */
  prefixed(prefix: string): Record<string, unknown> {
    const out: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(this.span.attributes)) {
      if (key.startsWith(`${prefix}.`)) setOwn(out, key.slice(prefix.length + 1), value);
    }
    return out;
  }
}

export function parseJson(text: string): { ok: true; value: unknown } | { ok: false; error: string } {
  try {
    return { ok: true, value: parseJsonBounded(text) };
  } catch (error) {
    return { ok: false, error: (error as Error).message };
  }
}

/** Tool-call arguments: JSON text parsed; what does not parse is kept as text and marked. */
export function parseArgs(value: unknown): { args: unknown; argsUnparsed?: true } {
  if (typeof value !== "string") return { args: value ?? {} };
  if (value.trim() === "") return { args: {} };
  const parsed = parseJson(value);
  return parsed.ok ? { args: parsed.value } : { args: value, argsUnparsed: true };
}

export function describe(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  if (typeof value === "string") return `a string`;
  if (typeof value === "object") return "an object";
  const shown =
    typeof value === "number" || typeof value === "boolean" || typeof value === "bigint" ? String(value) : typeof value;
  return `a ${typeof value} (${shown})`;
}

export function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}
