/**
 * Share links of published reports: made, listed, revoked, and the report
 * behind a token. Links store only the SHA-256 of their token.
 */
import { AppError, notFound } from "@/lib/errors";
import { recordAudit } from "./audit";
import type { ReportDocument } from "@/lib/reports/export";
import {
  expiryDate,
  hashShareToken,
  isShareTokenShape,
  newShareToken,
  shareState,
  type ExpiresIn,
  type ShareState,
} from "@/lib/reports/share";
import type { DbClient } from "./client";
import { toDocument, withEvidence } from "./reports";

export interface ShareLinkView {
  id: string;
  reportId: string;
  createdAt: Date;
  expiresAt: Date | null;
  revokedAt: Date | null;
  /** Who made the link (null for links made before links named their author). */
  createdBy: string | null;
  state: ShareState;
}

/** Creates a share link. The token is returned here once; only its hash is stored. */
/** Who did it, for the audit log and the row's author. */
export type Actor = { id: string | null; name: string };

export async function createShareLink(
  client: DbClient,
  reportId: string,
  expiresIn: ExpiresIn,
  now = new Date(),
  actor: Actor | null = null,
): Promise<{ share: ShareLinkView; token: string }> {
  if (typeof reportId !== "string" || reportId === "") throw new AppError("not_found", "No such report.");
  const report = await client.report.findUnique({ where: { id: reportId }, select: { id: true, status: true } });
  if (!report) throw notFound("report", reportId);
  if (report.status !== "published")
    throw new AppError(
      "wrong_state",
      `Report "${report.id}" is a draft: publish it before sharing it (a shared report must not change under the reader).`,
    );
  const token = newShareToken();
  const row = await client.shareLink.create({
    data: {
      reportId: report.id,
      tokenHash: hashShareToken(token),
      expiresAt: expiryDate(expiresIn, now),
      createdAt: now,
      createdBy: actor?.name ?? null,
    },
  });
  if (actor) {
    await recordAudit(client, {
      actorId: actor.id,
      actorName: actor.name,
      action: "share.created",
      target: report.id,
      detail: { shareId: row.id, expiresAt: row.expiresAt?.toISOString() ?? null },
    });
  }
  return { share: { ...row, state: shareState(row, now) }, token };
}

export async function listShareLinks(client: DbClient, reportId: string, now = new Date()): Promise<ShareLinkView[]> {
  if (typeof reportId !== "string" || reportId === "") return [];
  const rows = await client.shareLink.findMany({
    where: { reportId },
    orderBy: [{ createdAt: "desc" }, { id: "desc" }],
  });
  return rows.map((r) => ({ ...r, state: shareState(r, now) }));
}

/** Revokes a link (idempotent: revoking twice keeps the first time). 404 for an unknown id. */
export async function revokeShareLink(
  client: DbClient,
  shareId: string,
  now = new Date(),
  actor: Actor | null = null,
): Promise<ShareLinkView> {
  if (typeof shareId !== "string" || shareId === "") throw new AppError("not_found", "No such share link.");
  const existing = await client.shareLink.findUnique({ where: { id: shareId } });
  if (!existing) throw notFound("share link", shareId);
  const row = existing.revokedAt
    ? existing
    : await client.shareLink.update({ where: { id: existing.id }, data: { revokedAt: now } });
  if (actor && !existing.revokedAt) {
    await recordAudit(client, {
      actorId: actor.id,
      actorName: actor.name,
      action: "share.revoked",
      target: existing.reportId,
      detail: { shareId: existing.id },
    });
  }
  return { ...row, state: shareState(row, now) };
}

/**
 * The report behind a share token, or null for anything but an active link:
 * unknown, malformed, revoked and expired tokens are indistinguishable to the
 * caller. Fails closed: a token of the wrong shape is never looked up.
 */
export async function findSharedReport(
  client: DbClient,
  token: unknown,
  now = new Date(),
): Promise<ReportDocument | null> {
  if (!isShareTokenShape(token)) return null;
  const tokenHash = hashShareToken(token);
  const link = await client.shareLink.findUnique({
    where: { tokenHash },
    select: { reportId: true, revokedAt: true, expiresAt: true },
  });
  if (!link || shareState(link, now) !== "active") return null;
  const row = await client.report.findUnique({ where: { id: link.reportId }, include: withEvidence });
  return row && row.status === "published" ? toDocument(row) : null;
}
