/**
 * Who is acting, for the adapters: the signed-in user of a page or server
 * action (Better Auth's session cookie), or the owner of the API key of an
 * /api/v1 request. Every answer is read from the database per request, so a
 * role change or a deactivation applies to the very next request.
 */
import { headers } from "next/headers";
import { redirect } from "next/navigation";
import { auth } from "@/lib/auth/auth";
import type { Db } from "@/lib/db";
import { resolveApiKey, ENV_KEY_NAME } from "@/lib/db/api-keys";
import { AppError } from "@/lib/errors";
import { authorize, type Permission } from "@/lib/server/authz";
import type { Principal, Role } from "@/lib/server/principal";

function asRole(value: string | null | undefined): Role {
  return value === "admin" || value === "analyst" ? value : "viewer";
}

/** The principal of a session's user, or null when the user is gone or deactivated. */
export async function principalForUserId(prisma: Db, userId: string): Promise<Principal | null> {
  const user = await prisma.user.findUnique({ where: { id: userId } });
  if (!user || user.deactivatedAt) return null;
  return { kind: "user", userId: user.id, name: user.email, role: asRole(user.role), readOnly: false };
}

/** The principal of a bearer key, or null for a key that is not valid (unknown, revoked, owner deactivated). */
export async function principalForApiKey(prisma: Db, key: string | null): Promise<Principal | null> {
  const row = await resolveApiKey(prisma, key);
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

/** The signed-in user of this request (pages, server actions), or null. */
export async function currentPrincipal(): Promise<Principal | null> {
  // Request headers first: a page rendered at build time stops here instead of opening the database.
  const requestHeaders = await headers();
  const instance = await auth();
  const session = await instance.api.getSession({ headers: requestHeaders });
  if (!session) return null;
  const { db } = await import("@/lib/db");
  return principalForUserId(await db(), session.user.id);
}

/** For pages: the signed-in user, or a redirect to the sign-in page. */
export async function pagePrincipal(): Promise<Principal> {
  const principal = await currentPrincipal();
  if (!principal) redirect("/sign-in");
  return principal;
}

/** For server actions: the signed-in user, or `unauthorized`. */
export async function actionPrincipal(): Promise<Principal> {
  const principal = await currentPrincipal();
  if (!principal) throw new AppError("unauthorized", "You are signed out; sign in again.");
  return principal;
}

/** For the dashboard's own route handlers (upload, download): the signed-in user with the permission, or an AppError. */
export async function sessionPrincipalWith(permission: Permission): Promise<Principal> {
  const principal = await actionPrincipal();
  authorize(principal, permission);
  return principal;
}
