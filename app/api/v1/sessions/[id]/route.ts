import { apiRoute } from "@/lib/http/api";
import { presentSession } from "@/lib/http/present";
import { getSession } from "@/lib/server/sessions";

export const dynamic = "force-dynamic";

/** One session with its events in order: `{ session: { ..., events } }`. */
export const GET = apiRoute<{ id: string }>(async ({ prisma, params, principal }) => {
  const session = await getSession(principal, { sessionId: params.id }, prisma);
  return Response.json({ session: presentSession(session) });
});
