import { route } from "@/lib/http/route";
import { ReviewItemPatch, updateReviewItem } from "@/lib/server/reviews/reviews";

export const dynamic = "force-dynamic";

/**
 * `{ status?: "pending" | "done" | "skipped", assigneeEmail?: string | null }` → `{ item }`. Done needs an
 * annotation the key's user wrote on the session (POST /api/v1/sessions/:id/annotations first).
 */
export const PATCH = route<{ id: string; itemId: string }, undefined, typeof ReviewItemPatch>(
  { accept: ["api_key"], authorize: "notes.write", body: ReviewItemPatch },
  async ({ prisma, params, principal, body }) => {
    const item = await updateReviewItem(principal, { queueId: params.id, itemId: params.itemId, ...body }, prisma);
    return Response.json({ item });
  },
);
