/**
 * Who is acting, as the adapters see it. One resolver, `resolvePrincipal`,
 * reads whichever credentials an entry point accepts: the signed-in user of a
 * page, server action or dashboard route (Better Auth's session cookie), the
 * owner of an API key (/api/v1, and the header forms trace exporters send),
 * or whoever holds a share link. Read from the database on every request, so
 * a role change or a deactivation applies to the very next request.
 */
import { headers } from "next/headers";
import { redirect } from "next/navigation";
import { auth } from "@/lib/auth/auth";
import { db, findUser, type DbClient } from "@/lib/db";
import { ENV_KEY_NAME, resolveApiKey } from "@/lib/db/api-keys";
import { AGENT_OPEN_STATUSES, abandonIdleAgentReplays, replayOfAgentToken } from "@/lib/db/agent-replays";
import { AppError } from "@/lib/errors";
import type { Principal, Role } from "@/lib/server/principal";

/**
 * The credentials an entry point may accept:
 * - `session`: the session cookie of a signed-in, active user;
 * - `api_key`: `Authorization: Bearer <key>`;
 * - `trace_key`: an API key as OTLP exporters send it (Bearer, or an `x-api-key`,
 *   `api-key` or `x-branchpoint-api-key` header set through OTEL_EXPORTER_OTLP_HEADERS);
 * - `share_token`: a share link's token; the principal is read-only and the
 *   operation itself opens only what the token opens;
 * - `replay_token`: an agent-driven replay's token (Bearer, or `x-api-key` as the Anthropic SDK sends it),
 *   for that replay's agent endpoints only, and only while the replay is open.
 */
export type Credential = "session" | "api_key" | "trace_key" | "share_token" | "replay_token";

export interface ResolveOptions {
  accept: readonly Credential[];
  /** The database to read keys and users from (opened on demand otherwise). */
  prisma?: DbClient;
  /** The share token of the request's path, for `share_token`. */
  shareToken?: string | null;
  /** The replay of the request's path, for `replay_token`. */
  replayId?: string | null;
  /** The 401's words when nothing accepted is present; by default they name what to send. */
  hint?: string;
}

const SESSION_HINT = "You are signed out; sign in again.";
const API_KEY_HINT = "A valid API key is required: send it as 'Authorization: Bearer <key>'.";
const TRACE_KEY_HINT =
  "A valid API key is required: send 'Authorization: Bearer <key>' or an 'x-api-key: <key>' header (OTEL_EXPORTER_OTLP_HEADERS=x-api-key=<key>).";
const SHARE_HINT = "The share link is not valid.";
const REPLAY_TOKEN_HINT =
  "This replay's agent token is required: send it as 'Authorization: Bearer <token>' (or 'x-api-key: <token>'), the token POST /api/v1/replays answered with \"driver\": \"agent\".";

function asRole(value: string | null | undefined): Role {
  return value === "admin" || value === "analyst" ? value : "viewer";
}

/** The principal of a session's user, or null when the user is gone or deactivated. */
export async function principalForUserId(client: DbClient, userId: string): Promise<Principal | null> {
  const user = await findUser(client, userId);
  if (!user || user.deactivatedAt) return null;
  return { kind: "user", userId: user.id, name: user.email, role: asRole(user.role), readOnly: false };
}

/** The principal of a bearer key, or null (unknown, revoked, owner deactivated). */
export async function principalForApiKey(client: DbClient, key: string | null): Promise<Principal | null> {
  const row = await resolveApiKey(client, key);
  if (!row) return null;
  if (!row.userId || !row.user) {
    // BRANCHPOINT_API_KEY: the scripts' admin key.
    return {
      kind: "api_key",
      userId: null,
      name: row.name === ENV_KEY_NAME ? "BRANCHPOINT_API_KEY" : row.name,
      role: "admin",
      readOnly: false,
    };
  }
  return {
    kind: "api_key",
    userId: row.userId,
    name: row.user.email,
    role: asRole(row.user.role),
    readOnly: row.readOnly,
  };
}

/** Whoever opens a share link: read-only, and only what the link's token opens. */
export function shareLinkPrincipal(): Principal {
  return { kind: "system", userId: null, name: "share link", role: "viewer", readOnly: true };
}

/** The bearer key of a request (`Authorization: Bearer …`), or null. */
export function bearerKeyOf(requestHeaders: Headers): string | null {
  const header = requestHeaders.get("authorization");
  const match = header?.match(/^Bearer\s+(\S+)\s*$/i);
  return match?.[1] ?? null;
}

