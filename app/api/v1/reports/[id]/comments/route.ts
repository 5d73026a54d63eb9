import { route } from "@/lib/http/route";
import { addReportComment, listReportComments, ReportCommentBody } from "@/lib/server/reports/comments";

export const dynamic = "force-dynamic";

/** A report's comments, oldest first: `{ comments: [{ id, body, author, createdAt }] }`. */
export const GET = route<{ id: string }>({ accept: ["api_key"] }, async ({ prisma, params, principal }) => {
  return Response.json({ comments: await listReportComments(principal, { reportId: params.id }, prisma) });
});

/** `{ body }` adds a comment signed by the key's user → 201 `{ comment }`. */
export const POST = route<{ id: string }, undefined, typeof ReportCommentBody>(
  { accept: ["api_key"], authorize: "notes.write", body: ReportCommentBody },
  async ({ prisma, params, principal, body }) => {
    const comment = await addReportComment(principal, { reportId: params.id, body: body.body }, prisma);
    return Response.json({ comment }, { status: 201 });
  },
);
