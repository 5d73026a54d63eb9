import { route } from "@/lib/http/route";
import { presentSessionJson } from "@/lib/http/present";
import { streamedJson } from "@/lib/http/stream";
import { openSession, SessionRef } from "@/lib/server/sessions/sessions";

export const dynamic = "force-dynamic";

/**
 * One session with its events in order: `{ session: { ..., events } }`.
 * `?inputs=delta`: each model call's input holds only the messages it adds,
 * and `inputPrefix: { seq, count }` says they follow the first `count`
 * messages of event `seq`'s full input.
 *
 * Streamed: the events are read a window at a time and written as they are
 * read (full inputs rebuilt on the way), so time to first byte and server
 * memory do not grow with the session. A failure after the first byte cuts
 * the body (see lib/http/stream.ts); before it, the usual JSON error.
 */
const Query = SessionRef.pick({ inputs: true });

export const GET = route<{ id: string }, typeof Query>(
  { accept: ["api_key"], query: Query },
  async ({ query: { inputs }, prisma, params, principal }) => {
    const { head, rows } = await openSession(principal, { sessionId: params.id }, prisma);
    return streamedJson(presentSessionJson(head, rows, { inputs: inputs ?? "full" }), {
      where: `GET /api/v1/sessions/${params.id}`,
    });
  },
);