/** An API key in any of the header forms trace exporters send, or null. */
export function traceKeyOf(requestHeaders: Headers): string | null {
  return (
    bearerKeyOf(requestHeaders) ??
    requestHeaders.get("x-api-key")?.trim() ??
    requestHeaders.get("api-key")?.trim() ??
    requestHeaders.get("x-branchpoint-api-key")?.trim() ??
    null
  );
}

function headersOf(source: Request | Headers): Headers {
  return source instanceof Request ? source.headers : source;
}

const DEFAULT_HINT: Record<Credential, string> = {
  session: SESSION_HINT,
  api_key: API_KEY_HINT,
  trace_key: TRACE_KEY_HINT,
  share_token: SHARE_HINT,
  replay_token: REPLAY_TOKEN_HINT,
};

const OPEN = new Set<string>(AGENT_OPEN_STATUSES);

/**
 * The agent of an agent-driven replay, from its token: null for a token of no replay; a 403 with the reason
 * for a token of another replay, or of this one once it has ended (an idle one is abandoned here first).
 */
async function agentPrincipal(
  client: DbClient,
  token: string | null,
  replayId: string | null,
): Promise<Principal | null> {
  if (!token || !replayId) return null;
  const row = await replayOfAgentToken(client, token);
  if (!row) return null;
  if (row.id !== replayId)
    throw new AppError("forbidden", "This agent token belongs to another replay; use the token of this replay.");
  let status = row.status;
  // Ended now for its silence: abandoned, or failed when a refused tool call had stopped it.
  if (OPEN.has(status) && (await abandonIdleAgentReplays(client, new Date(), row.id)).length > 0)
    status = (await replayOfAgentToken(client, token))?.status ?? "abandoned";
  if (!OPEN.has(status))
    throw new AppError(
      "forbidden",
      `Replay ${row.id} is ${status.replaceAll("_", " ")}: its agent token works only while the replay is open (waiting for the agent, running or paused). Start a new agent-driven replay to run the agent again.`,
    );
  return { kind: "replay_token", replayId: row.id, userId: null, name: "replay agent", role: "viewer", readOnly: true };
}

/**
 * The principal of the first accepted credential the request carries, or
 * null. An API key is read only where a key is accepted, a session only where
 * a session is; the database is opened only once there is something to check.
 */
export async function findPrincipal(
  source: Request | Headers,
  { accept, prisma, shareToken, replayId }: Omit<ResolveOptions, "hint">,
): Promise<Principal | null> {
  const requestHeaders = headersOf(source);
  for (const credential of accept) {
    if (credential === "share_token") {
      if (shareToken) return shareLinkPrincipal();
    } else if (credential === "replay_token") {
      const token = bearerKeyOf(requestHeaders) ?? requestHeaders.get("x-api-key")?.trim() ?? null;
      const principal = await agentPrincipal(prisma ?? (await db()), token, replayId ?? null);
      if (principal) return principal;
    } else if (credential === "api_key" || credential === "trace_key") {
      const key = credential === "api_key" ? bearerKeyOf(requestHeaders) : traceKeyOf(requestHeaders);
      const principal = await principalForApiKey(prisma ?? (await db()), key);
      if (principal) return principal;
    } else {
      const session = await (await auth()).api.getSession({ headers: requestHeaders });
      const principal = session ? await principalForUserId(prisma ?? (await db()), session.user.id) : null;
      if (principal) return principal;
    }
  }
  return null;
}

/**
 * Who is acting, for every entry point: the route wrapper passes the
 * request, server actions and pages the request's headers. Fails closed:
 * `unauthorized` (401) when no accepted credential names an active principal.
 */
export async function resolvePrincipal(source: Request | Headers, options: ResolveOptions): Promise<Principal> {
  const principal = await findPrincipal(source, options);
  if (principal) return principal;
  const first = options.accept[0];
  throw new AppError("unauthorized", options.hint ?? (first ? DEFAULT_HINT[first] : SESSION_HINT));
}

/** The signed-in user of this page's request, or null (the sign-in and not-found pages). */
export async function signedInPrincipal(): Promise<Principal | null> {
  // Request headers first: a page rendered at build time stops here instead of opening the database.
  return findPrincipal(await headers(), { accept: ["session"] });
}

/** For the dashboard layout: the signed-in user, or a redirect to the sign-in page. */
export async function pagePrincipal(): Promise<Principal> {
  const principal = await signedInPrincipal();
  if (!principal) redirect("/sign-in");
  return principal;
}
