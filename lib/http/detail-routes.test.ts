import { describe, expect, it } from "vitest";
import { detailRouteOf } from "./detail-routes";

describe("detail pages and the record each shows", () => {
  it.each([
    ["/sessions/abc", { kind: "session", id: "abc" }],
    ["/sessions/abc/replay", { kind: "session", id: "abc" }],
    ["/sessions/abc/investigate", { kind: "session", id: "abc" }],
    ["/investigations/i1", { kind: "investigation", id: "i1" }],
    ["/replays/r1", { kind: "replay", id: "r1" }],
    ["/replays/r1/compare", { kind: "replay", id: "r1" }],
    ["/policies/p1/versions", { kind: "policy", id: "p1" }],
    ["/reports/x/edit", { kind: "report", id: "x" }],
    ["/experiments/e1", { kind: "experiment", id: "e1" }],
    ["/trials/t1/", { kind: "trials", id: "t1" }],
    ["/checks/c1", { kind: "check", id: "c1" }],
    ["/datasets/d1", { kind: "dataset", id: "d1" }],
    ["/sessions/does%20not%20exist", { kind: "session", id: "does not exist" }],
    ["/sessions/a1/compare/b%202", { kind: "session", id: "a1", also: "b 2" }],
  ])("%s shows one record", (path, expected) => {
    expect(detailRouteOf(path)).toEqual(expected);
  });

  it.each([
    "/",
    "/sessions",
    "/checks",
    "/datasets",
    "/sessions/",
    "/reports/new",
    "/experiments/new",
    "/failures/watches",
    "/sessions/abc/other",
    "/api/v1/sessions/abc",
    "/settings/executors",
    "/share/token",
    "/sessions/%ff",
    "/sessions/a1/compare",
    "/sessions/a1/compare/%ff",
  ])("%s is not a detail page", (path) => {
    expect(detailRouteOf(path)).toBeNull();
  });
});
