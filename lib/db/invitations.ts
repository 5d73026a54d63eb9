import type { DbClient } from "./client";

/** Invitations to join the team: only the hash of a link's token is stored (see hashToken). */

export async function createInvitation(
  client: DbClient,
  input: { tokenHash: string; role: string; email: string | null; expiresAt: Date; createdBy: string },
) {
  return client.invitation.create({ data: input });
}

export async function findInvitationByTokenHash(client: DbClient, tokenHash: string) {
  return client.invitation.findUnique({ where: { tokenHash } });
}

/**
 * Marks the invitation used by `userId`, unless it was used already; says whether it did. Inside a
 * transaction a second acceptance of the same link waits for the first and then finds it used.
 */
export async function markInvitationAccepted(client: DbClient, id: string, userId: string): Promise<boolean> {
  const { count } = await client.invitation.updateMany({
    where: { id, acceptedAt: null },
    data: { acceptedAt: new Date(), acceptedUserId: userId },
  });
  return count === 1;
}

/** Invitations not yet used, withdrawn or expired, newest first. */
export async function listOpenInvitations(client: DbClient) {
  return client.invitation.findMany({
    where: { acceptedAt: null, revokedAt: null, expiresAt: { gt: new Date() } },
    orderBy: { createdAt: "desc" },
  });
}

/** Withdraws the invitation if it is still open (not used, not withdrawn); says whether it did. */
export async function revokeOpenInvitation(client: DbClient, id: string): Promise<boolean> {
  const { count } = await client.invitation.updateMany({
    where: { id, acceptedAt: null, revokedAt: null },
    data: { revokedAt: new Date() },
  });
  return count > 0;
}
