"use server";

import { revalidatePath } from "next/cache";
import { z } from "zod";
import { validatedAction } from "@/lib/http/action";
import {
  cancelPull,
  ConnectorInput,
  createConnector,
  PullFilterInput,
  PullSchedule,
  startPull,
} from "@/lib/server/connectors/connectors";
import { deleteConnector, updateConnector } from "@/lib/server/connectors/connector-admin";

const PullRef = z.object({ connectorId: z.string().min(1), pullId: z.string().min(1) });

/** Adds a connector (admin) and refreshes the connectors page. */
export const addConnectorAction = validatedAction(ConnectorInput, async (principal, input, prisma) => {
  const connector = await createConnector(principal, input, prisma);
  revalidatePath("/settings/connectors");
  return connector;
});

/** Changes a connector's fields (admin). */
export const editConnectorAction = validatedAction(
  // The edit is read by updateConnector, so its refusals name the fields as the form does (name, not edit.name).
  z.object({ connectorId: z.string().min(1), edit: z.record(z.string(), z.unknown()) }),
  async (principal, input, prisma) => {
    const connector = await updateConnector(principal, input, prisma);
    revalidatePath("/settings/connectors");
    return connector;
  },
);

/** Removes a connector and its pulls (admin); the sessions they imported stay. */
export const deleteConnectorAction = validatedAction(
  z.object({ connectorId: z.string().min(1) }),
  async (principal, input, prisma) => {
    const done = await deleteConnector(principal, input, prisma);
    revalidatePath("/settings/connectors");
    return done;
  },
);

/** Starts a pull (a job); the page polls its progress. */
export const startPullAction = validatedAction(
  z.object({ connectorId: z.string().min(1), filter: PullFilterInput, schedule: PullSchedule.optional() }),
  async (principal, input, prisma) => {
    const pull = await startPull(principal, input, prisma);
    revalidatePath("/settings/connectors");
    return pull;
  },
);

/** Stops a pull after the trace it is on. */
export const cancelPullAction = validatedAction(PullRef, async (principal, input, prisma) => {
  const pull = await cancelPull(principal, input, prisma);
  revalidatePath("/settings/connectors");
  return pull;
});
