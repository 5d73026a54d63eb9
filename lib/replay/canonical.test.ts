import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { cacheKey, canonicalJson, contentHash } from "./canonical";
import { sameJson } from "./json";

describe("canonical JSON and cache keys (tool name + canonical JSON of the arguments, as Kitaru keys them)", () => {
  it("serializes per RFC 8785: sorted keys, no whitespace, shortest numbers", () => {
    expect(canonicalJson({ b: 1, a: [1e21, 0.1, "x"], c: { z: null, y: true } })).toBe(
      '{"a":[1e+21,0.1,"x"],"b":1,"c":{"y":true,"z":null}}',
    );
  });

  it("gives the same key whatever the key order of the arguments", () => {
    expect(cacheKey("t", { a: 1, b: { c: 2, d: 3 } })).toBe(cacheKey("t", { b: { d: 3, c: 2 }, a: 1 }));
  });

  it("gives different keys for different values, types and tool names", () => {
    const keys = new Set([
      cacheKey("t", { a: 1 }),
      cacheKey("t", { a: "1" }),
      cacheKey("t", { a: true }),
      cacheKey("t", { a: [1, 2] }),
      cacheKey("t", { a: [2, 1] }),
      cacheKey("u", { a: 1 }),
    ]);
    expect(keys.size).toBe(6);
  });

  it("has no key for arguments that are null, absent, NaN, Infinity or cyclic", () => {
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    expect(cacheKey("t", null)).toBeNull();
    expect(cacheKey("t", undefined)).toBeNull();
    expect(cacheKey("t", { a: Number.NaN })).toBeNull();
    expect(cacheKey("t", { a: Number.POSITIVE_INFINITY })).toBeNull();
    expect(cacheKey("t", cyclic)).toBeNull();
  });

  it("keys an empty object (no arguments given) like any other value", () => {
    expect(cacheKey("t", {})).toMatch(/^[0-9a-f]{64}$/);
  });

  it("hashes documents by content", () => {
    expect(contentHash({ x: 1, y: 2 })).toBe(contentHash({ y: 2, x: 1 }));
    expect(() => contentHash(Number.NaN)).toThrow();
  });
});

describe("the SHA-256 hasher", () => {
  it("is node:crypto on Node, and the pure-JS hasher gives the same digests (the browser's keys equal the server's)", async () => {
    const { pureSha256Hex, setSha256Hasher, sha256Hex, sha256HasherName } = await import("./canonical");
    const { createHash } = await import("node:crypto");
    expect(sha256HasherName()).toBe("node:crypto");
    const texts = ["", "abc", "é日本語🙂", "\u{10FFFF}", "x".repeat(100_000), '"get_order"\n{"id":1}'];
    for (const text of texts) {
      const expected = createHash("sha256").update(text, "utf8").digest("hex");
      expect(sha256Hex(text)).toBe(expected);
      expect(pureSha256Hex(text)).toBe(expected);
    }
    const key = cacheKey("get_order", { id: 1, note: "é" });
    setSha256Hasher(pureSha256Hex);
    try {
      expect(sha256HasherName()).toBe("pure-js");
      expect(cacheKey("get_order", { id: 1, note: "é" })).toBe(key);
    } finally {
      setSha256Hasher(null);
    }
    expect(sha256HasherName()).toBe("node:crypto");
    expect(sha256Hex("abc")).toBe("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  });

  it("sameJson holds only for values of the same canonical JSON, and for any JSON value and its copy", () => {
    const value = fc.jsonValue({ maxDepth: 3 });
    fc.assert(
      fc.property(value, value, (a, b) => {
        if (sameJson(a, b)) expect(canonicalJson(a)).toBe(canonicalJson(b));
        expect(sameJson(a, JSON.parse(JSON.stringify(a)) as unknown)).toBe(canonicalJson(a) !== undefined);
      }),
      { numRuns: 500 },
    );
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    expect(sameJson({ a: 1, b: undefined }, { a: 1 })).toBe(true);
    expect(sameJson([1, undefined], [1, null])).toBe(false);
    expect(sameJson(new Date(0), new Date(1))).toBe(false);
    expect(sameJson(NaN, NaN)).toBe(false);
    expect(sameJson(cyclic, { self: {} })).toBe(false);
  });
});
