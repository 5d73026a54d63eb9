"use server";

import { validatedAction } from "@/lib/http/action";
import { InvestigationRef, StartInvestigationInput } from "@/lib/server/investigations/investigations";
import { cancelInvestigation } from "@/lib/server/investigations/investigation-reads";
import { startInvestigation } from "@/lib/server/investigations/run-investigation";

/** Stores the investigation and puts it on the job queue; its page shows the probes as they finish. */
export const startInvestigationAction = validatedAction(StartInvestigationInput, async (principal, input, prisma) => {
  const created = await startInvestigation(principal, input, prisma);
  return { id: created.id };
});

export const cancelInvestigationAction = validatedAction(InvestigationRef, cancelInvestigation);
