import { route } from "@/lib/http/route";
import {
  readSessionConversation,
  searchSession,
  SessionSearchInput,
  SessionWindowInput,
} from "@/lib/server/sessions/session-pages";

export const dynamic = "force-dynamic";

const Query = SessionWindowInput.omit({ sessionId: true }).extend({ q: SessionSearchInput.shape.q.optional() });

/**
 * A session read as a conversation, a window of steps at a time: `{ items,
 * cursor, nextCursor }`, each message once where it first appears, tool calls
 * inline with their results, long texts cut (the step has them whole).
 * `?q=`: the messages that match, `{ items, matches, total }`, the first 200.
 */
export const GET = route<{ id: string }, typeof Query>(
  { accept: ["api_key"], query: Query },
  async ({ query: { q, ...window }, prisma, params, principal }) => {
    if (q !== undefined) {
      const found = await searchSession(principal, { sessionId: params.id, q, in: "chat" }, prisma);
      return Response.json({ items: found.items, matches: found.matches, total: found.total });
    }
    const page = await readSessionConversation(principal, { sessionId: params.id, ...window }, prisma);
    return Response.json({ items: page.items, cursor: page.cursor, nextCursor: page.nextCursor });
  },
);
