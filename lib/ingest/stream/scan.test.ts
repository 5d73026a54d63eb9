import { describe, expect, it } from "vitest";
import { documentPieces, linesOf, parsePiece, StreamSyntaxError, utf8Chunks, InvalidUtf8 } from "./scan";

async function* chunksOf(text: string, size: number): AsyncGenerator<string> {
  for (let at = 0; at < text.length; at += size) yield text.slice(at, at + size);
}

async function pieces(text: string, size = text.length) {
  const out: { key: string | null; index: number | null; value: unknown; line: number; column: number }[] = [];
  for await (const p of documentPieces(chunksOf(text, size)))
    out.push({
      key: p.key,
      index: p.index,
      value: parsePiece(p.text, p.line, p.column, 1),
      line: p.line,
      column: p.column,
    });
  return out;
}

async function failure(text: string, size = text.length): Promise<StreamSyntaxError> {
  try {
    await pieces(text, size);
  } catch (error) {
    if (error instanceof StreamSyntaxError) return error;
    throw error;
  }
  throw new Error("no error");
}

// Strings holding the scanner's own delimiters, escapes (an escaped quote, an escaped backslash before a quote),
// nesting, scalars and an odd key: cut at every position, the pieces are the same.
const DOC = `{
  "model": "gpt-4o", "n": -1.5e3, "ok": true, "none": null,
  "we\\"ird key": {"a": [1, {"b": "}],{["}]},
  "messages": [ {"role": "user", "content": "a \\\\\\" ] } , [ {"}, "x"
  , {"role": "assistant", "content": null}, "plain", 7 ],
  "empty": [],
  "tools": [{"type": "function"}]
}`;

describe("reading a JSON document a piece at a time", () => {
  it("gives each member, and each element of a member's array, with its place, however the text is cut", async () => {
    const whole = await pieces(DOC);
    expect(whole.map((p) => [p.key, p.index])).toEqual([
      ["model", null],
      ["n", null],
      ["ok", null],
      ["none", null],
      ['we"ird key', null],
      ["messages", 0],
      ["messages", 1],
      ["messages", 2],
      ["messages", 3],
      ["messages", 4],
      ["tools", 0],
    ]);
    const parsed = JSON.parse(DOC) as Record<string, unknown>;
    expect(whole[4]!.value).toEqual(parsed['we"ird key']);
    expect(whole.filter((p) => p.key === "messages").map((p) => p.value)).toEqual(parsed.messages);
    expect(whole[5]).toMatchObject({ line: 4, column: 17 });
    for (const size of [1, 2, 3, 7, 64]) expect(await pieces(DOC, size)).toEqual(whole);
  });

  it("gives the elements of a top-level array", async () => {
    expect((await pieces(`[{"a":1}, "}", [2]]`, 3)).map((p) => [p.key, p.index, p.value])).toEqual([
      [null, 0, { a: 1 }],
      [null, 1, "}"],
      [null, 2, [2]],
    ]);
  });

  it("names the line and column of what is broken, inside a piece or between pieces", async () => {
    const broken = `{"messages": [\n  {"role": "user"},\n  {"role": "user", "content": tru}\n]}`;
    expect(await failure(broken, 5)).toMatchObject({ line: 3, column: 34, reason: 'expected true, found "}"' });
    expect(await failure(`{"a": 1 "b": 2}`)).toMatchObject({
      line: 1,
      column: 9,
      reason: 'unexpected "\\"" after the end of the JSON value',
    });
    expect(await failure(`{"a": [1] "b": 2}`)).toMatchObject({
      line: 1,
      column: 11,
      reason: "expected ',' or '}' in an object, found \"\\\"\"",
    });
    expect((await failure(`{"messages": [{"role": "user"}`)).reason).toBe(
      "the text ends before the JSON does (was the file cut short?)",
    );
    expect((await failure(`{"a": 1}\n{"a": 2}`)).reason).toBe('unexpected "{" after the end of the JSON value');
  });

  it("refuses nesting past the limit and numbers past a double, where they are", async () => {
    const deep = `{"a": [${"[".repeat(600)}${"]".repeat(600)}]}`;
    expect((await failure(deep)).reason).toMatch(/more than 512 levels deep/);
    const huge = `{"messages": [\n {"role": "tool", "content": [{"n": 1e400}]}]}`;
    expect(await failure(huge)).toMatchObject({ line: 2, column: 37 });
    expect((await failure(huge)).reason).toMatch(/^the number 1e400 is too large to store/);
    // In a string it is only text.
    expect((await pieces(`{"a": ["1e400"]}`))[0]!.value).toBe("1e400");
  });
});

describe("reading JSON Lines and bytes", () => {
  it("gives each non-blank line with its number, across chunks, \\r\\n or not", async () => {
    const out = [];
    for await (const l of linesOf(chunksOf('{"a":1}\r\n\n  \n{"b":\n2}\n{"c":3}', 4))) out.push(l);
    expect(out).toEqual([
      { line: 1, text: '{"a":1}' },
      { line: 4, text: '{"b":' },
      { line: 5, text: "2}" },
      { line: 6, text: '{"c":3}' },
    ]);
  });

  it("decodes UTF-8 split anywhere, drops a byte-order mark, and refuses bytes that are not UTF-8", async () => {
    const bytes = new TextEncoder().encode('\uFEFF{"é": "😀"}');
    async function* oneByOne(b: Uint8Array) {
      for (const byte of b) yield new Uint8Array([byte]);
    }
    let text = "";
    for await (const c of utf8Chunks(oneByOne(bytes))) text += c;
    expect(text).toBe('{"é": "😀"}');
    await expect(async () => {
      for await (const _ of utf8Chunks(oneByOne(new Uint8Array([0x7b, 0xff, 0x7d])))) void _;
    }).rejects.toBeInstanceOf(InvalidUtf8);
  });
});
