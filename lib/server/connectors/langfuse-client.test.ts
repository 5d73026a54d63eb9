import { describe, expect, it } from "vitest";
import { readJsonBody, retryAfterMs } from "./http";

describe("the Langfuse client's reading of answers", () => {
  it("reads Retry-After as seconds or as an HTTP date, and nothing else", () => {
    const now = Date.parse("2026-12-02T09:00:00Z");
    expect(retryAfterMs("2", now)).toBe(2000);
    expect(retryAfterMs(" 0.5 ", now)).toBe(500);
    expect(retryAfterMs(["3", "9"], now)).toBe(3000);
    expect(retryAfterMs("Wed, 02 Dec 2026 09:00:07 GMT", now)).toBe(7000);
    expect(retryAfterMs("Wed, 02 Dec 2026 08:59:00 GMT", now)).toBe(0);
    expect([retryAfterMs(undefined, now), retryAfterMs("", now), retryAfterMs("soon", now)]).toEqual([
      null,
      null,
      null,
    ]);
  });

  it("refuses a body it cannot hold, saying why, and keeps a __proto__ member as data", () => {
    expect(readJsonBody("<html>bad gateway</html>")).toEqual({ ok: false, message: "the answer is not JSON" });
    expect(readJsonBody(`{"a":${"[".repeat(600)}${"]".repeat(600)}}`)).toEqual({
      ok: false,
      message: "the JSON nests objects and arrays more than 512 levels deep (at line 1, column 517); the limit is 512",
    });
    expect(readJsonBody(`{"n":1e400}`)).toEqual({
      ok: false,
      message: "at line 1, column 6: the number 1e400 is too large to store (the largest is about 1.8e308)",
    });
    const read = readJsonBody('{"__proto__":{"x":1},"id":"t"}');
    expect(read.ok && Object.keys(read.value as object)).toEqual(["__proto__", "id"]);
    expect(({} as { x?: number }).x).toBeUndefined();
  });
});
