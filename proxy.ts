import { NextResponse, type NextRequest } from "next/server";
import { errorBody, type AppErrorCode } from "@/lib/errors";
import { PATH_HEADER } from "@/lib/http/detail-routes";
import { checkHost } from "@/lib/http/host";
import { METHODS } from "@/lib/http/methods";

/**
 * Runs before every request (Node runtime). Refuses what no route should
 * see: a Host this server does not answer to (DNS rebinding), a method no
 * route has (TRACE and friends used to reach Next and get a 500), and a
 * path that is not valid percent-encoding (`%ff` used to give a 500 on 14
 * routes). Authentication gating can sit beside the host check here.
 */

function refuse(status: number, code: AppErrorCode, message: string, headers: Record<string, string> = {}) {
  return NextResponse.json(errorBody(code, message), { status, headers });
}

export function proxy(request: NextRequest) {
  const host = checkHost(request.headers);
  if (!host.ok) return refuse(403, "forbidden", host.reason);
  if (!METHODS.has(request.method)) {
    return refuse(405, "method_not_allowed", `The method ${request.method.slice(0, 20)} is not supported.`, {
      allow: [...METHODS].join(", "),
    });
  }
  const path = request.nextUrl.pathname;
  try {
    decodeURIComponent(path);
  } catch {
    return refuse(400, "invalid_input", "The path has a malformed percent-escape (such as %ff); encode it as UTF-8.");
  }
  // The dashboard layout reads the path to answer an unknown id with a real 404 (lib/http/detail-routes.ts).
  const headers = new Headers(request.headers);
  headers.set(PATH_HEADER, path);
  return NextResponse.next({ request: { headers } });
}
