"use server";

import { after } from "next/server";
import { db } from "@/lib/db";
import { validatedAction } from "@/lib/http/action";
import {
  cancelInvestigation,
  createInvestigation,
  InvestigationRef,
  runInvestigation,
  StartInvestigationInput,
} from "@/lib/server/investigations";
import { systemPrincipal } from "@/lib/server/principal";

/** Stores the investigation and runs it after the response; its page shows the probes as they finish. */
export const startInvestigationAction = validatedAction(StartInvestigationInput, async (principal, input, prisma) => {
  const created = await createInvestigation(principal, input, prisma);
  after(async () => {
    try {
      await runInvestigation(systemPrincipal(principal.name), { investigationId: created.id }, await db());
    } catch (error) {
      console.error(`Investigation ${created.id} failed to run:`, error);
    }
  });
  return { id: created.id };
});

export const cancelInvestigationAction = validatedAction(InvestigationRef, cancelInvestigation);
