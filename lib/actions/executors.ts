"use server";

import { revalidatePath } from "next/cache";
import type { Db } from "@/lib/db";
import { validatedAction } from "@/lib/http/action";
import type { Principal } from "@/lib/server/principal";
import {
  addAllowedHost,
  AllowedHostInput,
  ModelEndpointInput,
  removeExecutorSetting,
  RemoveExecutorSettingInput,
  saveModelEndpoint,
  saveToolEndpoint,
  ToolEndpointInput,
} from "@/lib/server/executors/executors";

/** Runs an operation and refreshes the settings page. */
function andRefresh<I, T>(op: (principal: Principal, input: I, prisma: Db) => Promise<T>) {
  return async (principal: Principal, input: I, prisma: Db) => {
    const value = await op(principal, input, prisma);
    revalidatePath("/settings/executors");
    return value;
  };
}

export const saveModelEndpointAction = validatedAction(ModelEndpointInput, andRefresh(saveModelEndpoint));
export const saveToolEndpointAction = validatedAction(ToolEndpointInput, andRefresh(saveToolEndpoint));
export const addAllowedHostAction = validatedAction(AllowedHostInput, andRefresh(addAllowedHost));
export const removeExecutorSettingAction = validatedAction(
  RemoveExecutorSettingInput,
  andRefresh(removeExecutorSetting),
);
