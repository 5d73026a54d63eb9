/**
 * Size rules for hand-written code: no file over MAX_FILE_LINES lines and no
 * function over MAX_FUNCTION_LINES, so every file and function still fits in
 * a reader's head. Tests, generated code, fixtures and migrations aside.
 * scripts/structure.test.ts holds the tree to them.
 */
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import ts from "typescript";

export const MAX_FILE_LINES = 500;
export const MAX_FUNCTION_LINES = 150;

const ROOT = path.resolve(import.meta.dirname, "..");
const DIRS = ["app", "components", "lib", "scripts", "bench", "sdk", "e2e", "instrumentation.ts", "proxy.ts"];
const SKIP = /(^|\/)(node_modules|generated|__fixtures__|migrations)(\/|$)|\.(test|spec)\.tsx?$|\.d\.ts$/;

/** The hand-written source files (.ts, .tsx, .mjs), relative to the repository. */
export function handWrittenFiles(dirs: readonly string[] = DIRS): string[] {
  const out: string[] = [];
  const walk = (rel: string) => {
    const full = path.join(ROOT, rel);
    if (!existsSync(full) || SKIP.test(rel)) return;
    if (statSync(full).isDirectory()) for (const name of readdirSync(full)) walk(path.join(rel, name));
    else if (/\.(tsx?|mjs)$/.test(rel)) out.push(rel);
  };
  for (const d of dirs) walk(d);
  return out.sort();
}

export const lineCount = (text: string): number => text.split("\n").length - (text.endsWith("\n") ? 1 : 0);

/** Each function of a file's text longer than `max` lines: its name (or where it is) and its length. */
export function longFunctions(
  fileName: string,
  text: string,
  max = MAX_FUNCTION_LINES,
): { name: string; lines: number }[] {
  const kind = fileName.endsWith("x") ? ts.ScriptKind.TSX : ts.ScriptKind.TS;
  const source = ts.createSourceFile(fileName, text, ts.ScriptTarget.Latest, true, kind);
  const found: { name: string; lines: number }[] = [];
  const visit = (node: ts.Node) => {
    if (ts.isFunctionLike(node) && "body" in node && node.body) {
      const first = source.getLineAndCharacterOfPosition(node.getStart(source)).line;
      const last = source.getLineAndCharacterOfPosition(node.getEnd()).line;
      const lines = last - first + 1;
      if (lines > max) found.push({ name: `${functionName(node, source)} (line ${first + 1})`, lines });
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

function functionName(node: ts.Node, source: ts.SourceFile): string {
  const named = node as { name?: ts.Node };
  if (named.name) return named.name.getText(source);
  const parent = node.parent;
  if (parent && (ts.isVariableDeclaration(parent) || ts.isPropertyAssignment(parent)))
    return parent.name.getText(source);
  return "a function";
}

/** Every rule broken in the tree: `file: what`. */
export function sizeViolations(): string[] {
  const out: string[] = [];
  for (const file of handWrittenFiles()) {
    const text = readFileSync(path.join(ROOT, file), "utf8");
    const lines = lineCount(text);
    if (lines > MAX_FILE_LINES) out.push(`${file}: ${lines} lines`);
    for (const f of longFunctions(file, text)) out.push(`${file}: ${f.name} is ${f.lines} lines`);
  }
  return out;
}
