"use server";

import { revalidatePath } from "next/cache";
import { validatedAction } from "@/lib/http/action";
import { CancelReplayInput, retryReplay } from "@/lib/server/jobs/jobs";

/** Runs a failed replay again from its branch log (nothing live is repeated). */
export const retryReplayAction = validatedAction(CancelReplayInput, async (principal, input, prisma) => {
  const retried = await retryReplay(principal, input, prisma);
  revalidatePath("/settings/jobs");
  return retried;
});
