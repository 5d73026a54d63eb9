"use server";

import { revalidatePath } from "next/cache";
import { z } from "zod";
import { createApiKey, revokeApiKey } from "@/lib/db/api-keys";
import { ApiError } from "@/lib/http/errors";
import { validatedAction } from "@/lib/http/action";

const CreateKey = z.object({
  name: z.string().trim().min(1, "Give the key a name").max(100, "At most 100 characters"),
});

/** A new key: the only time its full value is shown. */
export const createApiKeyAction = validatedAction(CreateKey, async ({ name }, prisma) => {
  const created = await createApiKey(prisma, name);
  revalidatePath("/settings/api-keys");
  return created;
});

const RevokeKey = z.object({ id: z.string().min(1).max(64) });

export const revokeApiKeyAction = validatedAction(RevokeKey, async ({ id }, prisma) => {
  if (!(await revokeApiKey(prisma, id)))
    throw new ApiError(404, "not_found", "No active key has this id; it may be revoked already.");
  revalidatePath("/settings/api-keys");
  return { id };
});
