/**
 * The app's import graph, and its cycles: of runtime imports (`import type`
 * and type-only specifiers do not count, dynamic `import()` does), and of
 * every import, types included. The boundary test
 * (scripts/import-graph.test.ts) fails on any cycle of either.
 */
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import ts from "typescript";

const ROOT = path.resolve(import.meta.dirname, "..");
const SOURCE_DIRS = ["app", "components", "lib", "instrumentation.ts"];
const SKIP = /(^|\/)(node_modules|generated|__fixtures__)(\/|$)|\.test\.tsx?$/;

function sourceFiles(dir: string): string[] {
  const full = path.join(ROOT, dir);
  if (!existsSync(full)) return [];
  if (statSync(full).isFile()) return [dir];
  const out: string[] = [];
  for (const name of readdirSync(full)) {
    const rel = path.join(dir, name);
    if (SKIP.test(rel)) continue;
    if (statSync(path.join(ROOT, rel)).isDirectory()) out.push(...sourceFiles(rel));
    else if (/\.tsx?$/.test(name) && !name.endsWith(".d.ts")) out.push(rel);
  }
  return out;
}

function resolve(from: string, spec: string): string | null {
  let base: string;
  if (spec.startsWith("@/")) base = spec.slice(2);
  else if (spec.startsWith(".")) base = path.join(path.dirname(from), spec);
  else return null;
  for (const candidate of [base, `${base}.ts`, `${base}.tsx`, `${base}/index.ts`, `${base}/index.tsx`]) {
    const full = path.join(ROOT, candidate);
    if (existsSync(full) && statSync(full).isFile()) return path.normalize(candidate);
  }
  return null;
}

/** The runtime imports of one file's text. */
export function runtimeImports(fileName: string, text: string): string[] {
  return imports(fileName, text, false);
}

/** Every import of one file's text, type-only ones included. */
export function allImports(fileName: string, text: string): string[] {
  return imports(fileName, text, true);
}

function imports(fileName: string, text: string, withTypes: boolean): string[] {
  const source = ts.createSourceFile(fileName, text, ts.ScriptTarget.Latest, false, ts.ScriptKind.TSX);
  const specs: string[] = [];
  const visit = (node: ts.Node) => {
    if (ts.isImportDeclaration(node) && ts.isStringLiteral(node.moduleSpecifier)) {
      const clause = node.importClause;
      const typeOnly =
        clause !== undefined &&
        (clause.isTypeOnly ||
          (clause.name === undefined &&
            clause.namedBindings !== undefined &&
            ts.isNamedImports(clause.namedBindings) &&
            clause.namedBindings.elements.length > 0 &&
            clause.namedBindings.elements.every((e) => e.isTypeOnly)));
      if (withTypes || !typeOnly) specs.push(node.moduleSpecifier.text);
    } else if (ts.isExportDeclaration(node) && node.moduleSpecifier && ts.isStringLiteral(node.moduleSpecifier)) {
      if (withTypes || !node.isTypeOnly) specs.push(node.moduleSpecifier.text);
    } else if (
      ts.isCallExpression(node) &&
      node.expression.kind === ts.SyntaxKind.ImportKeyword &&
      node.arguments[0] &&
      ts.isStringLiteral(node.arguments[0])
    ) {
      specs.push(node.arguments[0].text);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return specs;
}

export type Graph = Map<string, string[]>;

/** The app's import graph: runtime imports only, or (`withTypes`) type-only imports too. */
export function appImportGraph({ withTypes = false } = {}): Graph {
  const graph: Graph = new Map();
  for (const file of SOURCE_DIRS.flatMap(sourceFiles)) {
    const text = readFileSync(path.join(ROOT, file), "utf8");
    const edges = imports(file, text, withTypes)
      .map((spec) => resolve(file, spec))
      .filter((t): t is string => t !== null && t !== file);
    graph.set(file, [...new Set(edges)]);
  }
  return graph;
}

/** Every cycle's files (one entry per strongly connected component with more than one file), by Tarjan's algorithm. */
export function cycles(graph: Graph): string[][] {
  let index = 0;
  const indices = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const out: string[][] = [];
  const strong = (v: string) => {
    indices.set(v, index);
    low.set(v, index);
    index += 1;
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!indices.has(w)) {
        strong(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) {
        low.set(v, Math.min(low.get(v)!, indices.get(w)!));
      }
    }
    if (low.get(v) === indices.get(v)) {
      const component: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        onStack.delete(w);
        component.push(w);
      } while (w !== v);
      if (component.length > 1) out.push(component.sort());
    }
  };
  for (const v of graph.keys()) if (!indices.has(v)) strong(v);
  return out;
}
