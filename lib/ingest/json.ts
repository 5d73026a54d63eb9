import { depthMessage, hugeNumberAt, jsonDepthExcess } from "@/lib/hostile/json";
import type { ImportIssue } from "./types";

/**
 * A parsed input: one JSON document, or JSON Lines (one value per non-blank
 * line, each remembering its 1-based line number for issue paths).
 */
export type JsonInput =
  { shape: "document"; value: unknown } | { shape: "lines"; lines: { line: number; value: unknown }[] };

export type DecodeResult = { ok: true; text: string } | { ok: false; issue: ImportIssue };

/** UTF-8 text of the input, without a byte-order mark. */
export function decodeText(input: string | Uint8Array): DecodeResult {
  let text: string;
  if (typeof input === "string") {
    text = input;
  } else {
    try {
      text = new TextDecoder("utf-8", { fatal: true }).decode(input);
    } catch {
      return {
        ok: false,
        issue: { path: "", message: "the document is not valid UTF-8 text" },
      };
    }
  }
  return {
    ok: true,
    text: text.charCodeAt(0) === 0xfeff ? text.slice(1) : text,
  };
}

/** A failure carries `summary` when the text is malformed JSON: one sentence saying so, and where. */
export type ParseResult = { ok: true; input: JsonInput } | { ok: false; issues: ImportIssue[]; summary?: string };

/**
 * Parses a JSON document or JSON Lines. A text that is not one JSON value is
 * read as JSON Lines when it has several non-blank lines and its first one
 * looks like a one-line object; every malformed line is then reported.
 */
export function parseJsonText(text: string): ParseResult {
  if (text.trim() === "")
    return {
      ok: false,
      issues: [{ path: "", message: "the document is empty" }],
    };
  const tooDeep = jsonDepthExcess(text);
  if (tooDeep) return { ok: false, issues: [{ path: "", message: depthMessage(tooDeep) }] };
  let value: unknown;
  try {
    value = JSON.parse(text) as unknown;
  } catch {
    // Fall through: JSON Lines, or a malformed document to locate.
  }
  if (value !== undefined) {
    const huge = hugeNumberAt(text, value);
    if (!huge) return { ok: true, input: { shape: "document", value } };
    return {
      ok: false,
      summary: `Malformed JSON at line ${huge.line}, column ${huge.column}: ${huge.message}.`,
      issues: [{ path: "", message: `at line ${huge.line}, column ${huge.column}: ${huge.message}` }],
    };
  }
  const rawLines = text.split(/\r?\n/);
  const nonBlank = rawLines.map((raw, index) => ({ raw, line: index + 1 })).filter((l) => l.raw.trim() !== "");
  const first = nonBlank[0]?.raw.trim() ?? "";
  if (nonBlank.length >= 2 && first.startsWith("{") && first.endsWith("}")) {
    const lines: { line: number; value: unknown }[] = [];
    const issues: ImportIssue[] = [];
    for (const { raw, line } of nonBlank) {
      try {
        const value = JSON.parse(raw) as unknown;
        const huge = hugeNumberAt(raw, value);
        if (huge) issues.push({ path: `line ${line}`, message: `at column ${huge.column}: ${huge.message}` });
        else lines.push({ line, value });
      } catch {
        const error = locateJsonError(raw);
        issues.push({
          path: `line ${line}`,
          message: `malformed JSON at column ${error?.column ?? 1}: ${error?.message ?? "not valid JSON"}`,
        });
      }
    }
    if (issues.length === 0) return { ok: true, input: { shape: "lines", lines } };
    const firstBad = issues[0]!.path;
    const summary = `Malformed JSON Lines: ${issues.length === 1 ? "1 line is" : `${issues.length} lines are`} not valid JSON, the first at ${firstBad}.`;
    return { ok: false, issues, summary };
  }
  const error = locateJsonError(text);
  // A syntax error at the very end of the text: the document stops before its JSON does.
  const cutShort = error !== null && error.offset >= text.trimEnd().length;
  return {
    ok: false,
    summary: error
      ? `Malformed JSON at line ${error.line}, column ${error.column}: ${error.message}${cutShort ? " (the text ends before the JSON does: was the file cut short?)" : ""}.`
      : "Malformed JSON.",
    issues: [
      {
        path: "",
        message: error
          ? `malformed JSON at line ${error.line}, column ${error.column}: ${error.message}`
          : "malformed JSON",
      },
    ],
  };
}

