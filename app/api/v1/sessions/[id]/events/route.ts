import { z } from "zod";
import { route } from "@/lib/http/route";
import {
  listSessionSteps,
  searchSession,
  SessionSearchInput,
  SessionWindowInput,
} from "@/lib/server/sessions/session-pages";

export const dynamic = "force-dynamic";

const Query = SessionWindowInput.omit({ sessionId: true }).extend({
  q: SessionSearchInput.shape.q.optional(),
  in: z.enum(["steps", "names"]).optional(),
});

/**
 * A session's steps a window at a time, as summaries (no inputs or outputs):
 * `{ events, cursor, nextCursor }` for the steps from `cursor` (a seq, default
 * the first) up to `cursor + limit` (default 50, at most 500); a tool call
 * comes with the model call that asked for it. `?q=`: the steps that match
 * (`in=steps`, default: by their text, with their calls; `in=names`: by name
 * or kind), `{ events, matches, total }`, the first 200 of them.
 */
export const GET = route<{ id: string }, typeof Query>(
  { accept: ["api_key"], query: Query },
  async ({ query: { q, in: where, ...window }, prisma, params, principal }) => {
    if (q !== undefined) {
      const found = await searchSession(principal, { sessionId: params.id, q, in: where ?? "steps" }, prisma);
      return Response.json({ events: found.steps, matches: found.matches, total: found.total });
    }
    const page = await listSessionSteps(principal, { sessionId: params.id, ...window }, prisma);
    return Response.json({ events: page.steps, cursor: page.cursor, nextCursor: page.nextCursor });
  },
);
