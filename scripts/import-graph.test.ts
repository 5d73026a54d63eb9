import { readFileSync } from "node:fs";
import path from "node:path";
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

  it(
    "keeps app/ a leaf: nothing outside it imports from it, and its server actions live in lib/actions",
    { timeout: 60_000 },
    () => {
      const graph = appImportGraph();
      const intoApp = [...graph].flatMap(([file, deps]) =>
        file.startsWith("app/") ? [] : deps.filter((d) => d.startsWith("app/")).map((d) => `${file} -> ${d}`),
      );
      expect(intoApp).toEqual([]);
      const root = path.resolve(import.meta.dirname, "..");
      const serverActionModules = [...graph.keys()].filter((file) =>
        /^\s*["']use server["']/.test(readFileSync(path.join(root, file), "utf8")),
      );
      expect(serverActionModules.filter((file) => !file.startsWith("lib/actions/"))).toEqual([]);
      expect(serverActionModules.length).toBeGreaterThan(10);
    },
  );
});
