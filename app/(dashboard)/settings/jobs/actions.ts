"use server";

import { revalidatePath } from "next/cache";
import { z } from "zod";
import { retryReplayRow } from "@/lib/db/jobs";
import { ApiError } from "@/lib/http/errors";
import { validatedAction } from "@/lib/http/action";
import { enqueue } from "@/lib/jobs/runtime";

/** Runs a failed replay again from its branch log (nothing live is repeated). */
export const retryReplayAction = validatedAction(
  z.object({ replayId: z.string().min(1) }),
  async ({ replayId }, prisma) => {
    if (!(await retryReplayRow(prisma, replayId)))
      throw new ApiError(409, "not_failed", "Only a failed replay can be retried; this one is not failed (any more).");
    await enqueue([replayId]);
    revalidatePath("/settings/jobs");
    return { replayId };
  },
);
