"use server";

import { validatedAction } from "@/lib/http/action";
import { enqueueInvestigation } from "@/lib/jobs/runtime";
import {
  cancelInvestigation,
  createInvestigation,
  InvestigationRef,
  StartInvestigationInput,
} from "@/lib/server/investigations";

/** Stores the investigation and puts it on the job queue; its page shows the probes as they finish. */
export const startInvestigationAction = validatedAction(StartInvestigationInput, async (principal, input, prisma) => {
  const created = await createInvestigation(principal, input, prisma);
  await enqueueInvestigation(created.id, principal.name);
  return { id: created.id };
});

export const cancelInvestigationAction = validatedAction(InvestigationRef, cancelInvestigation);
