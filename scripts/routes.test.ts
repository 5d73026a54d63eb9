import { describe, expect, it } from "vitest";
import { readFileSync } from "node:fs";
import { BETTER_AUTH_ROUTE, repositoryRouteViolations, routeFiles, routeViolations } from "./routes";

describe("one route wrapper", () => {
  it("refuses a handler built another way, and a try/catch of a route's own", () => {
    const text = [
      'import { apiRoute } from "@/lib/http/api";',
      'import { route as wrap } from "@/lib/http/route";',
      "export const dynamic = 'force-dynamic';",
      "export const GET = apiRoute(async () => Response.json({}));",
      "export async function POST(request: Request) {",
      "  try { return Response.json({}); } catch { return new Response(null, { status: 500 }); }",
      "}",
      "export const PUT = handle;",
      'export const DELETE = wrap({ accept: ["api_key"] }, async () => Response.json({}));',
      'export { handle as PATCH } from "./handle";',
    ].join("\n");
    expect(routeViolations("app/api/v1/x/route.ts", text)).toEqual([
      "app/api/v1/x/route.ts:4: GET is not built by route(…) or publicRoute(…) from @/lib/http/route",
      "app/api/v1/x/route.ts:5: exports the function POST: export route(…) or publicRoute(…)",
      "app/api/v1/x/route.ts:8: PUT is not built by route(…) or publicRoute(…) from @/lib/http/route",
      "app/api/v1/x/route.ts:10: re-exports a handler: build it here with route(…) or publicRoute(…)",
      "app/api/v1/x/route.ts:6: has its own try/catch: the route wrapper answers failures",
    ]);
    expect(routeViolations("app/x/route.ts", "export const dynamic = 'force-dynamic';")).toEqual([
      "app/x/route.ts: exports no handler (GET, POST, …)",
    ]);
  });

  it("lets route(…) and publicRoute(…) through", () => {
    const text = [
      'import { publicRoute, route } from "@/lib/http/route";',
      "export const dynamic = 'force-dynamic';",
      'export const GET = route<{ id: string }>({ accept: ["session"] }, async () => Response.json({}));',
      "export const HEAD = publicRoute(() => new Response(null));",
    ].join("\n");
    expect(routeViolations("app/api/x/route.ts", text)).toEqual([]);
  });

  it("holds for every route file but Better Auth's own", { timeout: 60_000 }, () => {
    const files = routeFiles();
    expect(files).toContain(BETTER_AUTH_ROUTE);
    expect(files.length).toBeGreaterThan(50);
    expect(repositoryRouteViolations()).toEqual([]);
  });
});

describe("routes outside the proxy", () => {
  it("check the Host themselves: every handler of a path proxy.ts leaves out sets outsideProxy", () => {
    const proxy = readFileSync("proxy.ts", "utf8");
    const lookahead = /matcher: \["\/\(\(\?!([^)]*)\)\.\*\)"\]/.exec(proxy)?.[1];
    expect(lookahead, "proxy.ts has a matcher of the form /((?!a$|b$).*)").toBeDefined();
    const paths = lookahead!.split("|").map((p) => p.replace(/\$$/, ""));
    expect(paths).toEqual(["api/import", "api/v1/sessions"]);
    for (const p of paths) {
      const text = readFileSync(`app/${p}/route.ts`, "utf8");
      const handlers = [
        ...text.matchAll(/export const (GET|POST|PUT|PATCH|DELETE|HEAD|OPTIONS) = route\(\s*(\{[^}]*\})/g),
      ];
      expect(handlers.length, p).toBeGreaterThan(0);
      for (const [, method, options] of handlers) expect(options, `${p} ${method}`).toContain("outsideProxy: true");
    }
  });
});
