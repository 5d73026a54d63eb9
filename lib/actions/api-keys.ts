"use server";

import { revalidatePath } from "next/cache";
import { validatedAction } from "@/lib/http/action";
import { ApiKeyRef, createApiKey, CreateApiKeyInput, revokeApiKey } from "@/lib/server/team/api-keys";

/** A new key: the only time its full value is shown. */
export const createApiKeyAction = validatedAction(CreateApiKeyInput, async (principal, input, prisma) => {
  const created = await createApiKey(principal, input, prisma);
  revalidatePath("/settings/api-keys");
  return created;
});

export const revokeApiKeyAction = validatedAction(ApiKeyRef, async (principal, input, prisma) => {
  const revoked = await revokeApiKey(principal, input, prisma);
  revalidatePath("/settings/api-keys");
  return revoked;
});