export type JsonSyntaxError = {
  offset: number;
  line: number;
  column: number;
  message: string;
};

/**
 * The position and cause of the first syntax error in `text`, or null when it
 * is valid JSON. (V8's JSON.parse messages do not always carry a position.)
 */
export function locateJsonError(text: string): JsonSyntaxError | null {
  let i = 0;
  const fail = (message: string, offset = i): never => {
    throw new LocatedError(offset, message);
  };
  const describe = (offset: number) =>
    offset >= text.length ? "the end of the input" : `${JSON.stringify(text[offset])}`;
  const skipWs = () => {
    while (i < text.length && (text[i] === " " || text[i] === "\t" || text[i] === "\n" || text[i] === "\r")) i++;
  };
  const literal = (word: string) => {
    for (let k = 0; k < word.length; k++) {
      if (text[i + k] !== word[k]) fail(`expected ${word}, found ${describe(i + k)}`, i + k);
    }
    i += word.length;
  };
  const string = () => {
    i++; // opening quote
    for (;;) {
      if (i >= text.length) fail("unterminated string");
      const ch = text.charCodeAt(i);
      if (ch === 0x22) {
        i++;
        return;
      }
      if (ch < 0x20) fail("control character in string (escape it)");
      if (ch === 0x5c) {
        const next = text[i + 1];
        if (next === "u") {
          if (!/^[0-9a-fA-F]{4}$/.test(text.slice(i + 2, i + 6))) fail("bad \\u escape in string");
          i += 6;
        } else if (next !== undefined && '"\\/bfnrt'.includes(next)) {
          i += 2;
        } else {
          fail("bad escape in string", i + 1);
        }
        continue;
      }
      i++;
    }
  };
  const digits = () => {
    const start = i;
    while (i < text.length && text[i]! >= "0" && text[i]! <= "9") i++;
    if (i === start) fail(`expected a digit, found ${describe(i)}`);
  };
  const number = () => {
    if (text[i] === "-") i++;
    if (text[i] === "0") i++;
    else digits();
    if (text[i] === ".") {
      i++;
      digits();
    }
    if (text[i] === "e" || text[i] === "E") {
      i++;
      if (text[i] === "+" || text[i] === "-") i++;
      digits();
    }
  };
  const value = (depth: number): void => {
    if (depth > 10_000) fail("nesting too deep");
    skipWs();
    const ch = text[i];
    if (ch === "{") {
      i++;
      skipWs();
      if (text[i] === "}") {
        i++;
        return;
      }
      for (;;) {
        skipWs();
        if (text[i] !== '"') fail(`expected a property name in double quotes, found ${describe(i)}`);
        string();
        skipWs();
        if (text[i] !== ":") fail(`expected ':' after the property name, found ${describe(i)}`);
        i++;
        value(depth + 1);
        skipWs();
        if (text[i] === ",") {
          i++;
          continue;
        }
        if (text[i] === "}") {
          i++;
          return;
        }
        fail(`expected ',' or '}' in an object, found ${describe(i)}`);
      }
    }
    if (ch === "[") {
      i++;
      skipWs();
      if (text[i] === "]") {
        i++;
        return;
      }
      for (;;) {
        value(depth + 1);
        skipWs();
        if (text[i] === ",") {
          i++;
          continue;
        }
        if (text[i] === "]") {
          i++;
          return;
        }
        fail(`expected ',' or ']' in an array, found ${describe(i)}`);
      }
    }
    if (ch === '"') return string();
    if (ch === "t") return literal("true");
    if (ch === "f") return literal("false");
    if (ch === "n") return literal("null");
    if (ch === "-" || (ch !== undefined && ch >= "0" && ch <= "9")) return number();
    fail(`expected a value, found ${describe(i)}`);
  };
  try {
    value(0);
    skipWs();
    if (i < text.length) fail(`unexpected ${describe(i)} after the end of the JSON value`);
    return null;
  } catch (error) {
    if (!(error instanceof LocatedError)) throw error;
    const before = text.slice(0, error.offset);
    const line = before.split("\n").length;
    const column = error.offset - (before.lastIndexOf("\n") + 1) + 1;
    return { offset: error.offset, line, column, message: error.message };
  }
}

class LocatedError extends Error {
  constructor(
    readonly offset: number,
    message: string,
  ) {
    super(message);
  }
}
