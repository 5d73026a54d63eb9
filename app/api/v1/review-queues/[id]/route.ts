import { route } from "@/lib/http/route";
import { deleteReviewQueue, getReviewQueue } from "@/lib/server/reviews/reviews";

export const dynamic = "force-dynamic";

/** A review queue with its counts → `{ queue }`. */
export const GET = route<{ id: string }>({ accept: ["api_key"] }, async ({ prisma, params, principal }) => {
  return Response.json({ queue: await getReviewQueue(principal, { queueId: params.id }, prisma) });
});

/** Deletes a queue and its items (its maker's, or any as an admin); sessions and annotations stay → 204. */
export const DELETE = route<{ id: string }>(
  { accept: ["api_key"], authorize: "notes.write" },
  async ({ prisma, params, principal }) => {
    await deleteReviewQueue(principal, { queueId: params.id }, prisma);
    return new Response(null, { status: 204 });
  },
);
