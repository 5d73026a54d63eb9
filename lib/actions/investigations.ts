"use server";

import { validatedAction } from "@/lib/http/action";
import {
  cancelInvestigation,
  startInvestigation,
  InvestigationRef,
  StartInvestigationInput,
} from "@/lib/server/investigations/investigations";

/** Stores the investigation and puts it on the job queue; its page shows the probes as they finish. */
export const startInvestigationAction = validatedAction(StartInvestigationInput, async (principal, input, prisma) => {
  const created = await startInvestigation(principal, input, prisma);
  return { id: created.id };
});

export const cancelInvestigationAction = validatedAction(InvestigationRef, cancelInvestigation);
