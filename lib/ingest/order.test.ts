import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { byCodePoint } from "./order";

/** The UTF-8 bytes' order, as the database's "C" collation sorts. */
function byBytes(a: string, b: string): number {
  return Buffer.compare(Buffer.from(a, "utf8"), Buffer.from(b, "utf8"));
}

describe("byCodePoint", () => {
  it("puts a character beyond U+FFFF after U+E000–U+FFFF, where the default sort puts it before", () => {
    const ids = ["trace_\u{1F600}", "trace_\uFF5E", "trace_a"];
    expect([...ids].sort()).toEqual(["trace_a", "trace_\u{1F600}", "trace_\uFF5E"]);
    expect([...ids].sort(byCodePoint)).toEqual(["trace_a", "trace_\uFF5E", "trace_\u{1F600}"]);
  });

  it("agrees with the order of the strings' UTF-8 bytes", () => {
    const text = fc.string({
      unit: fc.constantFrom("a", "\u00e9", "\uE000", "\uFF5E", "\uFFFF", "\u{10000}", "\u{1F600}", "\u{10FFFF}"),
    });
    fc.assert(
      fc.property(text, text, (a, b) => Math.sign(byCodePoint(a, b)) === Math.sign(byBytes(a, b))),
      { seed: 7, numRuns: 2000 },
    );
  });
});
