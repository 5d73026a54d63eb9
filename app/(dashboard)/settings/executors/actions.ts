"use server";

import { revalidatePath } from "next/cache";
import { z } from "zod";
import { validatedAction } from "@/lib/http/action";
import { AllowedHostInput, ModelEndpointInput, ToolEndpointInput } from "@/lib/replays/executor-settings";
import { putHost, putModel, putToolFromForm, removeExecutor } from "@/lib/server/executors-admin";

const done = <T>(value: T) => {
  revalidatePath("/settings/executors");
  return value;
};

export const saveModelEndpointAction = validatedAction("executors.manage", ModelEndpointInput, async (input, prisma, principal) =>
  done(await putModel(prisma, principal, input)),
);
export const saveToolEndpointAction = validatedAction("executors.manage", ToolEndpointInput, async (input, prisma, principal) =>
  done(await putToolFromForm(prisma, principal, input)),
);
export const addAllowedHostAction = validatedAction("executors.manage", AllowedHostInput, async (input, prisma, principal) =>
  done(await putHost(prisma, principal, input)),
);
export const removeExecutorSettingAction = validatedAction(
  "executors.manage",
  z.object({ kind: z.enum(["model", "tool", "host"]), id: z.string().min(1) }),
  async (input, prisma, principal) => {
    await removeExecutor(prisma, principal, input.kind, input.id);
    return done({ removed: input.id });
  },
);
