import { describe, expect, it } from "vitest";
import { allImports, appImportGraph, cycles, runtimeImports } from "./import-graph";

describe("the import graph", () => {
  it("finds a cycle, and ignores type-only imports", () => {
    expect(
      cycles(
        new Map([
          ["a.ts", ["b.ts"]],
          ["b.ts", ["c.ts"]],
          ["c.ts", ["a.ts"]],
          ["d.ts", ["a.ts"]],
        ]),
      ),
    ).toEqual([["a.ts", "b.ts", "c.ts"]]);
    expect(
      runtimeImports(
        "x.ts",
        'import type { A } from "./a"; import { type B } from "./b"; import { c } from "./c"; export * from "./d"; const e = () => import("./e");',
      ),
    ).toEqual(["./c", "./d", "./e"]);
    expect(
      allImports("x.ts", 'import type { A } from "./a"; export type { B } from "./b"; import { c } from "./c";'),
    ).toEqual(["./a", "./b", "./c"]);
  });

  it("has no cycles among the app's modules", { timeout: 60_000 }, () => {
    const graph = appImportGraph();
    expect(graph.size).toBeGreaterThan(100);
    expect(cycles(graph)).toEqual([]);
  });

  it("has no cycles among the app's modules counting type-only imports", { timeout: 60_000 }, () => {
    expect(cycles(appImportGraph({ withTypes: true }))).toEqual([]);
  });
});
