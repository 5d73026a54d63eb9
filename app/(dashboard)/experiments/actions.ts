"use server";

import { after } from "next/server";
import { revalidatePath } from "next/cache";
import { z } from "zod";
import { db } from "@/lib/db";
import { ApiError } from "@/lib/http/errors";
import { validatedAction } from "@/lib/http/action";
import { experimentProgress } from "@/lib/db/experiments";
import { CreateExperimentInput, createExperiment, runExperiment } from "@/lib/replays/experiments";

/** Stores the experiment with its cohort and runs it after the response: the page polls its progress. */
export const startExperimentAction = validatedAction("experiments.run", CreateExperimentInput, async (input, prisma, principal) => {
  const created = await createExperiment(prisma, input, principal.name);
  after(async () => {
    try {
      await runExperiment(await db(), created.id);
    } catch (error) {
      console.error(`Experiment ${created.id} failed to run:`, error);
    }
  });
  revalidatePath("/experiments");
  return { id: created.id, total: created.total, warnings: created.warnings.map((w) => w.message) };
});

/** Progress for the poll. */
export const experimentProgressAction = validatedAction(
  "experiments.read",
  z.object({ experimentId: z.string().min(1) }),
  async ({ experimentId }, prisma) => {
    const progress = await experimentProgress(prisma, experimentId);
    if (!progress) throw new ApiError(404, "experiment_not_found", `No experiment with id "${experimentId}".`);
    return progress;
  },
);
