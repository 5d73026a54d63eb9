import { AppError } from "@/lib/errors";
import { MAX_JSON_DEPTH } from "@/lib/hostile/json";
import { formatPath, type Path } from "@/lib/ingest/otlp/path";
import type { Message, ModelCallInput } from "@/lib/replay";
import type { WireRequest } from "./types";

// ---------------------------------------------------------------------------
// Reading a provider request body that an outside client sent: typed reads of
// own properties only (a JSON `__proto__` key is data, never a prototype), and
// every problem an AppError("invalid_input") naming its exact path.
// ---------------------------------------------------------------------------

export type Obj = Record<string, unknown>;

export const isObj = (v: unknown): v is Obj => v !== null && typeof v === "object" && !Array.isArray(v);

/** An own property's value (undefined when the key is only inherited, `constructor` for one). */
export function own(obj: Obj, key: string): unknown {
  return Object.hasOwn(obj, key) ? obj[key] : undefined;
}

/** Throws the invalid_input error for one path. */
export function invalid(path: Path, message: string): never {
  const where = formatPath(path);
  throw new AppError("invalid_input", `The request body's ${where === "" ? "top level" : where} ${message}.`, [
    { path: where, message },
  ]);
}

type Container = { value: object; depth: number; parent: Container | null; key: string | number };

/**
 * The path to the first object or array nested `limit` levels deep, or null. Iterative, and it
 * builds a path only for the one it reports (lib/hostile's valueDepthExcess copies one per value,
 * which costs more than the rest of reading a long conversation). A cycle only deepens: it ends.
 */
export function tooDeep(value: unknown, limit = MAX_JSON_DEPTH): Path | null {
  if (value === null || typeof value !== "object") return null;
  const stack: Container[] = [{ value, depth: 0, parent: null, key: "" }];
  while (stack.length > 0) {
    const node = stack.pop()!;
    if (node.depth >= limit) {
      const path: (string | number)[] = [];
      for (let n: Container | null = node; n && n.parent; n = n.parent) path.push(n.key);
      return path.reverse();
    }
    const v = node.value;
    const depth = node.depth + 1;
    if (Array.isArray(v)) {
      for (let i = v.length - 1; i >= 0; i--) {
        const inner: unknown = v[i];
        if (inner !== null && typeof inner === "object") stack.push({ value: inner, depth, parent: node, key: i });
      }
    } else {
      const keys = Object.keys(v);
      for (let i = keys.length - 1; i >= 0; i--) {
        const inner = (v as Obj)[keys[i]!];
        if (inner !== null && typeof inner === "object")
          stack.push({ value: inner, depth, parent: node, key: keys[i]! });
      }
    }
  }
  return null;
}

/** The body as an object, refused when it is anything else or nests deeper than any JSON input may. */
export function bodyObject(body: unknown): Obj {
  if (!isObj(body)) invalid([], "must be a JSON object");
  const deep = tooDeep(body);
  if (deep) invalid(deep, `nests objects and arrays more than ${MAX_JSON_DEPTH} levels deep`);
  return body;
}

const kind = (v: unknown) => (v === null ? "null" : Array.isArray(v) ? "an array" : `a ${typeof v}`);

export function readString(obj: Obj, key: string, at: Path, required: true): string;
export function readString(obj: Obj, key: string, at: Path, required?: false): string | undefined;
export function readString(obj: Obj, key: string, at: Path, required = false): string | undefined {
  const v = own(obj, key);
  if (v === undefined || v === null) {
    if (required) invalid([...at, key], "is required");
    return undefined;
  }
  if (typeof v !== "string") invalid([...at, key], `must be a string, not ${kind(v)}`);
  if (required && v === "") invalid([...at, key], "must not be empty");
  return v;
}

export function readNumber(obj: Obj, key: string, at: Path): number | undefined {
  const v = own(obj, key);
  if (v === undefined || v === null) return undefined;
  if (typeof v !== "number" || !Number.isFinite(v)) invalid([...at, key], `must be a number, not ${kind(v)}`);
  return v;
}

export function readBoolean(obj: Obj, key: string, at: Path): boolean | undefined {
  const v = own(obj, key);
  if (v === undefined || v === null) return undefined;
  if (typeof v !== "boolean") invalid([...at, key], `must be true or false, not ${kind(v)}`);
  return v;
}

export function readArray(obj: Obj, key: string, at: Path): unknown[] | undefined {
  const v = own(obj, key);
  if (v === undefined || v === null) return undefined;
  if (!Array.isArray(v)) invalid([...at, key], `must be an array, not ${kind(v)}`);
  return v as unknown[];
}

export function readObject(value: unknown, at: Path, what: string): Obj {
  if (!isObj(value)) invalid(at, `must be ${what}, not ${kind(value)}`);
  return value;
}

/**
 * A function tool as the importers store a recorded call's tool definitions (`{ name, description?,
 * parameters? }`, see chatToolSchemas), so a live request's tools compare equal to its recording's; the model
 * executor turns them into the Chat Completions shape when it forwards a call.
 */
export function chatTool(def: { name: string; description?: unknown; parameters?: unknown }): Obj {
  return {
    name: def.name,
    ...(def.description !== undefined ? { description: def.description } : {}),
    ...(def.parameters !== undefined ? { parameters: def.parameters } : {}),
  };
}

/** An assistant message's text: its string content, or the text of its text parts; null when it has none. */
export function answerText(message: Message): string | null {
  const c = message.content;
  if (typeof c === "string") return c;
  if (!Array.isArray(c)) return c === null || c === undefined ? null : JSON.stringify(c);
  const texts = c.flatMap((p: unknown) =>
    isObj(p) && typeof p.text === "string" ? [p.text] : isObj(p) && typeof p.content === "string" ? [p.content] : [],
  );
  return texts.length > 0 ? texts.join("") : null;
}

/** A tool call's arguments as the JSON text a client parses (the raw text when the recording kept it unparsed). */
export function argumentsText(call: { args: unknown; argsUnparsed?: boolean }): string {
  if (call.argsUnparsed && typeof call.args === "string") return call.args;
  return JSON.stringify(call.args ?? {}) ?? "{}";
}

/** Text cut into word-sized deltas (each keeps its trailing space), as providers stream it. */
export function textDeltas(text: string): string[] {
  const words = text.split(/(?<= )/);
  return words.filter((w) => w !== "");
}

/** JSON text cut in two pieces, as providers stream tool arguments. */
export function jsonDeltas(text: string): string[] {
  if (text.length < 2) return [text];
  const half = Math.floor(text.length / 2);
  return [text.slice(0, half), text.slice(half)];
}

/** One complete SSE event. */
export function sse(event: string, data: unknown): string {
  return `event: ${event}\ndata: ${JSON.stringify(data)}\n\n`;
}

/** The WireRequest of a parsed body: the input as the importers store it (temperature and tools only when sent). */
export function wireRequest(
  messages: ModelCallInput["messages"],
  fields: { model: string; temperature: number | undefined; tools: unknown[]; stream: boolean },
): WireRequest {
  const { model, temperature, tools, stream } = fields;
  const input: ModelCallInput = {
    messages,
    model,
    ...(temperature !== undefined ? { temperature } : {}),
    ...(tools.length > 0 ? { tools } : {}),
  };
  return { input, stream, model };
}
