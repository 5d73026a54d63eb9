import { getSession } from "@/lib/db";
import { ApiError, apiRoute } from "@/lib/http/api";
import { presentSession } from "../present";

export const dynamic = "force-dynamic";

/** One session with its events in order: `{ session: { ..., events } }`. */
export const GET = apiRoute<{ id: string }>("sessions.read", async ({ prisma, params }) => {
  const session = await getSession(prisma, params.id);
  if (!session) throw new ApiError(404, "not_found", `No session has the id '${params.id}'.`);
  return Response.json({ session: presentSession(session) });
});
