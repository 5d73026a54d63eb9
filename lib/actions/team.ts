"use server";

import { revalidatePath } from "next/cache";
import { z } from "zod";
import { env } from "@/lib/env";
import { validatedAction } from "@/lib/http/action";
import { changeRole, inviteUser, RoleSchema, setDeactivated } from "@/lib/server/team/team";

const done = <T>(value: T) => {
  revalidatePath("/settings/team");
  return value;
};

export const inviteUserAction = validatedAction(
  z.object({ role: RoleSchema, email: z.string().trim().max(320).optional(), expiresInDays: z.number().int() }),
  async (principal, input, prisma) => {
    const invite = await inviteUser(prisma, principal, { ...input, email: input.email || undefined });
    const base = (env().BRANCHPOINT_PUBLIC_URL ?? "").replace(/\/$/, "");
    return done({
      url: `${base}/invite/${invite.token}`,
      role: invite.role,
      expiresAt: invite.expiresAt.toISOString(),
    });
  },
);

export const changeRoleAction = validatedAction(
  z.object({ userId: z.string().min(1), role: RoleSchema }),
  async (principal, input, prisma) => done(await changeRole(prisma, principal, input)),
);

export const setDeactivatedAction = validatedAction(
  z.object({ userId: z.string().min(1), deactivated: z.boolean() }),
  async (principal, input, prisma) => done(await setDeactivated(prisma, principal, input)),
);
