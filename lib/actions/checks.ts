"use server";

import { revalidatePath } from "next/cache";
import { validatedAction } from "@/lib/http/action";
import { createCheck, CreateCheckInput } from "@/lib/server/checks/counterfactual";

/** Saves an outcome check; replays and experiments can then be judged by it. */
export const createCheckAction = validatedAction(CreateCheckInput, async (principal, input, prisma) => {
  const created = await createCheck(principal, input, prisma);
  revalidatePath("/checks");
  return { id: created.id, name: created.name };
});
