import { getSessionCookie } from "better-auth/cookies";
import { NextResponse, type NextRequest } from "next/server";

/**
 * The door: nothing in the dashboard or the API is reachable without an
 * account or a key, except share links, the health check and the sign-in
 * routes. This is the quick check (is there a session cookie or a key at
 * all?); the pages, actions and API routes then check the session or key
 * itself, and the role, against the database on every request.
 */
const PUBLIC_PAGES = ["/sign-in", "/setup", "/invite/", "/share/"];
const PUBLIC_API = ["/api/auth/", "/api/health"];

function startsWithAny(path: string, prefixes: readonly string[]): boolean {
  return prefixes.some((p) => (p.endsWith("/") ? path.startsWith(p) : path === p || path.startsWith(`${p}/`)));
}

function hasKey(request: NextRequest): boolean {
  const h = request.headers;
  return Boolean(h.get("authorization") || h.get("x-api-key") || h.get("api-key") || h.get("x-branchpoint-api-key"));
}

export function proxy(request: NextRequest) {
  const path = request.nextUrl.pathname;
  if (startsWithAny(path, PUBLIC_PAGES) || startsWithAny(path, PUBLIC_API)) return NextResponse.next();
  const isApi = path.startsWith("/api/") || path === "/v1/traces" || path.startsWith("/v1/");
  if (isApi) {
    // Keys are checked by the route itself (fails closed); the dashboard's own endpoints need the session.
    if (hasKey(request) || getSessionCookie(request)) return NextResponse.next();
    return NextResponse.json(
      {
        error: {
          code: "unauthorized",
          message: "Sign in, or send an API key as 'Authorization: Bearer <key>'.",
          issues: [],
        },
      },
      { status: 401 },
    );
  }
  if (getSessionCookie(request)) return NextResponse.next();
  const signIn = new URL("/sign-in", request.url);
  if (path !== "/") signIn.searchParams.set("next", `${path}${request.nextUrl.search}`);
  return NextResponse.redirect(signIn);
}

export const config = {
  // Everything but Next's own assets and the favicon.
  matcher: ["/((?!_next/static|_next/image|favicon.ico).*)"],
};
