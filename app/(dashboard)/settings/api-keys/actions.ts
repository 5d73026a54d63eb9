"use server";

import { revalidatePath } from "next/cache";
import { z } from "zod";
import { createApiKey, recordAudit, revokeApiKey } from "@/lib/db";
import { AppError } from "@/lib/errors";
import { validatedAction } from "@/lib/http/action";
import { can } from "@/lib/server/authz";

const CreateKey = z.object({
  name: z.string().trim().min(1, "Give the key a name").max(100, "At most 100 characters"),
  readOnly: z.boolean().default(false),
});

/** A new key of the signed-in user (acting with their role, or read-only): the only time its full value is shown. */
export const createApiKeyAction = validatedAction("api_keys.own", CreateKey, async ({ name, readOnly }, prisma, principal) => {
  if (!principal.userId) throw new AppError("forbidden", "Only a signed-in user can own a key.");
  const created = await createApiKey(prisma, name, { userId: principal.userId, readOnly });
  await recordAudit(prisma, {
    actorId: principal.userId,
    actorName: principal.name,
    action: "api_key.created",
    target: name,
    detail: { keyId: created.id, prefix: created.prefix, readOnly },
  });
  revalidatePath("/settings/api-keys");
  return created;
});

const RevokeKey = z.object({ id: z.string().min(1).max(64) });

/** One's own keys; an admin may revoke anyone's. */
export const revokeApiKeyAction = validatedAction("api_keys.own", RevokeKey, async ({ id }, prisma, principal) => {
  const ownerOnly = can(principal, "api_keys.manage") ? undefined : (principal.userId ?? "-");
  const revoked = await revokeApiKey(prisma, id, ownerOnly);
  if (!revoked) throw new AppError("not_found", "No active key of yours has this id; it may be revoked already.");
  await recordAudit(prisma, {
    actorId: principal.userId,
    actorName: principal.name,
    action: "api_key.revoked",
    target: revoked.name,
    detail: { keyId: revoked.id },
  });
  revalidatePath("/settings/api-keys");
  return { id };
});
