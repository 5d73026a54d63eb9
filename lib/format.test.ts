import { describe, expect, it } from "vitest";
import { plural } from "./format";

describe("plural", () => {
  it("says a count with its noun, one or many", () => {
    expect(plural(1, "trial")).toBe("1 trial");
    expect(plural(6, "trial")).toBe("6 trials");
    expect(plural(0, "other call")).toBe("0 other calls");
    expect(plural(2, "finished branch", "finished branches")).toBe("2 finished branches");
    expect(plural(1, "finished branch", "finished branches")).toBe("1 finished branch");
  });
});
