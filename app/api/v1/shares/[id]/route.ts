import { route } from "@/lib/http/route";
import { revokeShare } from "@/lib/server/reports/reports";

export const dynamic = "force-dynamic";

/** DELETE /api/v1/shares/:id revokes a share link → `{ share: { id, state, revokedAt } }`. Revoking twice is fine. */
export const DELETE = route<{ id: string }>({ accept: ["api_key"] }, async ({ prisma, params, principal }) => {
  const share = await revokeShare(principal, { shareId: params.id }, prisma);
  return Response.json({
    share: { id: share.id, state: share.state, revokedAt: share.revokedAt, expiresAt: share.expiresAt },
  });
});
