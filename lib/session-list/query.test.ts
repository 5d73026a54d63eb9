import { describe, expect, it } from "vitest";
import { SESSION_FILTERS, SessionListQuery, hasFilters, parseListUrl } from "./query";

describe("the session list's query", () => {
  it("parses every filter, an empty one as none, and a day as its midnight UTC", () => {
    expect(
      SessionListQuery.parse({
        status: "",
        hasErrors: "false",
        minCostUsd: "0.25",
        maxTokens: "900",
        from: "2026-03-01",
        to: "2026-03-01T10:00:00+02:00",
        sort: "-steps",
      }),
    ).toEqual({
      limit: 50,
      hasErrors: false,
      minCostUsd: 0.25,
      maxTokens: 900,
      from: new Date("2026-03-01T00:00:00Z"),
      to: new Date("2026-03-01T08:00:00Z"),
      sort: "-steps",
    });
    expect(hasFilters(SessionListQuery.parse({ sort: "costUsd" }))).toBe(false);
    expect(hasFilters(SessionListQuery.parse({ minErrors: "0" }))).toBe(true);
  });

  it("a page's link keeps what parses and says what it left out", () => {
    expect(parseListUrl({ status: "failed", minCostUsd: "lots", sort: "price", extra: "x", q: "" })).toEqual({
      query: { limit: 50, status: "failed" },
      kept: { status: "failed" },
      ignored: [
        {
          path: "sort",
          message:
            "sort must be one of createdAt, startedAt, costUsd, durationMs, errorCount, steps, each with a leading - for descending.",
        },
        { path: "minCostUsd", message: "minCostUsd must be a number." },
      ],
    });
    // A range whose ends cross: the upper end is left out.
    expect(parseListUrl({ minTokens: "10", maxTokens: "5" }).query).toEqual({ limit: 50, minTokens: 10 });
  });

  it("every filter names a column and an operation lib/db knows", () => {
    for (const [name, f] of Object.entries(SESSION_FILTERS)) {
      expect([name, typeof f.on, ["eq", "has", "contains", "gte", "lte", "lt", "nonzero"].includes(f.op)]).toEqual([
        name,
        "string",
        true,
      ]);
    }
  });
});
