/** API keys: made here (shown once), stored hashed, revoked here. */
import { z } from "zod";
import type { Db } from "@/lib/db";
import {
  createApiKey as insertApiKey,
  listApiKeys as readApiKeys,
  revokeApiKey as markRevoked,
} from "@/lib/db/api-keys";
import { AppError } from "@/lib/errors";
import { authorize } from "./authz";
import type { Principal } from "./principal";

export const CreateApiKeyInput = z.object({
  name: z.string().trim().min(1, "Give the key a name").max(100, "At most 100 characters"),
});
export type CreateApiKeyInput = z.infer<typeof CreateApiKeyInput>;

/** A new key: the only time its full value is shown. */
export async function createApiKey(principal: Principal, input: CreateApiKeyInput, prisma: Db) {
  authorize(principal, "api_keys.manage");
  return insertApiKey(prisma, input.name);
}

export const ApiKeyRef = z.object({ id: z.string().min(1).max(64) });
export type ApiKeyRef = z.infer<typeof ApiKeyRef>;

export async function revokeApiKey(principal: Principal, input: ApiKeyRef, prisma: Db) {
  authorize(principal, "api_keys.manage");
  if (!(await markRevoked(prisma, input.id)))
    throw new AppError("not_found", "No active key has this id; it may be revoked already.");
  return { id: input.id };
}

export async function listApiKeys(principal: Principal, _input: Record<string, never>, prisma: Db) {
  authorize(principal, "api_keys.manage");
  return readApiKeys(prisma);
}
