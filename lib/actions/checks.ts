"use server";

import { revalidatePath } from "next/cache";
import { validatedAction } from "@/lib/http/action";
import { createCheck, CreateCheckInput } from "@/lib/server/checks/counterfactual";
import {
  attachCheck,
  AttachCheckInput,
  detachCheck,
  DetachCheckInput,
  startBackfill,
  StartBackfillInput,
} from "@/lib/server/checks/online";

/** Saves an outcome check; replays and experiments can then be judged by it. */
export const createCheckAction = validatedAction(CreateCheckInput, async (principal, input, prisma) => {
  const created = await createCheck(principal, input, prisma);
  revalidatePath("/checks");
  return { id: created.id, name: created.name };
});

/** Attaches a check to an agent: sessions it imports from now on are judged by it. */
export const attachCheckAction = validatedAction(AttachCheckInput, async (principal, input, prisma) => {
  const { attachment } = await attachCheck(principal, input, prisma);
  revalidatePath(`/checks/${input.checkId}`);
  return { agentName: attachment.agentName };
});

/** Detaches a check from an agent; the verdicts it gave stay. */
export const detachCheckAction = validatedAction(DetachCheckInput, async (principal, input, prisma) => {
  const detached = await detachCheck(principal, input, prisma);
  revalidatePath(`/checks/${input.checkId}`);
  return detached;
});

/** Judges an attached agent's older sessions in a job; the page shows its progress. */
export const startBackfillAction = validatedAction(StartBackfillInput, async (principal, input, prisma) => {
  const started = await startBackfill(principal, input, prisma);
  revalidatePath(`/checks/${input.checkId}`);
  return { started: started.backfills.filter((b) => b.started).length };
});
