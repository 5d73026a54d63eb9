/** RCA reports from finished replays, and the revocable share links that open them read-only. */
import { z } from "zod";
import { withTransaction, type Db } from "@/lib/db";
import {
  createReport as insertReport,
  createShareLink as insertShareLink,
  deleteReport as removeReport,
  publishReport as markReportPublished,
  updateReport as writeReportEdit,
  findSharedReport,
  getReport as readReport,
  listReports as readReports,
  listShareLinks,
  reportReplayId,
  revokeShareLink as markShareRevoked,
} from "@/lib/db/reports";
import { notFound } from "@/lib/errors";
import { ReportSectionsInput, ReportTitle } from "@/lib/reports/sections";
import { ExpiresIn, shareUrl } from "@/lib/reports/share";
import { authorize } from "./authz";
import type { Principal } from "./principal";

export const CreateReportInput = z.strictObject({
  replayId: z.string().min(1).max(64),
  title: ReportTitle,
  sections: ReportSectionsInput.prefault({}),
  /** Publish at once (needs a Finding); otherwise the report is a draft. */
  publish: z.boolean().optional(),
});
export type CreateReportInput = z.infer<typeof CreateReportInput>;

/** A report from a finished replay: a draft, or published at once when asked (and it has a Finding). */
export async function createReport(principal: Principal, input: CreateReportInput, prisma: Db) {
  authorize(principal, "reports.write");
  return insertReport(prisma, { ...input, createdBy: principal.name });
}

export const UpdateReportInput = z
  .strictObject({
    reportId: z.string().min(1).max(64),
    title: ReportTitle.optional(),
    /** Replaces every section (pinned steps included); left out, the sections stay. */
    sections: ReportSectionsInput.optional(),
  })
  .refine((v) => v.title !== undefined || v.sections !== undefined, {
    message: 'Send a "title", "sections" or both.',
    path: ["title"],
  });
export type UpdateReportInput = z.infer<typeof UpdateReportInput>;

/** Edits a draft report; a published one is refused (409). */
export async function updateReport(principal: Principal, input: UpdateReportInput, prisma: Db) {
  authorize(principal, "reports.write");
  return writeReportEdit(prisma, input.reportId, { title: input.title, sections: input.sections });
}

/** Publishes a draft: it becomes immutable and shareable. Refused without a Finding (400) or when published (409). */
export async function publishReport(principal: Principal, input: ReportRef, prisma: Db) {
  authorize(principal, "reports.write");
  return markReportPublished(prisma, input.reportId);
}

/** Deletes a report, draft or published, and its share links (they stop opening it). */
export async function deleteReport(principal: Principal, input: ReportRef, prisma: Db) {
  authorize(principal, "reports.write");
  return removeReport(prisma, input.reportId);
}

export const ReportRef = z.object({ reportId: z.string().min(1).max(64) });
export type ReportRef = z.infer<typeof ReportRef>;

/** A report with its share links (without their tokens). */
export async function getReport(principal: Principal, input: ReportRef, prisma: Db) {
  authorize(principal, "reports.read");
  const report = await readReport(prisma, input.reportId);
  if (!report) throw notFound("report", input.reportId);
  return { ...report, shares: await listShareLinks(prisma, report.id) };
}

/** A report for its page: with its share links and the replay it still points at (null once deleted). */
export async function getReportPage(principal: Principal, input: ReportRef, prisma: Db) {
  authorize(principal, "reports.read");
  const report = await readReport(prisma, input.reportId);
  if (!report) throw notFound("report", input.reportId);
  const [shares, liveReplayId] = await Promise.all([
    listShareLinks(prisma, report.id),
    reportReplayId(prisma, report.id),
  ]);
  return { report, shares, liveReplayId };
}

export const ListReportsInput = z.object({
  limit: z.number().int().min(1).max(200).optional(),
  cursor: z.string().min(1).optional(),
});
export type ListReportsInput = z.infer<typeof ListReportsInput>;

/** Reports, newest first. */
export async function listReports(principal: Principal, input: ListReportsInput, prisma: Db) {
  authorize(principal, "reports.read");
  return readReports(prisma, input);
}

export const CreateShareInput = z.object({
  reportId: z.string().min(1).max(64),
  expiresIn: ExpiresIn.default("7d"),
  /** Where share links point: the configured public URL or the host the request came to. */
  baseUrl: z.string().min(1),
});
export type CreateShareInput = z.infer<typeof CreateShareInput>;

/** A new share link: the only time its URL (with the token) exists outside the database. */
export async function createShare(principal: Principal, input: CreateShareInput, prisma: Db) {
  authorize(principal, "shares.manage");
  const actor = { id: principal.userId, name: principal.name };
  const { share, token } = await withTransaction(prisma, (tx) =>
    insertShareLink(tx, input.reportId, input.expiresIn, new Date(), actor),
  );
  return { share, url: shareUrl(input.baseUrl, token) };
}

export const ShareRef = z.object({ shareId: z.string().min(1).max(64) });
export type ShareRef = z.infer<typeof ShareRef>;

/** Revokes a share link; revoking twice is fine. */
export async function revokeShare(principal: Principal, input: ShareRef, prisma: Db) {
  authorize(principal, "shares.manage");
  const actor = { id: principal.userId, name: principal.name };
  return withTransaction(prisma, (tx) => markShareRevoked(tx, input.shareId, new Date(), actor));
}

export const SharedReportRef = z.object({ token: z.string().max(200) });
export type SharedReportRef = z.infer<typeof SharedReportRef>;

/** The report a share link opens (read-only, no account), or null for a token that opens nothing (unknown, revoked, expired). */
export async function openSharedReport(principal: Principal, input: SharedReportRef, prisma: Db) {
  authorize(principal, "reports.read");
  return findSharedReport(prisma, input.token);
}
