import { describe, expect, it } from "vitest";
import { scoreFilter } from "./score-filter";

describe("the pull form's score filter", () => {
  it("sends a number, true / false or text as typed, and nothing without a name", () => {
    expect([
      scoreFilter(" helpfulness ", ">=", " 0.8 "),
      scoreFilter("resolved", "=", "true"),
      scoreFilter("label", "!=", "spam"),
      scoreFilter("", ">", "1"),
    ]).toEqual([
      { score: { name: "helpfulness", op: ">=", value: 0.8 } },
      { score: { name: "resolved", op: "=", value: true } },
      { score: { name: "label", op: "!=", value: "spam" } },
      {},
    ]);
  });
});
