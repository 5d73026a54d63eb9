"use server";

import { publicAction } from "@/lib/http/action";
import { acceptInvitation, completeSetup } from "@/lib/server/team/team";

/** Creates the first admin with the setup link's token (works once, only while there is no account). */
export const completeSetupAction = publicAction((input, prisma) => completeSetup(prisma, input));

/** Creates an account from an invitation link (its role, its expiry). */
export const acceptInvitationAction = publicAction((input, prisma) => acceptInvitation(prisma, input));
