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
): Promise<{ id: string; key: string; prefix: string }> {
  const key = `bp_${randomBytes(24).toString("base64url")}`;
  const prefix = key.slice(0, 10);
  const row = await client.apiKey.create({ data: { name, prefix, keyHash: hashApiKey(key) }, select: { id: true } });
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

/** The key's id when it is valid and not revoked; fails closed on anything else. */
export async function verifyApiKey(client: DbClient, key: string | null | undefined): Promise<string | null> {
  if (typeof key !== "string" || key.length < 8 || key.length > 256) return null;
  const row = await client.apiKey.findUnique({
    where: { keyHash: hashApiKey(key) },
    select: { id: true, revokedAt: true },
  });
  if (!row || row.revokedAt) return null;
  await client.apiKey.update({ where: { id: row.id }, data: { lastUsedAt: new Date() } });
  return row.id;
}

export async function listApiKeys(client: DbClient) {
  return client.apiKey.findMany({ orderBy: { createdAt: "desc" } });
}

export async function revokeApiKey(client: DbClient, id: string): Promise<boolean> {
  const { count } = await client.apiKey.updateMany({ where: { id, revokedAt: null }, data: { revokedAt: new Date() } });
  return count > 0;
}
