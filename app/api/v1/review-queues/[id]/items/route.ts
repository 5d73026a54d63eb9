import { route } from "@/lib/http/route";
import { addReviewItems, listReviewItems, ReviewItemsBody, ReviewItemsQuery } from "@/lib/server/reviews/reviews";

export const dynamic = "force-dynamic";

/**
 * A page of the queue's items in the order they were added (`?status=pending|done|skipped&limit=1..200&cursor=`):
 * `{ items: [{ id, sessionId, session, status, assignee, addedBy, addedAt, completedBy, completedAt, annotationId }], nextCursor }`.
 */
export const GET = route<{ id: string }, typeof ReviewItemsQuery>(
  { accept: ["api_key"], query: ReviewItemsQuery },
  async ({ prisma, params, principal, query }) => {
    return Response.json(await listReviewItems(principal, { queueId: params.id, ...query }, prisma));
  },
);

/**
 * `{ sessionIds: [...], assigneeEmail? }` (at most 500) adds the sessions; one already in the queue stays as it
 * is → 200 `{ added, alreadyQueued, queue }`. An unknown session id refuses the whole list.
 */
export const POST = route<{ id: string }, undefined, typeof ReviewItemsBody>(
  { accept: ["api_key"], authorize: "notes.write", body: ReviewItemsBody },
  async ({ prisma, params, principal, body }) => {
    return Response.json(await addReviewItems(principal, { queueId: params.id, ...body }, prisma));
  },
);
