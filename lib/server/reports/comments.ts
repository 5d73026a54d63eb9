/** Comments on a report: the team's words on it, signed, on its page (never on its share link). */
import { z } from "zod";
import type { Db } from "@/lib/db";
import {
  findReportComment,
  insertReportComment,
  removeReportComment,
  reportComments,
  reportExists,
  type ReportCommentRow,
} from "@/lib/db/report-comments";
import { notFound } from "@/lib/errors";
import { authorize } from "../authz";
import { refuseUnlessAuthor, typedText } from "../notes";
import type { Principal } from "../principal";

/** What the API's POST takes. */
export const ReportCommentBody = z.strictObject({ body: typedText("comment", 4000) });
export const ReportCommentInput = z.object({ reportId: z.string().min(1).max(64), body: typedText("comment", 4000) });
export type ReportCommentInput = z.infer<typeof ReportCommentInput>;

/** A comment as the page and the API show it. */
export function presentReportComment(c: ReportCommentRow) {
  return { id: c.id, body: c.body, author: c.author, createdAt: c.createdAt.toISOString() };
}
export type ReportCommentView = ReturnType<typeof presentReportComment>;

async function mustExist(prisma: Db, reportId: string) {
  if (!(await reportExists(prisma, reportId))) throw notFound("report", reportId);
}

/** A report's comments, oldest first. */
export async function listReportComments(principal: Principal, input: { reportId: string }, prisma: Db) {
  authorize(principal, "reports.read");
  await mustExist(prisma, input.reportId);
  return (await reportComments(prisma, input.reportId)).map(presentReportComment);
}

/** Adds a comment signed by the principal, on a draft or a published report alike. */
export async function addReportComment(principal: Principal, input: ReportCommentInput, prisma: Db) {
  authorize(principal, "notes.write");
  await mustExist(prisma, input.reportId);
  const row = await insertReportComment(prisma, {
    reportId: input.reportId,
    body: input.body,
    author: principal.name,
    authorId: principal.userId,
  });
  return presentReportComment(row);
}

/** Deletes a comment: its author's, or any as an admin. */
export async function deleteReportComment(
  principal: Principal,
  input: { reportId: string; commentId: string },
  prisma: Db,
) {
  authorize(principal, "notes.write");
  const row = await findReportComment(prisma, input.commentId);
  if (!row || row.reportId !== input.reportId) throw notFound("comment", input.commentId);
  refuseUnlessAuthor(principal, row, "comment");
  await removeReportComment(prisma, row.id);
}
