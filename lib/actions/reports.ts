"use server";

import { revalidatePath } from "next/cache";
import { headers } from "next/headers";
import { z } from "zod";
import { env } from "@/lib/env";
import { validatedAction } from "@/lib/http/action";
import { ExpiresIn } from "@/lib/reports/share";
import { addReportComment, deleteReportComment, ReportCommentInput } from "@/lib/server/reports/comments";
import { listPairChoices, PairChoicesInput } from "@/lib/server/replays/comparison-pages";
import {
  AddEvidenceInput,
  addReportEvidence,
  RemoveEvidenceInput,
  removeReportEvidence,
  CreateReportInput,
  createReport,
  createShare,
  deleteReport,
  publishReport,
  ReportRef,
  revokeShare,
  ShareRef,
  updateReport,
  UpdateReportInput,
} from "@/lib/server/reports/reports";

/** Saves a new report as a draft. */
export const createReportAction = validatedAction(CreateReportInput, async (principal, input, prisma) => {
  const report = await createReport(principal, input, prisma);
  revalidatePath("/reports");
  return { id: report.id };
});

/** Saves an edited draft. */
export const updateReportAction = validatedAction(UpdateReportInput, async (principal, input, prisma) => {
  const report = await updateReport(principal, input, prisma);
  revalidatePath("/reports");
  revalidatePath(`/reports/${report.id}`);
  return { id: report.id };
});

/** Publishes a draft: immutable and shareable from now on. */
export const publishReportAction = validatedAction(ReportRef, async (principal, input, prisma) => {
  const report = await publishReport(principal, input, prisma);
  revalidatePath("/reports");
  revalidatePath(`/reports/${report.id}`);
  return { id: report.id, status: report.status };
});

/** Deletes a report (after the page asked for confirmation). */
export const deleteReportAction = validatedAction(ReportRef, async (principal, input, prisma) => {
  const deleted = await deleteReport(principal, input, prisma);
  revalidatePath("/reports");
  return deleted;
});

/** The base URL for share links: the configured public URL, else the host this request came to. */
async function baseUrl(): Promise<string> {
  const configured = env().BRANCHPOINT_PUBLIC_URL;
  if (configured) return configured;
  const h = await headers();
  const host = h.get("x-forwarded-host") ?? h.get("host") ?? "localhost";
  const proto = h.get("x-forwarded-proto") ?? "http";
  return `${proto}://${host}`;
}

const CreateShare = z.object({ reportId: z.string().min(1).max(64), expiresIn: ExpiresIn });

/** A new share link: the only time its URL (with the token) is shown. */
export const createShareAction = validatedAction(CreateShare, async (principal, input, prisma) => {
  const { share, url } = await createShare(principal, { ...input, baseUrl: await baseUrl() }, prisma);
  revalidatePath(`/reports/${input.reportId}`);
  return { id: share.id, url, expiresAt: share.expiresAt?.toISOString() ?? null };
});

export const revokeShareAction = validatedAction(ShareRef, async (principal, input, prisma) => {
  const share = await revokeShare(principal, input, prisma);
  revalidatePath(`/reports/${share.reportId}`);
  return { id: share.id, state: share.state };
});

/** Adds an investigation's result or a policy's coverage to a draft report as evidence. */
export const addReportEvidenceAction = validatedAction(AddEvidenceInput, async (principal, input, prisma) => {
  const evidence = await addReportEvidence(principal, input, prisma);
  revalidatePath(`/reports/${input.reportId}`);
  return { id: evidence.id, reportId: input.reportId };
});

/** Takes an item of evidence out of a draft report. */
export const removeReportEvidenceAction = validatedAction(RemoveEvidenceInput, async (principal, input, prisma) => {
  const removed = await removeReportEvidence(principal, input, prisma);
  revalidatePath(`/reports/${input.reportId}`);
  return removed;
});

/** One window of the comparison's pairs as the report form's picker lists them (no previews). */
export const pairChoicesAction = validatedAction(PairChoicesInput, listPairChoices);

/** Adds a comment to a report, signed by the user. */
export const addReportCommentAction = validatedAction(ReportCommentInput, addReportComment);

/** Deletes one of the user's comments on a report (an admin: any). */
export const deleteReportCommentAction = validatedAction(
  z.object({ reportId: z.string().min(1).max(64), commentId: z.string().min(1).max(64) }),
  deleteReportComment,
);
