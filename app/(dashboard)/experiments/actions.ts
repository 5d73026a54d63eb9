"use server";

import { after } from "next/server";
import { revalidatePath } from "next/cache";
import { db } from "@/lib/db";
import { validatedAction } from "@/lib/http/action";
import {
  CreateExperimentInput,
  createExperiment,
  ExperimentRef,
  getExperimentProgress,
  runExperiment,
} from "@/lib/server/experiments";
import { systemPrincipal } from "@/lib/server/principal";

/** Stores the experiment with its cohort and runs it after the response: the page polls its progress. */
export const startExperimentAction = validatedAction(CreateExperimentInput, async (principal, input, prisma) => {
  const created = await createExperiment(principal, input, prisma);
  after(async () => {
    try {
      await runExperiment(systemPrincipal(principal.name), { experimentId: created.id }, await db());
    } catch (error) {
      console.error(`Experiment ${created.id} failed to run:`, error);
    }
  });
  revalidatePath("/experiments");
  return { id: created.id, total: created.total, warnings: created.warnings.map((w) => w.message) };
});

/** Progress for the poll. */
export const experimentProgressAction = validatedAction(ExperimentRef, getExperimentProgress);
