"use server";

import { revalidatePath } from "next/cache";
import { z } from "zod";
import { env } from "@/lib/env";
import { ApiError } from "@/lib/http/errors";
import { validatedAction } from "@/lib/http/action";
import { experimentProgress } from "@/lib/db/experiments";
import { CreateExperimentInput, createExperiment, runExperiment } from "@/lib/replays/experiments";
import { enqueue } from "@/lib/jobs/runtime";
import { cancelExperimentRows } from "@/lib/db/jobs";

/** Stores the experiment with its cohort and queues one job per member replay: the page polls its progress. */
export const startExperimentAction = validatedAction(CreateExperimentInput, async (input, prisma) => {
  const created = await createExperiment(prisma, input, env().BRANCHPOINT_USER);
  await runExperiment(prisma, created.id, enqueue);
  revalidatePath("/experiments");
  return { id: created.id, total: created.total, warnings: created.warnings.map((w) => w.message) };
});

/** Progress for the poll. */
export const experimentProgressAction = validatedAction(
  z.object({ experimentId: z.string().min(1) }),
  async ({ experimentId }, prisma) => {
    const progress = await experimentProgress(prisma, experimentId);
    if (!progress) throw new ApiError(404, "experiment_not_found", `No experiment with id "${experimentId}".`);
    return progress;
  },
);

/** Cancels an experiment: queued members at once, running ones at their next step. */
export const cancelExperimentAction = validatedAction(
  z.object({ experimentId: z.string().min(1) }),
  async ({ experimentId }, prisma) => {
    const outcome = await cancelExperimentRows(prisma, experimentId);
    if (!outcome) throw new ApiError(404, "experiment_not_found", `No experiment with id "${experimentId}".`);
    revalidatePath(`/experiments/${experimentId}`);
    return outcome;
  },
);
