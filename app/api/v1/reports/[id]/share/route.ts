import { z } from "zod";
import { env } from "@/lib/env";
import { route } from "@/lib/http/route";
import { ExpiresIn } from "@/lib/reports/share";
import { createShare } from "@/lib/server/reports/reports";

export const dynamic = "force-dynamic";

const Body = z.strictObject({ expiresIn: ExpiresIn.default("7d") });

/** POST /api/v1/reports/:id/share → 201 `{ share: { id, url, expiresAt } }`. The URL holds the token; it is shown only here. */
export const POST = route<{ id: string }, undefined, typeof Body>(
  { accept: ["api_key"], body: Body },
  async ({ request, body: { expiresIn }, prisma, params, principal }) => {
    const baseUrl = env().BRANCHPOINT_PUBLIC_URL ?? new URL(request.url).origin;
    const { share, url } = await createShare(principal, { reportId: params.id, expiresIn, baseUrl }, prisma);
    return Response.json(
      { share: { id: share.id, url, expiresAt: share.expiresAt, createdAt: share.createdAt, state: share.state } },
      { status: 201, headers: { "Cache-Control": "no-store" } },
    );
  },
);
