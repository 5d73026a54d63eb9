"use server";

import { revalidatePath } from "next/cache";
import { validatedAction } from "@/lib/http/action";
import { CreateWatchInput, WatchRef } from "@/lib/server/watches/watch-inputs";
import { createWatch, deleteWatch } from "@/lib/server/watches/watches";

/** Saves a watch on an agent; the answer carries the investigation's cost bound to show. */
export const createWatchAction = validatedAction(CreateWatchInput, async (principal, input, prisma) => {
  const watch = await createWatch(principal, input, prisma);
  revalidatePath("/failures/watches");
  return { id: watch.id, name: watch.name, costBound: watch.costBound?.text ?? null };
});

/** Deletes a watch with its triggers and delivery log. */
export const deleteWatchAction = validatedAction(WatchRef, async (principal, input, prisma) => {
  const done = await deleteWatch(principal, input, prisma);
  revalidatePath("/failures/watches");
  return done.deleted;
});
