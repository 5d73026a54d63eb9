"use server";

import { revalidatePath } from "next/cache";
import { z } from "zod";
import { validatedAction } from "@/lib/http/action";
import {
  addAllowedHost,
  AllowedHostInput,
  ModelEndpointInput,
  removeExecutorSetting,
  saveModelEndpoint,
  saveToolEndpoint,
  ToolEndpointInput,
} from "@/lib/server/executors";

const done = <T>(value: T) => {
  revalidatePath("/settings/executors");
  return value;
};

export const saveModelEndpointAction = validatedAction(ModelEndpointInput, async (input, prisma) =>
  done(await saveModelEndpoint(prisma, input)),
);
export const saveToolEndpointAction = validatedAction(ToolEndpointInput, async (input, prisma) =>
  done(await saveToolEndpoint(prisma, input)),
);
export const addAllowedHostAction = validatedAction(AllowedHostInput, async (input, prisma) =>
  done(await addAllowedHost(prisma, input.host)),
);
export const removeExecutorSettingAction = validatedAction(
  z.object({ kind: z.enum(["model", "tool", "host"]), id: z.string().min(1) }),
  async (input, prisma) => {
    await removeExecutorSetting(prisma, input.kind, input.id);
    return done({ removed: input.id });
  },
);
