/**
 * JSON typed into the playground's editors, read with where it went wrong: a browser's JSON.parse names the
 * position in its own words (or not at all), so the text is scanned here to name the line and column of the
 * first thing that is not JSON. Linear and without recursion, so a deeply nested paste cannot overflow it.
 */
import { jsonDepthExcess, MAX_JSON_DEPTH } from "@/lib/hostile/json";

export type EditedJson = { ok: true; value: unknown } | { ok: false; line: number; column: number; message: string };

const WS = new Set([" ", "\t", "\n", "\r"]);

function place(text: string, offset: number): { line: number; column: number } {
  const before = text.slice(0, offset);
  const line = before.split("\n").length;
  return { line, column: offset - (before.lastIndexOf("\n") + 1) + 1 };
}

const shown = (ch: string | undefined) => (ch === undefined ? "the end of the text" : JSON.stringify(ch));

/** Where `text` first stops being JSON, and what was expected there; null when it is valid. */
export function firstJsonProblem(text: string): { offset: number; message: string } | null {
  let i = 0;
  const skip = () => {
    while (i < text.length && WS.has(text[i]!)) i++;
  };
  const fail = (message: string) => ({ offset: Math.min(i, text.length), message });
  /** What may come next: a value, or after one of these the containers' punctuation. */
  const stack: ("{" | "[")[] = [];
  let want: "value" | "key" | "after" = "value";
  let first = true; // just after an opening bracket: its closing bracket may come at once
  for (;;) {
    skip();
    const ch = text[i];
    if (want === "value" || want === "key") {
      if (first && ch !== undefined && ((ch === "]" && stack.at(-1) === "[") || (ch === "}" && stack.at(-1) === "{"))) {
        stack.pop();
        i++;
        want = "after";
        first = false;
        continue;
      }
      first = false;
      if (want === "key") {
        if (ch !== '"') return fail(`expected a property name in double quotes, found ${shown(ch)}`);
        const end = scanString(text, i);
        if (typeof end !== "number") return { offset: end.offset, message: end.message };
        i = end;
        skip();
        if (text[i] !== ":") return fail(`expected ":" after the property name, found ${shown(text[i])}`);
        i++;
        want = "value";
        continue;
      }
      if (ch === "{" || ch === "[") {
        stack.push(ch);
        i++;
        want = ch === "{" ? "key" : "value";
        first = true;
        continue;
      }
      if (ch === '"') {
        const end = scanString(text, i);
        if (typeof end !== "number") return { offset: end.offset, message: end.message };
        i = end;
      } else {
        const literal = /^(?:true|false|null|-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?)/.exec(text.slice(i, i + 400));
        if (!literal) return fail(`expected a value, found ${shown(ch)}`);
        i += literal[0].length;
      }
      want = "after";
      continue;
    }
    const open = stack.at(-1);
    if (open === undefined) return ch === undefined ? null : fail(`unexpected ${shown(ch)} after the end of the JSON`);
    if (ch === ",") {
      i++;
      want = open === "{" ? "key" : "value";
    } else if ((ch === "]" && open === "[") || (ch === "}" && open === "{")) {
      stack.pop();
      i++;
    } else return fail(`expected "," or "${open === "[" ? "]" : "}"}", found ${shown(ch)}`);
  }
}

/** The end of the string starting at `start` (just past its closing quote), or what is wrong in it. */
function scanString(text: string, start: number): number | { offset: number; message: string } {
  for (let i = start + 1; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x22) return i + 1;
    if (c < 0x20) return { offset: i, message: "a line break or control character inside a string (write it as \\n)" };
    if (c === 0x5c) {
      const next = text[i + 1];
      if (next === "u") {
        if (!/^[0-9a-fA-F]{4}$/.test(text.slice(i + 2, i + 6)))
          return { offset: i, message: "a \\u escape needs four hex digits" };
        i += 5;
      } else if (next !== undefined && '"\\/bfnrt'.includes(next)) i++;
      else return { offset: i, message: `${shown(`\\${next ?? ""}`)} is not an escape JSON knows` };
    }
  }
  return { offset: start, message: "a string that is never closed" };
}

/** The editor's text as JSON, or the line and column of its first problem in words (`what`: the editor's name). */
export function readEditedJson(text: string, what: string): EditedJson {
  const deep = jsonDepthExcess(text);
  if (deep)
    return {
      ok: false,
      line: deep.line,
      column: deep.column,
      message: `${what}: nested more than ${MAX_JSON_DEPTH} levels deep at line ${deep.line}, column ${deep.column}.`,
    };
  try {
    return { ok: true, value: JSON.parse(text) as unknown };
  } catch {
    const problem = firstJsonProblem(text) ?? { offset: 0, message: "not valid JSON" };
    const { line, column } = place(text, problem.offset);
    return {
      ok: false,
      line,
      column,
      message: `${what}: not valid JSON at line ${line}, column ${column}: ${problem.message}.`,
    };
  }
}
