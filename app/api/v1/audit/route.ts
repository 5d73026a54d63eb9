import { route } from "@/lib/http/route";
import { readAuditLog } from "@/lib/server/team/team";

export const dynamic = "force-dynamic";

/** GET /api/v1/audit?action=&actor=&cursor=&limit=: `{ "events": [...], "nextCursor" }`, newest first (admins). */
export const GET = route({ accept: ["api_key"] }, async ({ request, prisma, principal }) => {
  const query = Object.fromEntries(new URL(request.url).searchParams.entries());
  return Response.json(await readAuditLog(prisma, principal, query));
});
