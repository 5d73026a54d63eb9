import { describe, expect, it } from "vitest";
import { excerpt } from "@/lib/executors/live";
import { JsonTooDeepError, jsonDepthExcess, parseJsonBounded, valueDepthExcess } from "./json";
import { repairLoneSurrogates, repairText } from "./text";

describe("JSON depth", () => {
  it("counts nesting outside strings only", () => {
    expect(jsonDepthExcess(`"${"[".repeat(1000)}"`, 5)).toBeNull();
    expect(jsonDepthExcess(`"\\"${"[".repeat(10)}"`, 5)).toBeNull();
    expect(jsonDepthExcess("[[[[[]]]]]", 5)).toBeNull();
    expect(jsonDepthExcess("[[[[[[]]]]]]", 5)).toEqual({ offset: 5, line: 1, column: 6 });
    expect(jsonDepthExcess('{"a":\n[{"b":[[]]}]}', 4)).toEqual({ offset: 13, line: 2, column: 8 });
  });

  it("refuses 100,000 levels before parsing, and accepts 512", () => {
    const deep = (n: number) => `${"[".repeat(n)}${"]".repeat(n)}`;
    expect(() => parseJsonBounded(deep(100_000))).toThrow(JsonTooDeepError);
    expect(() => parseJsonBounded(deep(100_000))).toThrow(/more than 512 levels/);
    expect(Array.isArray(parseJsonBounded(deep(512)))).toBe(true);
  });

  it("finds a too-deep built value without recursing", () => {
    let v: unknown = 1;
    for (let i = 0; i < 20_000; i++) v = { a: v };
    expect(valueDepthExcess(v)?.length).toBe(512);
    expect(valueDepthExcess({ a: [1, { b: 2 }] })).toBeNull();
  });
});

describe("lone surrogates", () => {
  it("replaces lone halves with U+FFFD and keeps pairs", () => {
    expect(repairText("a\ud83d\ude00b")).toEqual({ text: "a\ud83d\ude00b", replaced: 0 });
    expect(repairText("cut \ud83d")).toEqual({ text: "cut \uFFFD", replaced: 1 });
    expect(repairText("\ude00x\ud800")).toEqual({ text: "\uFFFDx\uFFFD", replaced: 2 });
  });

  it("repairs keys and nested strings, and returns the same value when clean", () => {
    const clean = { a: ["b", { c: 1 }] };
    expect(repairLoneSurrogates(clean).value).toBe(clean);
    const { value, replaced } = repairLoneSurrogates({ "k\udc00": ["\ud800"] });
    expect(replaced).toBe(2);
    expect(value).toEqual({ "k\uFFFD": ["\uFFFD"] });
  });

  it("tells a lone surrogate from text that only looks like its escape, a pair, or a value JSON cannot write", () => {
    // The text `\ud800` (a backslash, then letters) and a paired surrogate are clean: the same value comes back.
    const lookalike = { a: "\\ud800 and \\udfff", b: "\u{1F600}" };
    expect(repairLoneSurrogates(lookalike)).toEqual({ value: lookalike, replaced: 0 });
    expect(repairLoneSurrogates(lookalike).value).toBe(lookalike);
    // A value with a bigint cannot be serialized: it is walked, and its lone surrogate still repaired.
    const { value, replaced } = repairLoneSurrogates({ n: 1n, deep: [{ s: "x\udbff" }] });
    expect(replaced).toBe(1);
    expect(value).toEqual({ n: 1n, deep: [{ s: "x\uFFFD" }] });
  });
});

describe("endpoint error excerpts", () => {
  it("are short, single-line and without markup", () => {
    const body = `<html>\n<body>${"secret ".repeat(100)}</body></html>`;
    const out = excerpt(body);
    expect(out.length).toBeLessThanOrEqual(80 + 6);
    expect(out).not.toMatch(/[<>\n]/);
    expect(excerpt("")).toBe("");
  });
});
