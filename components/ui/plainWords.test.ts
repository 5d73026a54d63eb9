import { readFileSync, readdirSync, statSync } from "node:fs";
import path from "node:path";
import ts from "typescript";
import { describe, expect, it } from "vitest";

/**
 * Words users read never cite the spec: no "DESIGN §3", no "seed 000" or
 * "seed-003 shape" (formats are named by what they are), and "Kitaru" only as
 * the name of the `--tool-policy` export format. Comments say the reason in
 * words too, but that is kept by review: this reads the code's strings and
 * JSX text, not its comments. A string
 * without a space (an identifier such as the form key "seed-000") is not prose
 * and is skipped.
 */
const ROOT = path.resolve(import.meta.dirname, "../..");
const FOLDERS = ["app", "components", "lib", "prisma/seed"];
const SKIP = /(\.test\.tsx?|\.d\.ts)$|\/generated\//;

const FORBIDDEN: { name: string; test: (text: string) => boolean }[] = [
  { name: "cites DESIGN §", test: (t) => /DESIGN\s*§/i.test(t) },
  { name: "cites a seed by number", test: (t) => /\bseed[\s-]?0\d*/i.test(t) },
  { name: "names Kitaru outside the --tool-policy format", test: (t) => /kitaru/i.test(t) && !/--tool-policy/.test(t) },
];

function sourceFiles(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir)) {
    const full = path.join(dir, name);
    if (statSync(full).isDirectory()) out.push(...sourceFiles(full));
    else if (/\.(ts|tsx)$/.test(name) && !SKIP.test(full)) out.push(full);
  }
  return out;
}

/** Every string literal, template piece and JSX text in a file, with its line. */
export function shownStrings(file: string, text: string): { line: number; text: string }[] {
  const source = ts.createSourceFile(
    file,
    text,
    ts.ScriptTarget.Latest,
    false,
    file.endsWith("x") ? ts.ScriptKind.TSX : ts.ScriptKind.TS,
  );
  const found: { line: number; text: string }[] = [];
  const add = (node: ts.Node, value: string) => {
    const prose = value.replace(/\s+/g, " ").trim();
    if (prose.includes(" "))
      found.push({ line: source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1, text: prose });
  };
  const visit = (node: ts.Node) => {
    if (ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) return;
    if (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node)) add(node, node.text);
    else if (ts.isTemplateExpression(node))
      add(node, [node.head.text, ...node.templateSpans.map((s) => s.literal.text)].join(" … "));
    else if (ts.isJsxText(node)) add(node, node.text);
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

describe("words users read", () => {
  it("finds strings and JSX text but not comments (the scanner itself)", () => {
    const sample = `// DESIGN §3 in a comment\nconst a = "see seed 000 here";\nconst b = <p>DESIGN §8 says</p>;\nconst c = "seed-000";`;
    const texts = shownStrings("x.tsx", sample).map((s) => s.text);
    expect(texts).toEqual(["see seed 000 here", "DESIGN §8 says"]);
  });

  // Parsing ~240 files takes seconds on a loaded machine.
  it("never cite the spec or name Kitaru except as the --tool-policy format", { timeout: 120_000 }, () => {
    const offending: string[] = [];
    for (const folder of FOLDERS) {
      for (const file of sourceFiles(path.join(ROOT, folder))) {
        for (const s of shownStrings(file, readFileSync(file, "utf8"))) {
          for (const rule of FORBIDDEN) {
            if (rule.test(s.text))
              offending.push(`${path.relative(ROOT, file)}:${s.line} ${rule.name}: ${s.text.slice(0, 120)}`);
          }
        }
      }
    }
    expect(offending).toEqual([]);
  });
});
