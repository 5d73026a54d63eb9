"use server";

import { revalidatePath } from "next/cache";
import { validatedAction } from "@/lib/http/action";
import {
  CreateExperimentInput,
  CohortPreviewInput,
  ExperimentRef,
  getExperimentProgress,
  previewCohort,
  startExperiment,
} from "@/lib/server/experiments/experiments";
import { cancelExperiment, CancelExperimentInput } from "@/lib/server/jobs/jobs";
import { supplyGroupFixture, SupplyGroupFixtureInput } from "@/lib/server/experiments/experiment-fixtures";

/** Stores the experiment with its cohort and queues one job per member replay: the page polls its progress. */
export const startExperimentAction = validatedAction(CreateExperimentInput, async (principal, input, prisma) => {
  const created = await startExperiment(principal, input, prisma);
  revalidatePath("/experiments");
  return { id: created.id, total: created.total, warnings: created.warnings.map((w) => w.message) };
});

/** How many sessions the subset picker's filters keep, before starting. */
export const previewCohortAction = validatedAction(CohortPreviewInput, previewCohort);

/** Progress for the poll. */
export const experimentProgressAction = validatedAction(ExperimentRef, getExperimentProgress);

/** Cancels an experiment: queued members at once, running ones at their next step. */
export const cancelExperimentAction = validatedAction(CancelExperimentInput, async (principal, input, prisma) => {
  const outcome = await cancelExperiment(principal, input, prisma);
  revalidatePath(`/experiments/${input.experimentId}`);
  return outcome;
});

/** One fixture for every member paused on the same call; they resume. */
export const supplyGroupFixtureAction = validatedAction(SupplyGroupFixtureInput, async (principal, input, prisma) => {
  const result = await supplyGroupFixture(principal, input, prisma);
  revalidatePath(`/experiments/${input.experimentId}`);
  return result;
});
