/**
 * API keys: each belongs to a user and acts with that user's role (or
 * read-only); made here (shown once), stored hashed, revoked here. Anyone
 * signed in manages their own keys; an admin sees and revokes everyone's.
 */
import { z } from "zod";
import type { Db } from "@/lib/db";
import {
  createApiKey as insertApiKey,
  listApiKeys as readApiKeys,
  revokeApiKey as markRevoked,
} from "@/lib/db/api-keys";
import { auditedChange } from "@/lib/db/audit";
import { AppError } from "@/lib/errors";
import { authorize, can } from "../authz";
import type { Principal } from "../principal";

export const CreateApiKeyInput = z.object({
  name: z.string().trim().min(1, "Give the key a name").max(100, "At most 100 characters"),
  readOnly: z.boolean().optional(),
});
export type CreateApiKeyInput = z.infer<typeof CreateApiKeyInput>;

/** A new key of the acting user: the only time its full value is shown. */
export async function createApiKey(principal: Principal, input: CreateApiKeyInput, prisma: Db) {
  authorize(principal, "api_keys.own");
  // A key made by the scripts' admin key (no user) has no owner and acts as an admin, like that key.
  if (!principal.userId && principal.role !== "admin")
    throw new AppError("forbidden", "Only a signed-in user can own a key.");
  const readOnly = input.readOnly ?? false;
  return auditedChange(
    prisma,
    (tx) => insertApiKey(tx, input.name, { userId: principal.userId, readOnly }),
    (created) => ({
      actorId: principal.userId,
      actorName: principal.name,
      action: "api_key.created",
      target: input.name,
      detail: { keyId: created.id, prefix: created.prefix, readOnly },
    }),
  );
}

export const ApiKeyRef = z.object({ id: z.string().min(1).max(64) });
export type ApiKeyRef = z.infer<typeof ApiKeyRef>;

export async function revokeApiKey(principal: Principal, input: ApiKeyRef, prisma: Db) {
  authorize(principal, "api_keys.own");
  const ownerOnly = can(principal, "api_keys.manage") ? undefined : (principal.userId ?? "-");
  await auditedChange(
    prisma,
    async (tx) => {
      const revoked = await markRevoked(tx, input.id, ownerOnly);
      if (!revoked) throw new AppError("not_found", "No active key of yours has this id; it may be revoked already.");
      return revoked;
    },
    (revoked) => ({
      actorId: principal.userId,
      actorName: principal.name,
      action: "api_key.revoked",
      target: revoked.name,
      detail: { keyId: revoked.id },
    }),
  );
  return { id: input.id };
}

/** One's own keys; an admin's list has everyone's, with their owners. */
export async function listApiKeys(principal: Principal, _input: Record<string, never>, prisma: Db) {
  authorize(principal, "api_keys.own");
  const all = can(principal, "api_keys.manage");
  return readApiKeys(prisma, all ? {} : { userId: principal.userId ?? "-" });
}
