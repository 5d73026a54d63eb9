import { env } from "@/lib/env";

/**
 * The origins a browser may send state-changing requests from: the sign-in
 * routes (Better Auth's origin check) and server actions (proxy.ts) share this
 * one list. BRANCHPOINT_PUBLIC_URL's origin when it is set; otherwise the
 * address this server is served at on this machine (127.0.0.1, localhost and
 * [::1] on its own port). Never "any port": another local service's page is a
 * different origin but the same site, so the Lax session cookie goes along
 * with its requests.
 */
export function allowedOrigins(
  publicUrl: string | undefined = env().BRANCHPOINT_PUBLIC_URL,
  port: string = process.env.PORT ?? "3000",
): string[] {
  if (publicUrl) return [new URL(publicUrl).origin];
  return ["127.0.0.1", "localhost", "[::1]"].map((host) => new URL(`http://${host}:${port}`).origin);
}

/** Whether an Origin header names one of the allowed origins (compared as parsed origins, so case and default ports do not matter). */
export function isAllowedOrigin(origin: string, allowed: readonly string[] = allowedOrigins()): boolean {
  if (!URL.canParse(origin)) return false;
  const parsed = new URL(origin).origin;
  return parsed !== "null" && allowed.includes(parsed);
}

/**
 * The origin public URLs are built on (the agent endpoints a replay answers with): BRANCHPOINT_PUBLIC_URL's
 * origin when it is set, else the origin the request came to (its Host, as the host check let it in).
 */
export function publicOrigin(request: Request, publicUrl: string | undefined = env().BRANCHPOINT_PUBLIC_URL): string {
  if (publicUrl) return new URL(publicUrl).origin;
  const host = request.headers.get("host");
  const url = new URL(request.url);
  return host ? `${url.protocol}//${host}` : url.origin;
}

/** publicOrigin for a server action, which has the request's headers but not its URL (served over plain HTTP). */
export function publicOriginOfHeaders(
  headers: Headers,
  publicUrl: string | undefined = env().BRANCHPOINT_PUBLIC_URL,
): string {
  if (publicUrl) return new URL(publicUrl).origin;
  // Actions are refused unless they come from the served origin (proxy.ts), so this Host is the served one.
  return `http://${headers.get("host") ?? "127.0.0.1"}`;
}
