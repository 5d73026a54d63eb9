import { describe, expect, it } from "vitest";
import { DEFAULT_COLUMNS, SESSION_COLUMN_IDS, ariaSort, parseColumns, sortHref } from "./columns";

describe("the session list's columns", () => {
  it("reads a stored choice in the table's order, and anything unreadable as the usual columns", () => {
    expect(parseColumns(JSON.stringify(["cost", "agent", "nope"]))).toEqual(["agent", "cost"]);
    expect(parseColumns(JSON.stringify([]))).toEqual([]);
    expect(parseColumns(null)).toEqual(DEFAULT_COLUMNS);
    expect(parseColumns("{not json")).toEqual(DEFAULT_COLUMNS);
    expect(parseColumns(JSON.stringify({ cost: true }))).toEqual(DEFAULT_COLUMNS);
    // Cost and Imported are among the usual ones; tool calls are under the title already.
    expect(DEFAULT_COLUMNS).toEqual(SESSION_COLUMN_IDS.filter((id) => id !== "toolCalls"));
    expect(DEFAULT_COLUMNS).toContain("cost");
    expect(DEFAULT_COLUMNS).toContain("imported");
  });

  it("says the order by each column, and its header turns the order round or starts with the largest", () => {
    expect(ariaSort("-costUsd", "costUsd")).toBe("descending");
    expect(ariaSort("costUsd", "costUsd")).toBe("ascending");
    expect(ariaSort("-costUsd", "steps")).toBe("none");
    const params = new URLSearchParams("status=failed&cursor=abc&sort=-costUsd");
    expect(sortHref(params, "-costUsd", "costUsd")).toBe("/sessions?status=failed&sort=costUsd");
    expect(sortHref(params, "costUsd", "costUsd")).toBe("/sessions?status=failed&sort=-costUsd");
    expect(sortHref(params, "-costUsd", "durationMs")).toBe("/sessions?status=failed&sort=-durationMs");
    // The page it was given is not changed.
    expect(params.get("cursor")).toBe("abc");
  });
});
