"use server";

import { revalidatePath } from "next/cache";
import { headers } from "next/headers";
import { z } from "zod";
import { createReport, createShareLink, revokeShareLink } from "@/lib/db/reports";
import { env } from "@/lib/env";
import { validatedAction } from "@/lib/http/action";
import { ReportSectionsInput, ReportTitle } from "@/lib/reports/sections";
import { ExpiresIn, shareUrl } from "@/lib/reports/share";

const CreateReport = z.object({
  replayId: z.string().min(1).max(64),
  title: ReportTitle,
  sections: ReportSectionsInput,
});

export const createReportAction = validatedAction("reports.write", CreateReport, async (input, prisma, principal) => {
  const report = await createReport(prisma, { ...input, createdBy: principal.name });
  revalidatePath("/reports");
  return { id: report.id };
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
export const createShareAction = validatedAction("shares.manage", CreateShare, async ({ reportId, expiresIn }, prisma, principal) => {
  const { share, token } = await createShareLink(prisma, reportId, expiresIn, new Date(), { id: principal.userId, name: principal.name });
  revalidatePath(`/reports/${reportId}`);
  return { id: share.id, url: shareUrl(await baseUrl(), token), expiresAt: share.expiresAt?.toISOString() ?? null };
});

const RevokeShare = z.object({ shareId: z.string().min(1).max(64) });

export const revokeShareAction = validatedAction("shares.manage", RevokeShare, async ({ shareId }, prisma, principal) => {
  const share = await revokeShareLink(prisma, shareId, new Date(), { id: principal.userId, name: principal.name });
  revalidatePath(`/reports/${share.reportId}`);
  return { id: share.id, state: share.state };
});
