/**
 * The one door for background work, checked (scripts/queue-door.test.ts):
 * - only lib/server (the operations that create work) and lib/jobs (the queue)
 *   put work on the queue: anywhere else, calling an `enqueue…` function,
 *   reading an `enqueueX` member (`queue.enqueueReplays`) or importing an
 *   `enqueue…` name from the app is refused. Routes and actions call the
 *   operation (startReplay, supplyFixture, retryReplay, …), which queues.
 *   A stream controller's own `controller.enqueue(chunk)` is not the queue.
 * - lib/jobs does not import lib/server, not even types: it is handed the job
 *   handlers when it starts (its tests may, to drive operations).
 */
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import ts from "typescript";

const ROOT = path.resolve(import.meta.dirname, "..");
const SOURCE = ["app", "components", "lib", "scripts", "bench", "e2e", "instrumentation.ts"];
const SKIP = /(^|\/)(node_modules|generated|__fixtures__)(\/|$)/;

function sourceFiles(entry: string): string[] {
  const full = path.join(ROOT, entry);
  if (!existsSync(full)) return [];
  if (statSync(full).isFile()) return [entry];
  const out: string[] = [];
  for (const name of readdirSync(full)) {
    const rel = path.join(entry, name);
    if (SKIP.test(rel)) continue;
    if (statSync(path.join(ROOT, rel)).isDirectory()) out.push(...sourceFiles(rel));
    else if (/\.tsx?$/.test(name) && !name.endsWith(".d.ts")) out.push(rel);
  }
  return out;
}

const mayEnqueue = (file: string) => file.startsWith("lib/server/") || file.startsWith("lib/jobs/");
const isTest = (file: string) => /\.test\.tsx?$/.test(file);

/** Whether an import specifier, seen from `file`, names lib/server. */
function namesServer(file: string, spec: string): boolean {
  if (spec === "@/lib/server" || spec.startsWith("@/lib/server/")) return true;
  if (!spec.startsWith(".")) return false;
  const target = path.normalize(path.join(path.dirname(file), spec));
  return target === path.join("lib", "server") || target.startsWith(path.join("lib", "server") + path.sep);
}

/** What one file does against the rule, as `file:line: what`. */
export function queueDoorViolations(file: string, text: string): string[] {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true, ts.ScriptKind.TSX);
  const out: string[] = [];
  const at = (node: ts.Node, what: string) =>
    out.push(`${file}:${source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1}: ${what}`);
  const jobsFile = file.startsWith("lib/jobs/") && !isTest(file);
  const checkEnqueue = !mayEnqueue(file);
  const visit = (node: ts.Node) => {
    let spec: string | null = null;
    if (ts.isImportDeclaration(node) && ts.isStringLiteral(node.moduleSpecifier)) spec = node.moduleSpecifier.text;
    else if (ts.isExportDeclaration(node) && node.moduleSpecifier && ts.isStringLiteral(node.moduleSpecifier))
      spec = node.moduleSpecifier.text;
    else if (
      ts.isCallExpression(node) &&
      node.expression.kind === ts.SyntaxKind.ImportKeyword &&
      node.arguments[0] &&
      ts.isStringLiteral(node.arguments[0])
    )
      spec = node.arguments[0].text;
    if (spec !== null && jobsFile && namesServer(file, spec))
      at(node, `lib/jobs imports ${spec}: the queue is handed its job handlers when it starts`);

    if (checkEnqueue) {
      if (ts.isImportSpecifier(node) && /^enqueue/i.test((node.propertyName ?? node.name).text)) {
        const decl = node.parent.parent.parent;
        const from =
          ts.isImportDeclaration(decl) && ts.isStringLiteral(decl.moduleSpecifier) ? decl.moduleSpecifier.text : "";
        if (from.startsWith("@/") || from.startsWith("."))
          at(node, `imports ${(node.propertyName ?? node.name).text}: call the operation, which queues its work`);
      }
      if (ts.isCallExpression(node) && ts.isIdentifier(node.expression) && /^enqueue/i.test(node.expression.text))
        at(node, `calls ${node.expression.text}(): call the operation, which queues its work`);
      if (ts.isPropertyAccessExpression(node) && /^enqueue[A-Z]/.test(node.name.text))
        at(node, `uses .${node.name.text}: call the operation, which queues its work`);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return out;
}

/** Every violation in the repository. */
export function repositoryQueueDoorViolations(): string[] {
  return SOURCE.flatMap(sourceFiles).flatMap((file) =>
    queueDoorViolations(file, readFileSync(path.join(ROOT, file), "utf8")),
  );
}
