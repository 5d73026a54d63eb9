/**
 * Who is acting, as the adapters see it: the signed-in user of a page or
 * server action (Better Auth's session cookie), or the owner of the API key
 * of an /api/v1 request. Read from the database on every request, so a role
 * change or a deactivation applies to the very next request.
 */
import { headers } from "next/headers";
import { redirect } from "next/navigation";
import { auth } from "@/lib/auth/auth";
import { db, type DbClient } from "@/lib/db";
import { ENV_KEY_NAME, resolveApiKey } from "@/lib/db/api-keys";
import { AppError } from "@/lib/errors";
import type { Principal, Role } from "@/lib/server/principal";

function asRole(value: string | null | undefined): Role {
  return value === "admin" || value === "analyst" ? value : "viewer";
}

/** The principal of a session's user, or null when the user is gone or deactivated. */
export async function principalForUserId(client: DbClient, userId: string): Promise<Principal | null> {
  const user = await client.user.findUnique({ where: { id: userId } });
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

/** The signed-in user of this request, or null. */
export async function signedInPrincipal(): Promise<Principal | null> {
  // Request headers first: a page rendered at build time stops here instead of opening the database.
  const requestHeaders = await headers();
  const instance = await auth();
  const session = await instance.api.getSession({ headers: requestHeaders });
  if (!session) return null;
  return principalForUserId(await db(), session.user.id);
}

/** The principal of a page or server action; `unauthorized` when nobody (active) is signed in. */
export async function currentPrincipal(): Promise<Principal> {
  const principal = await signedInPrincipal();
  if (!principal) throw new AppError("unauthorized", "You are signed out; sign in again.");
  return principal;
}

/** For the dashboard layout: the signed-in user, or a redirect to the sign-in page. */
export async function pagePrincipal(): Promise<Principal> {
  const principal = await signedInPrincipal();
  if (!principal) redirect("/sign-in");
  return principal;
}

/** The principal of an API key; fails closed: a missing, unknown or revoked key (or a deactivated owner) is a 401. */
export async function apiKeyPrincipal(client: DbClient, key: string | null, hint: string): Promise<Principal> {
  const principal = await principalForApiKey(client, key);
  if (!principal) throw new AppError("unauthorized", hint);
  return principal;
}

/** Whoever opens a share link: read-only, and only what the link's token opens. */
export function shareLinkPrincipal(): Principal {
  return { kind: "system", userId: null, name: "share link", role: "viewer", readOnly: true };
}
