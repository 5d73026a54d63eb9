/**
 * One way in, checked (scripts/routes.test.ts): every route.ts under app/
 * exports its handlers as `route(…)` or `publicRoute(…)` from lib/http/route,
 * which resolve who is acting, parse the input and answer failures in one
 * place, so no route file has a try/catch of its own. Better Auth's own
 * handler (app/api/auth/[...all]) is its library's, and is left out.
 */
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import ts from "typescript";

const ROOT = path.resolve(import.meta.dirname, "..");
export const BETTER_AUTH_ROUTE = "app/api/auth/[...all]/route.ts";
const METHODS = new Set(["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"]);
const WRAPPERS = new Set(["route", "publicRoute"]);
const WRAPPER_MODULES = new Set(["@/lib/http/route"]);

/** Every route.ts under app/, as paths from the repository's root. */
export function routeFiles(dir = "app"): string[] {
  const full = path.join(ROOT, dir);
  if (!existsSync(full)) return [];
  const out: string[] = [];
  for (const name of readdirSync(full).sort()) {
    const rel = path.join(dir, name);
    if (statSync(path.join(ROOT, rel)).isDirectory()) out.push(...routeFiles(rel));
    else if (name === "route.ts") out.push(rel);
  }
  return out;
}

/** What one route file does against the rule, as `file:line: what`. */
export function routeViolations(file: string, text: string): string[] {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
  const out: string[] = [];
  const at = (node: ts.Node, what: string) =>
    out.push(`${file}:${source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1}: ${what}`);
  const wrappers = new Set<string>();
  let handlers = 0;
  const exported = (node: ts.Node) =>
    ts.canHaveModifiers(node) && (ts.getModifiers(node) ?? []).some((m) => m.kind === ts.SyntaxKind.ExportKeyword);

  for (const statement of source.statements) {
    if (ts.isImportDeclaration(statement) && ts.isStringLiteral(statement.moduleSpecifier)) {
      const bindings = statement.importClause?.namedBindings;
      if (WRAPPER_MODULES.has(statement.moduleSpecifier.text) && bindings && ts.isNamedImports(bindings)) {
        for (const element of bindings.elements) {
          if (WRAPPERS.has((element.propertyName ?? element.name).text)) wrappers.add(element.name.text);
        }
      }
    }
  }
  for (const statement of source.statements) {
    if (ts.isFunctionDeclaration(statement) && exported(statement)) {
      at(statement, `exports the function ${statement.name?.text ?? "default"}: export route(…) or publicRoute(…)`);
      if (statement.name && METHODS.has(statement.name.text)) handlers++;
    } else if (ts.isExportDeclaration(statement) || ts.isExportAssignment(statement)) {
      at(statement, "re-exports a handler: build it here with route(…) or publicRoute(…)");
    } else if (ts.isVariableStatement(statement) && exported(statement)) {
      for (const declaration of statement.declarationList.declarations) {
        if (!ts.isIdentifier(declaration.name) || !METHODS.has(declaration.name.text)) continue;
        handlers++;
        const init = declaration.initializer;
        const callee = init && ts.isCallExpression(init) ? init.expression : undefined;
        if (!callee || !ts.isIdentifier(callee) || !wrappers.has(callee.text)) {
          at(declaration, `${declaration.name.text} is not built by route(…) or publicRoute(…) from @/lib/http/route`);
        }
      }
    }
  }
  if (handlers === 0) out.push(`${file}: exports no handler (GET, POST, …)`);
  const visit = (node: ts.Node) => {
    if (ts.isTryStatement(node)) at(node, "has its own try/catch: the route wrapper answers failures");
    ts.forEachChild(node, visit);
  };
  visit(source);
  return out;
}

/** Every violation in the repository's route files. */
export function repositoryRouteViolations(): string[] {
  return routeFiles()
    .filter((file) => file !== BETTER_AUTH_ROUTE)
    .flatMap((file) => routeViolations(file, readFileSync(path.join(ROOT, file), "utf8")));
}
