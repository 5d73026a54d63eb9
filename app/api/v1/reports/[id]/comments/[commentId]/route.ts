import { route } from "@/lib/http/route";
import { deleteReportComment } from "@/lib/server/reports/comments";

export const dynamic = "force-dynamic";

/** Deletes a comment (its author's, or any as an admin) → 204. */
export const DELETE = route<{ id: string; commentId: string }>(
  { accept: ["api_key"], authorize: "notes.write" },
  async ({ prisma, params, principal }) => {
    await deleteReportComment(principal, { reportId: params.id, commentId: params.commentId }, prisma);
    return new Response(null, { status: 204 });
  },
);
