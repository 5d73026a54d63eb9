/** Comments on reports: a team member's words on a report, signed. */
import type { DbClient } from "./client";

export type ReportCommentRow = {
  id: string;
  reportId: string;
  body: string;
  author: string;
  authorId: string | null;
  createdAt: Date;
};

/** The most comments a report's page and answer list, oldest first. */
export const MAX_REPORT_COMMENTS = 500;

export async function reportComments(client: DbClient, reportId: string): Promise<ReportCommentRow[]> {
  return client.reportComment.findMany({
    where: { reportId },
    orderBy: [{ createdAt: "asc" }, { id: "asc" }],
    take: MAX_REPORT_COMMENTS,
  });
}

export async function insertReportComment(
  client: DbClient,
  data: Omit<ReportCommentRow, "id" | "createdAt">,
): Promise<ReportCommentRow> {
  return client.reportComment.create({ data });
}

export async function findReportComment(client: DbClient, id: string): Promise<ReportCommentRow | null> {
  return client.reportComment.findUnique({ where: { id } });
}

export async function removeReportComment(client: DbClient, id: string): Promise<void> {
  await client.reportComment.deleteMany({ where: { id } });
}

export async function reportExists(client: DbClient, id: string): Promise<boolean> {
  return (await client.report.findUnique({ where: { id }, select: { id: true } })) !== null;
}
