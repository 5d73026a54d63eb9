import { describe, expect, it } from "vitest";
import { passRate } from "@/lib/clusters/stats";
import { rateRow, rateRows } from "./regression-rows";

describe("regression chart rows", () => {
  it("gives percent, the interval's ends and their distances (8 of 10: 80%, 49.0–94.3%)", () => {
    expect(rateRow("1.0", passRate(8, 10))).toEqual({
      name: "1.0",
      rate: 80,
      interval: [31, 14.3],
      low: 49,
      high: 94.3,
      passed: 8,
      total: 10,
    });
  });

  it("leaves out a version without sessions", () => {
    expect(
      rateRows(
        [
          { ...passRate(0, 0), v: "a" },
          { ...passRate(1, 2), v: "b" },
        ],
        (x) => x.v,
      ).map((r) => r.name),
    ).toEqual(["b"]);
  });
});
