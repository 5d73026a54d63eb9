/**
 * RCA reports and their share links (DESIGN §6). A report is written once with
 * the snapshot of everything it shows; nothing here updates a report. Share
 * links store only the SHA-256 of their token.
 */
import { AppError, notFound } from "@/lib/errors";
import type { ReportDocument } from "@/lib/reports/export";
import { ReportSections, ReportSectionsInput, ReportTitle } from "@/lib/reports/sections";
import {
  expiryDate,
  hashShareToken,
  isShareTokenShape,
  newShareToken,
  shareState,
  type ExpiresIn,
  type ShareState,
} from "@/lib/reports/share";
import { buildReportSnapshot, readSnapshot, unknownPins } from "@/lib/reports/snapshot";
import type { DbClient } from "./client";
import type { Prisma } from "./generated/client";
import { isTerminal, loadReplayView } from "./replays";

function json(value: unknown): Prisma.InputJsonValue {
  return value as Prisma.InputJsonValue;
}

export interface NewReport {
  replayId: string;
  title: string;
  sections: ReportSectionsInput;
  createdBy: string;
}

/**
 * Creates a report from a finished replay: the snapshot is built now and never
 * changes. 404 for an unknown replay, 409 for one that has not finished, 400
 * for pins that are not pairs of its comparison.
 */
export async function createReport(client: DbClient, input: NewReport, now = new Date()): Promise<ReportDocument> {
  const title = ReportTitle.parse(input.title);
  const sectionsIn = ReportSectionsInput.parse(input.sections);
  const view = await loadReplayView(client, input.replayId);
  if (!view) throw notFound("replay", input.replayId, "replayId");
  if (!isTerminal(view.replay.status)) {
    throw new AppError(
      "wrong_state",
      `The replay is ${view.replay.status.replaceAll("_", " ")}: a report needs a finished replay. Supply the pending fixture or approval and let it finish, then create the report.`,
    );
  }
  const unknown = unknownPins(view.comparison, sectionsIn.pinnedPairs);
  if (unknown.length > 0) {
    throw new AppError(
      "invalid_input",
      "Some pinned steps are not pairs of this replay's comparison.",
      unknown.map((id) => ({ path: "sections.pinnedPairs", message: `unknown pair '${id}'` })),
    );
  }
  const snapshot = buildReportSnapshot(view, sectionsIn.pinnedPairs, now);
  const sections = ReportSections.parse({
    ...sectionsIn,
    validity: sectionsIn.validity ?? snapshot.suggestedValidity.label,
    pinnedPairs: snapshot.pinnedPairs,
  });
  const row = await client.report.create({
    data: {
      replayId: view.replay.id,
      title,
      sections: json(sections),
      snapshot: json(snapshot),
      createdBy: input.createdBy,
      createdAt: now,
    },
  });
  return {
    id: row.id,
    title: row.title,
    createdAt: row.createdAt.toISOString(),
    createdBy: row.createdBy,
    sections,
    snapshot,
  };
}

type ReportRow = {
  id: string;
  title: string;
  sections: unknown;
  snapshot: unknown;
  createdBy: string | null;
  createdAt: Date;
};

function toDocument(row: ReportRow): ReportDocument {
  const snapshot = readSnapshot(row.snapshot);
  if (!snapshot) throw new Error(`report ${row.id} has a snapshot of an unknown version`);
  return {
    id: row.id,
    title: row.title,
    createdAt: row.createdAt.toISOString(),
    createdBy: row.createdBy,
    sections: ReportSections.parse(row.sections),
    snapshot,
  };
}

export async function getReport(client: DbClient, id: string): Promise<ReportDocument | null> {
  if (typeof id !== "string" || id === "") return null;
  const row = await client.report.findUnique({ where: { id } });
  return row ? toDocument(row) : null;
}

export interface ReportListItem {
  id: string;
  title: string;
  createdAt: Date;
  createdBy: string | null;
  replayId: string | null;
  sessionLabel: string;
  validity: string;
  strength: string;
  comparability: string | null;
  activeShares: number;
}

export async function listReports(client: DbClient, opts: { limit?: number; cursor?: string } = {}, now = new Date()) {
  const limit = Math.min(Math.max(opts.limit ?? 50, 1), 200);
  const rows = await client.report.findMany({
    orderBy: [{ createdAt: "desc" }, { id: "desc" }],
    take: limit + 1,
    ...(opts.cursor ? { cursor: { id: opts.cursor }, skip: 1 } : {}),
    include: { shares: { select: { revokedAt: true, expiresAt: true } } },
  });
  const hasMore = rows.length > limit;
  const page = hasMore ? rows.slice(0, limit) : rows;
  const reports: ReportListItem[] = page.map((r) => {
    const doc = toDocument(r);
    return {
      id: r.id,
      title: r.title,
      createdAt: r.createdAt,
      createdBy: r.createdBy,
      replayId: r.replayId,
      sessionLabel: doc.snapshot.session.label,
      validity: doc.sections.validity,
      strength: doc.snapshot.evidence.strength,
      comparability: doc.snapshot.replay.comparability,
      activeShares: r.shares.filter((s) => shareState(s, now) === "active").length,
    };
  });
  return { reports, nextCursor: hasMore ? (page.at(-1)?.id ?? null) : null };
}

// ---------------------------------------------------------------------------
// Share links

export interface ShareLinkView {
  id: string;
  reportId: string;
  createdAt: Date;
  expiresAt: Date | null;
  revokedAt: Date | null;
  state: ShareState;
}

/** Creates a share link. The token is returned here once; only its hash is stored. */
export async function createShareLink(
  client: DbClient,
  reportId: string,
  expiresIn: ExpiresIn,
  now = new Date(),
): Promise<{ share: ShareLinkView; token: string }> {
  if (typeof reportId !== "string" || reportId === "") throw new AppError("not_found", "No such report.");
  const report = await client.report.findUnique({ where: { id: reportId }, select: { id: true } });
  if (!report) throw notFound("report", reportId);
  const token = newShareToken();
  const row = await client.shareLink.create({
    data: {
      reportId: report.id,
      tokenHash: hashShareToken(token),
      expiresAt: expiryDate(expiresIn, now),
      createdAt: now,
    },
  });
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
export async function revokeShareLink(client: DbClient, shareId: string, now = new Date()): Promise<ShareLinkView> {
  if (typeof shareId !== "string" || shareId === "") throw new AppError("not_found", "No such share link.");
  const existing = await client.shareLink.findUnique({ where: { id: shareId } });
  if (!existing) throw notFound("share link", shareId);
  const row = existing.revokedAt
    ? existing
    : await client.shareLink.update({ where: { id: existing.id }, data: { revokedAt: now } });
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
  const row = await client.report.findUnique({ where: { id: link.reportId } });
  return row ? toDocument(row) : null;
}

/** The replay a report still points at (null once that replay is gone). */
export async function reportReplayId(client: DbClient, reportId: string): Promise<string | null> {
  const row = await client.report.findUnique({ where: { id: reportId }, select: { replayId: true } });
  return row?.replayId ?? null;
}
