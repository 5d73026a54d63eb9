import { apiRoute, readQuery } from "@/lib/http/api";
import { presentSession } from "@/lib/http/present";
import { getSession, SessionRef } from "@/lib/server/sessions";

export const dynamic = "force-dynamic";

/**
 * One session with its events in order: `{ session: { ..., events } }`.
 * `?inputs=delta`: each model call's input holds only the messages it adds,
 * and `inputPrefix: { seq, count }` says they follow the first `count`
 * messages of event `seq`'s full input.
 */
export const GET = apiRoute<{ id: string }>(async ({ request, prisma, params, principal }) => {
  const { inputs } = readQuery(request, SessionRef.pick({ inputs: true }));
  const ref = { sessionId: params.id, inputs };
  const session = await getSession(principal, ref, prisma);
  return Response.json({ session: presentSession(session, { inputs: inputs ?? "full" }) });
});
