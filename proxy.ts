import { getSessionCookie } from "better-auth/cookies";
import { NextResponse, type NextRequest } from "next/server";
import { errorBody, type AppErrorCode } from "@/lib/errors";
import { PATH_HEADER } from "@/lib/http/detail-routes";
import { checkHost } from "@/lib/http/host";
import { METHODS } from "@/lib/http/methods";
import { isAllowedOrigin } from "@/lib/http/origins";

/**
 * Runs before every request (Node runtime). Refuses what no route should
 * see: a Host this server does not answer to (DNS rebinding), a method no
 * route has (TRACE and friends used to reach Next and get a 500), and a
 * path that is not valid percent-encoding (`%ff` used to give a 500 on 14
 * routes), and a server action posted from a page of another origin (Next
 * refuses those too, but with a 500).
 *
 * Then the door: nothing in the dashboard or the API is reachable without an
 * account or a key, except share links, the health check and the sign-in
 * routes. This is the quick check (is there a session cookie or a key at
 * all?); the pages, actions and API routes then check the session or key
 * itself, and the role, against the database on every request.
 */

const PUBLIC_PAGES = ["/sign-in", "/setup", "/invite/", "/share/"];
const PUBLIC_API = ["/api/auth/", "/api/health"];
/** Next's own assets and the favicon: no data behind them. */
const ASSETS = ["/_next/", "/favicon.ico", "/icon.svg"];

function refuse(status: number, code: AppErrorCode, message: string, headers: Record<string, string> = {}) {
  return NextResponse.json(errorBody(code, message), { status, headers });
}

function startsWithAny(path: string, prefixes: readonly string[]): boolean {
  return prefixes.some((p) => (p.endsWith("/") ? path.startsWith(p) : path === p || path.startsWith(`${p}/`)));
}

function hasKey(request: NextRequest): boolean {
  const h = request.headers;
  return Boolean(h.get("authorization") || h.get("x-api-key") || h.get("api-key") || h.get("x-branchpoint-api-key"));
}

export function proxy(request: NextRequest) {
  const host = checkHost(request.headers);
  if (!host.ok) return refuse(403, "forbidden", host.reason);
  if (!METHODS.has(request.method)) {
    return refuse(405, "method_not_allowed", `The method ${request.method.slice(0, 20)} is not supported.`, {
      allow: [...METHODS].join(", "),
    });
  }
  // Server actions change state with the session cookie, which a page of another port on this machine (same
  // site) also gets sent: only the origins the sign-in routes trust may post them. A request without Origin is
  // not from a browser page (browsers send Origin on every POST).
  const origin = request.headers.get("origin");
  if (request.method === "POST" && request.headers.has("next-action") && origin !== null && !isAllowedOrigin(origin)) {
    return refuse(
      403,
      "forbidden",
      `Actions are accepted only from this dashboard's own pages, not from ${origin.slice(0, 100)}.`,
    );
  }
  const path = request.nextUrl.pathname;
  try {
    decodeURIComponent(path);
  } catch {
    return refuse(400, "invalid_input", "The path has a malformed percent-escape (such as %ff); encode it as UTF-8.");
  }

  if (startsWithAny(path, ASSETS) || startsWithAny(path, PUBLIC_PAGES) || startsWithAny(path, PUBLIC_API)) {
    return pass(request, path);
  }
  const isApi = path.startsWith("/api/") || path.startsWith("/v1/");
  if (isApi) {
    // Keys are checked by the route itself (fails closed); the dashboard's own endpoints need the session.
    if (hasKey(request) || getSessionCookie(request)) return pass(request, path);
    return refuse(401, "unauthorized", "Sign in, or send an API key as 'Authorization: Bearer <key>'.");
  }
  if (getSessionCookie(request)) return pass(request, path);
  const signIn = new URL("/sign-in", request.url);
  if (path !== "/") signIn.searchParams.set("next", `${path}${request.nextUrl.search}`);
  return NextResponse.redirect(signIn);
}

/** On to the route. The dashboard layout reads the path to answer an unknown id with a real 404 (lib/http/detail-routes.ts). */
function pass(request: NextRequest, path: string) {
  const headers = new Headers(request.headers);
  headers.set(PATH_HEADER, path);
  return NextResponse.next({ request: { headers } });
}

/**
 * Every path but the two that take imported files. For a request it runs on, Next keeps a copy of the body in
 * memory (at most proxyClientMaxBodySize, cutting the rest off), and the route gets the body only once all of it
 * has arrived: a file read as a stream would be held whole, or cut. Those two routes check what this proxy would
 * for them: the Host (route()'s `outsideProxy`), the key or session and the role (as every route does); their
 * paths are exact, so no malformed escape reaches them, and Next answers 405 to a method they do not have.
 */
export const config = {
  matcher: ["/((?!api/import$|api/v1/sessions$).*)"],
};
