import { describe, expect, it } from "vitest";
import { firstJsonProblem, readEditedJson } from "./edited-json";

describe("JSON typed into the playground's editors", () => {
  it("reads valid JSON as JSON.parse does", () => {
    for (const text of [
      '[{"role":"user","content":"hi"}]',
      " {} ",
      "[]",
      '"x"',
      "-1.5e3",
      "null",
      '{"a":[1,{"b":[]}]}',
    ])
      expect(readEditedJson(text, "Messages")).toEqual({ ok: true, value: JSON.parse(text) as unknown });
    expect(firstJsonProblem('{"a": "\\u00e9\\n", "b": [true, false, null]}')).toBeNull();
  });

  it("names the line and column of the first problem, with what was expected there", () => {
    expect(readEditedJson('[\n  {"role": "user",}\n]', "Messages")).toEqual({
      ok: false,
      line: 2,
      column: 19,
      message: 'Messages: not valid JSON at line 2, column 19: expected a property name in double quotes, found "}".',
    });
    expect(readEditedJson('[{"a" 1}]', "Tools")).toMatchObject({
      line: 1,
      column: 7,
      message: 'Tools: not valid JSON at line 1, column 7: expected ":" after the property name, found "1".',
    });
    expect(readEditedJson("[1, 2", "Messages")).toMatchObject({
      line: 1,
      column: 6,
      message: 'Messages: not valid JSON at line 1, column 6: expected "," or "]", found the end of the text.',
    });
    expect(readEditedJson("[1] x", "Messages")).toMatchObject({ column: 5 });
    expect(readEditedJson('["a\nb"]', "Messages")).toMatchObject({ line: 1, column: 4 });
    expect(readEditedJson('["\\q"]', "Messages")).toMatchObject({ column: 3 });
    expect(readEditedJson("[tru]", "Messages")).toMatchObject({ column: 2 });
    expect(readEditedJson('["open', "Messages")).toMatchObject({ column: 2 });
    expect(readEditedJson("", "Messages")).toMatchObject({ line: 1, column: 1 });
  });

  it("refuses nesting past the limit without overflowing, and deep text does not recurse", () => {
    const deep = `${"[".repeat(100_000)}${"]".repeat(100_000)}`;
    expect(readEditedJson(deep, "Tools")).toMatchObject({ ok: false, line: 1, column: 513 });
    expect(firstJsonProblem(deep)).toBeNull();
    expect(firstJsonProblem(`${"[".repeat(100_000)}`)).toEqual({
      offset: 100_000,
      message: "expected a value, found the end of the text",
    });
  });

  it("keeps a __proto__ key as an own property and touches no prototype", () => {
    const read = readEditedJson('{"__proto__": {"polluted": true}}', "Messages");
    expect(read.ok).toBe(true);
    expect(Object.keys((read as { value: object }).value)).toEqual(["__proto__"]);
    expect(({} as { polluted?: boolean }).polluted).toBeUndefined();
  });
});
