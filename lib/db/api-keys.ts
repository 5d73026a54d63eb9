import { randomBytes } from "node:crypto";
import { sha256Hex } from "@/lib/replay";
import type { DbClient } from "./client";

export const ENV_KEY_NAME = "BRANCHPOINT_API_KEY (environment)";

export function hashApiKey(key: string): string {
  return sha256Hex(`branchpoint-api-key:${key}`);
}

/** A new key: shown once, stored only as its hash. */
export async function createApiKey(
  client: DbClient,
  name: string,
  owner: { userId: string | null; readOnly?: boolean } = { userId: null },
): Promise<{ id: string; key: string; prefix: string }> {
  const key = `bp_${randomBytes(24).toString("base64url")}`;
  const prefix = key.slice(0, 10);
  const row = await client.apiKey.create({
    data: { name, prefix, keyHash: hashApiKey(key), userId: owner.userId, readOnly: owner.readOnly ?? false },
    select: { id: true },
  });
  return { id: row.id, key, prefix };
}

/**
 * Registers the key from the environment (idempotent): scripts and tests use
 * it. A key revoked in Settings stays revoked: a restart does not revive it.
 */
export async function registerEnvApiKey(
  client: DbClient,
  key: string | undefined,
): Promise<"registered" | "revoked" | "none"> {
  if (!key) return "none";
  const keyHash = hashApiKey(key);
  const row = await client.apiKey.upsert({
    where: { keyHash },
    create: { name: ENV_KEY_NAME, prefix: key.slice(0, 6), keyHash },
    update: {},
    select: { revokedAt: true },
  });
  if (row.revokedAt) {
    console.warn(
      "BRANCHPOINT_API_KEY was revoked in Settings and stays revoked; set a new key to use one from the environment.",
    );
    return "revoked";
  }
  return "registered";
}

/** The key's id when it is valid, not revoked and its owner active; fails closed on anything else. */
export async function verifyApiKey(client: DbClient, key: string | null | undefined): Promise<string | null> {
  return (await resolveApiKey(client, key))?.id ?? null;
}

/**
 * Who a valid key acts for: its owner (with the owner's role, unless the key
 * is read-only), or nobody for the environment's key. Null for a missing,
 * unknown or revoked key, and for a key whose owner is deactivated.
 */
export async function resolveApiKey(client: DbClient, key: string | null | undefined) {
  if (typeof key !== "string" || key.length < 8 || key.length > 256) return null;
  const row = await client.apiKey.findUnique({
    where: { keyHash: hashApiKey(key) },
    select: {
      id: true,
      name: true,
      revokedAt: true,
      readOnly: true,
      userId: true,
      user: { select: { email: true, role: true, deactivatedAt: true } },
    },
  });
  if (!row || row.revokedAt) return null;
  if (row.userId && (!row.user || row.user.deactivatedAt)) return null;
  await client.apiKey.update({ where: { id: row.id }, data: { lastUsedAt: new Date() } });
  return { id: row.id, name: row.name, readOnly: row.readOnly, userId: row.userId, user: row.user };
}

/** Keys with their owners; `userId` narrows to one user's keys. */
export async function listApiKeys(client: DbClient, filter: { userId?: string } = {}) {
  return client.apiKey.findMany({
    where: filter.userId ? { userId: filter.userId } : {},
    orderBy: { createdAt: "desc" },
    include: { user: { select: { email: true, name: true } } },
  });
}

/** Revokes a key; `ownerId` limits it to that user's keys. */
export async function revokeApiKey(client: DbClient, id: string, ownerId?: string) {
  const row = await client.apiKey.findFirst({
    where: { id, revokedAt: null, ...(ownerId ? { userId: ownerId } : {}) },
    select: { id: true, name: true },
  });
  if (!row) return null;
  const { count } = await client.apiKey.updateMany({ where: { id, revokedAt: null }, data: { revokedAt: new Date() } });
  return count > 0 ? row : null;
}
