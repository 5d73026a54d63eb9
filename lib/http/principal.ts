/**
 * Who is acting, as the adapters see it. Until accounts exist (team mode),
 * both resolvers answer with the one local admin named by BRANCHPOINT_USER;
 * the team-mode work replaces them with signed-in users and key owners.
 */
import type { DbClient } from "@/lib/db";
import { verifyApiKey } from "@/lib/db/api-keys";
import { env } from "@/lib/env";
import { AppError } from "@/lib/errors";
import { localAdmin, type Principal } from "@/lib/server/principal";

/** The principal of a page or server action. */
export async function currentPrincipal(): Promise<Principal> {
  return Promise.resolve(localAdmin(env().BRANCHPOINT_USER));
}

/** The principal of an API key; fails closed: a missing, unknown or revoked key is a 401. */
export async function apiKeyPrincipal(client: DbClient, key: string | null, hint: string): Promise<Principal> {
  const keyId = await verifyApiKey(client, key);
  if (!keyId) throw new AppError("unauthorized", hint);
  return { ...localAdmin(env().BRANCHPOINT_USER), kind: "api_key" };
}

/** Whoever opens a share link: read-only, and only what the link's token opens. */
export function shareLinkPrincipal(): Principal {
  return { kind: "system", userId: null, name: "share link", role: "viewer", readOnly: true };
}
