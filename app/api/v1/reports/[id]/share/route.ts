import { z } from "zod";
import { createShareLink } from "@/lib/db/reports";
import { env } from "@/lib/env";
import { apiRoute, readJson } from "@/lib/http/api";
import { ExpiresIn, shareUrl } from "@/lib/reports/share";

export const dynamic = "force-dynamic";

const Body = z.strictObject({ expiresIn: ExpiresIn.default("7d") });

/** POST /api/v1/reports/:id/share → 201 `{ share: { id, url, expiresAt } }`. The URL holds the token; it is shown only here. */
export const POST = apiRoute<{ id: string }>("shares.manage", async ({ request, prisma, params, principal }) => {
  const { expiresIn } = await readJson(request, Body);
  const { share, token } = await createShareLink(prisma, params.id, expiresIn, new Date(), { id: principal.userId, name: principal.name });
  const base = env().BRANCHPOINT_PUBLIC_URL ?? new URL(request.url).origin;
  return Response.json(
    {
      share: {
        id: share.id,
        url: shareUrl(base, token),
        expiresAt: share.expiresAt,
        createdAt: share.createdAt,
        state: share.state,
      },
    },
    { status: 201, headers: { "Cache-Control": "no-store" } },
  );
});
