"use server";

import { revalidatePath } from "next/cache";
import { validatedAction } from "@/lib/http/action";
import {
  CreateDatasetInput,
  DatasetMembersInput,
  DatasetRef,
  UpdateDatasetInput,
} from "@/lib/server/datasets/dataset-inputs";
import {
  addDatasetMembers,
  createDataset,
  deleteDataset,
  removeDatasetMembers,
  updateDataset,
} from "@/lib/server/datasets/datasets";

/** Saves the chosen sessions (or a filter's matches, up to the cap) as a new dataset. */
export const createDatasetAction = validatedAction(CreateDatasetInput, async (principal, input, prisma) => {
  const created = await createDataset(principal, input, prisma);
  revalidatePath("/datasets");
  return created;
});

/** Adds the chosen sessions to a dataset; those already in it stay as they were. */
export const addDatasetMembersAction = validatedAction(DatasetMembersInput, async (principal, input, prisma) => {
  const result = await addDatasetMembers(principal, input, prisma);
  revalidatePath(`/datasets/${input.datasetId}`);
  return result;
});

/** Removes sessions from a dataset. */
export const removeDatasetMembersAction = validatedAction(DatasetMembersInput, async (principal, input, prisma) => {
  const result = await removeDatasetMembers(principal, input, prisma);
  revalidatePath(`/datasets/${input.datasetId}`);
  return result;
});

/** Renames a dataset or changes its description. */
export const updateDatasetAction = validatedAction(UpdateDatasetInput, updateDataset);

/** Deletes a dataset; experiments run over it keep their members. */
export const deleteDatasetAction = validatedAction(DatasetRef, async (principal, input, prisma) => {
  const result = await deleteDataset(principal, input, prisma);
  revalidatePath("/datasets");
  return result;
});
