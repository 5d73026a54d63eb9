import { revokeShareLink } from "@/lib/db/reports";
import { apiRoute } from "@/lib/http/api";

export const dynamic = "force-dynamic";

/** DELETE /api/v1/shares/:id revokes a share link → `{ share: { id, state, revokedAt } }`. Revoking twice is fine. */
export const DELETE = apiRoute<{ id: string }>("shares.manage", async ({ prisma, params, principal }) => {
  const share = await revokeShareLink(prisma, params.id, new Date(), { id: principal.userId, name: principal.name });
  return Response.json({
    share: { id: share.id, state: share.state, revokedAt: share.revokedAt, expiresAt: share.expiresAt },
  });
});
