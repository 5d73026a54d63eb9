import { randomBytes } from "node:crypto";
import { sha256Hex } from "@/lib/replay";
import type { DbClient } from "./client";

export type UserRole = "viewer" | "analyst" | "admin";

export function newUserId(): string {
  return randomBytes(16).toString("base64url");
}

/** SHA-256 of a one-time token (setup, invitation): only the hash is stored. */
export function hashToken(kind: string, token: string): string {
  return sha256Hex(`branchpoint-${kind}:${token}`);
}

/** A user who signs in with email and password (the hash is made by the auth library). */
export async function createPasswordUser(
  client: DbClient,
  input: { name: string; email: string; role: UserRole; passwordHash: string },
) {
  const id = newUserId();
  const user = await client.user.create({
    data: { id, name: input.name, email: input.email.toLowerCase(), role: input.role, emailVerified: false },
  });
  await client.authAccount.create({
    data: { id: newUserId(), accountId: id, providerId: "credential", userId: id, password: input.passwordHash },
  });
  return user;
}

export async function countUsers(client: DbClient): Promise<number> {
  return client.user.count();
}

export async function listUsers(client: DbClient) {
  return client.user.findMany({
    orderBy: { createdAt: "asc" },
    select: {
      id: true,
      name: true,
      email: true,
      role: true,
      deactivatedAt: true,
      createdAt: true,
      accounts: { select: { providerId: true } },
    },
  });
}

export async function findUser(client: DbClient, id: string) {
  return client.user.findUnique({ where: { id } });
}

/** The id of the account with this email (already lower-cased), or null. */
export async function findUserIdByEmail(client: DbClient, email: string): Promise<string | null> {
  return (await client.user.findUnique({ where: { email }, select: { id: true } }))?.id ?? null;
}

/** When the user was deactivated (null while active), or undefined when there is no such user. */
export async function userDeactivatedAt(client: DbClient, id: string): Promise<Date | null | undefined> {
  const user = await client.user.findUnique({ where: { id }, select: { deactivatedAt: true } });
  return user ? user.deactivatedAt : undefined;
}

/** The user's email, or null when there is no such user. */
export async function userEmail(client: DbClient, id: string): Promise<string | null> {
  return (await client.user.findUnique({ where: { id }, select: { email: true } }))?.email ?? null;
}

export async function setUserRole(client: DbClient, id: string, role: UserRole): Promise<void> {
  await client.user.update({ where: { id }, data: { role } });
}

/** Deactivates the user as of `at`, or reactivates them with null. */
export async function setUserDeactivatedAt(client: DbClient, id: string, at: Date | null): Promise<void> {
  await client.user.update({ where: { id }, data: { deactivatedAt: at } });
}

export async function countActiveAdmins(client: DbClient): Promise<number> {
  return client.user.count({ where: { role: "admin", deactivatedAt: null } });
}

/** The user's signed-in sessions end at once (their next request is refused). */
export async function endUserSessions(client: DbClient, userId: string): Promise<number> {
  const { count } = await client.authSession.deleteMany({ where: { userId } });
  return count;
}

export async function getSetting(client: DbClient, key: string): Promise<string | null> {
  return (await client.appSetting.findUnique({ where: { key } }))?.value ?? null;
}

export async function setSetting(client: DbClient, key: string, value: string): Promise<void> {
  await client.appSetting.upsert({ where: { key }, create: { key, value }, update: { value } });
}

/**
 * Stores `value` under `key` unless the key holds a value already, and returns the stored value: when two
 * processes start at once, both end up with the one that was written first.
 */
export async function keepFirstSetting(client: DbClient, key: string, value: string): Promise<string> {
  await client.appSetting.upsert({ where: { key }, create: { key, value }, update: {} });
  return (await client.appSetting.findUniqueOrThrow({ where: { key } })).value;
}

export async function deleteSetting(client: DbClient, key: string): Promise<void> {
  await client.appSetting.deleteMany({ where: { key } });
}

/**
 * Deletes the setting only if it holds `value`, and says whether it did. Inside
 * a transaction this is the one-time use of a token: the delete locks the row,
 * so a concurrent attempt waits for the first to commit and then finds it gone.
 */
export async function consumeSetting(client: DbClient, key: string, value: string): Promise<boolean> {
  const { count } = await client.appSetting.deleteMany({ where: { key, value } });
  return count === 1;
}
