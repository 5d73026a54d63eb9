import { describe, expect, it } from "vitest";
import { memberWorkPager } from "./member-work-pages";

describe("memberWorkPager", () => {
  it("says nothing when every row is on the first page", () => {
    expect(memberWorkPager("Reports", { page: 1, pageSize: 50, shown: 50, total: 50 })).toBeNull();
  });
  it("names the rows shown of how many, with the pages either side", () => {
    expect(memberWorkPager("Blame searches", { page: 1, pageSize: 50, shown: 50, total: 123 })).toEqual({
      text: "Blame searches 1–50 of 123",
      newer: null,
      older: 2,
    });
    expect(memberWorkPager("Blame searches", { page: 3, pageSize: 50, shown: 23, total: 123 })).toEqual({
      text: "Blame searches 101–123 of 123",
      newer: 2,
      older: null,
    });
  });
  it("a page past the end of a list says so and links back to its last page", () => {
    expect(memberWorkPager("Reports", { page: 4, pageSize: 50, shown: 0, total: 73 })).toEqual({
      text: "No reports on this page; 73 in all",
      newer: 2,
      older: null,
    });
  });
});
