import { describe, expect, it } from "vitest";
import { parseVolatilePath, staleDiff } from "./stale";

const order = { id: 7, status: "shipped", updated_at: "2026-11-01T10:00:00Z", items: [{ sku: "A", price: 5 }] };

describe("stale recordings", () => {
  it("an answer that changed in one field is stale at that field", () => {
    expect(staleDiff({ output: order, error: null }, { output: { ...order, status: "delivered" } })).toEqual({
      stale: true,
      paths: ["status"],
      ignored: [],
    });
  });

  it("a volatile field is ignored, and a volatile path covers what is under it", () => {
    const live = { ...order, updated_at: "2026-11-30T09:00:00Z", items: [{ sku: "A", price: 6 }] };
    const volatile = ["$.updated_at", "items[*].price"].map((p) => parseVolatilePath(p)!);
    expect(staleDiff({ output: order, error: null }, { output: live }, volatile)).toEqual({
      stale: false,
      paths: [],
      ignored: ["items[0].price", "updated_at"],
    });
    expect(staleDiff({ output: order, error: null }, { output: live }, [parseVolatilePath("$.items")!]).paths).toEqual([
      "updated_at",
    ]);
  });

  it("the same answer is fresh; an answer that now fails (or now succeeds) is stale", () => {
    expect(staleDiff({ output: order, error: null }, { output: structuredClone(order) }).stale).toBe(false);
    expect(staleDiff({ output: order, error: null }, { error: { type: "Timeout", message: "x" } })).toMatchObject({
      stale: true,
      paths: ["(the tool now fails)"],
    });
    expect(
      staleDiff(
        { output: null, error: { type: "NotFound", message: "no" } },
        { error: { type: "NotFound", message: "gone" } },
      ),
    ).toEqual({ stale: true, paths: ["error.message"], ignored: [] });
  });

  it.each([
    ["$.a.b", ["a", "b"]],
    ["a.b[2]", ["a", "b", 2]],
    ["$.items[*].price", ["items", "*", "price"]],
    ['$["odd key"].x', ["odd key", "x"]],
    ["*.updated_at", ["*", "updated_at"]],
  ])("volatile path %s", (raw, parsed) => {
    expect(parseVolatilePath(raw)).toEqual(parsed);
  });

  it.each(["", "$", "a..b", "a[", "a[x]"])("%j is not a path", (raw) => {
    expect(parseVolatilePath(raw)).toBeNull();
  });
});
