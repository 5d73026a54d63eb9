import { route } from "@/lib/http/route";
import { createReviewQueue, listReviewQueues, ReviewQueueBody } from "@/lib/server/reviews/reviews";

export const dynamic = "force-dynamic";

/**
 * Every review queue, newest first, with its counts:
 * `{ queues: [{ id, name, description, labels, askScore, createdBy, createdAt, counts: { total, pending, done, skipped, mine } }] }`
 * (`mine`: pending items assigned to the key's user).
 */
export const GET = route({ accept: ["api_key"] }, async ({ prisma, principal }) => {
  return Response.json({ queues: await listReviewQueues(principal, {}, prisma) });
});

/** `{ name, description?, labels?, askScore? }` makes a queue signed by the key's user → 201 `{ queue }`. */
export const POST = route<Record<string, never>, undefined, typeof ReviewQueueBody>(
  { accept: ["api_key"], authorize: "notes.write", body: ReviewQueueBody },
  async ({ prisma, principal, body }) => {
    return Response.json({ queue: await createReviewQueue(principal, body, prisma) }, { status: 201 });
  },
);
