/**
 * RCA reports, their rows. A report starts as a draft:
 * its title, sections and pinned steps may be edited (the snapshot is rebuilt
 * from the replay, by lib/server/reports/report-snapshot.ts) and it may be deleted. Publishing freezes it; a published
 * report never changes again and only published reports can be shared. Share
 * links store only the SHA-256 of their token.
 */
import { AppError, notFound } from "@/lib/errors";
import type { ReportDocument } from "@/lib/reports/export";
import { ReportSections } from "@/lib/reports/sections";
import { refuseUnlessDraft, refuseUnpublishable, reportStatusOf, type ReportStatus } from "@/lib/reports/lifecycle";
import { shareState } from "@/lib/reports/share";
import type { EvidenceSnapshot, ReportEvidenceItem } from "@/lib/reports/evidence";
import { readSnapshot, type ReportSnapshot } from "@/lib/reports/snapshot";
import type { DbClient } from "./client";
import type { Prisma } from "./generated/client";

function json(value: unknown): Prisma.InputJsonValue {
  return value as Prisma.InputJsonValue;
}

/**
 * Stores a new report as built (lib/server/reports/report-snapshot.ts makes its snapshot and sections from
 * the replay): a draft, or published at once.
 */
export async function insertReport(
  client: DbClient,
  row: {
    replayId: string;
    title: string;
    sections: ReportSections;
    snapshot: ReportSnapshot;
    publish?: boolean;
    createdBy: string;
    createdById?: string | null;
  },
  now: Date,
): Promise<ReportDocument> {
  const created = await client.report.create({
    data: {
      replayId: row.replayId,
      title: row.title,
      sections: json(row.sections),
      snapshot: json(row.snapshot),
      status: row.publish ? "published" : "draft",
      publishedAt: row.publish ? now : null,
      createdBy: row.createdBy,
      createdById: row.createdById ?? null,
      createdAt: now,
      updatedAt: now,
    },
  });
  return toDocument(created);
}

/** Each branch step's kind, base step and source, in order: what tells which recordings it used. */
export async function replayStepSources(client: DbClient, replayId: string) {
  const rows = await client.replayStep.findMany({
    where: { replayId },
    orderBy: { idx: "asc" },
    select: { idx: true, kind: true, baseSeq: true, source: true },
  });
  return rows.map((r) => ({ seq: r.idx, kind: r.kind, baseSeq: r.baseSeq, source: r.source }));
}

/**
 * Writes a draft's edit: only a row that is still a draft is written, so a publish that won the race is
 * not undone (409, saying which). 404 for an unknown report.
 */
export async function saveReportEdit(
  client: DbClient,
  reportId: string,
  edit: { title: string; sections: ReportSections; snapshot: ReportSnapshot },
  now: Date,
): Promise<ReportDocument> {
  const { count } = await client.report.updateMany({
    where: { id: reportId, status: "draft" },
    data: { title: edit.title, sections: json(edit.sections), snapshot: json(edit.snapshot), updatedAt: now },
  });
  if (count === 0) {
    refuseUnlessDraft(await findReportRow(client, reportId), "edited");
    throw new AppError("conflict", "The draft changed while it was being saved; reload it and save again.");
  }
  return toDocument(await client.report.findUniqueOrThrow({ where: { id: reportId }, include: withEvidence }));
}

/** Publishes a draft: from now on it is immutable and may be shared. 400 without a Finding, 409 when already published. */
export async function publishReport(client: DbClient, reportId: string, now = new Date()): Promise<ReportDocument> {
  const existing = await findReportRow(client, reportId);
  refuseUnlessDraft(existing, "published again");
  refuseUnpublishable(toDocument(existing).sections);
  const { count } = await client.report.updateMany({
    where: { id: existing.id, status: "draft", updatedAt: existing.updatedAt },
    data: { status: "published", publishedAt: now, updatedAt: now },
  });
  if (count === 0) {
    // Edited or published meanwhile: say which, and publish nothing the analyst has not seen.
    const latest = await findReportRow(client, reportId);
    refuseUnlessDraft(latest, "published again");
    throw new AppError("conflict", "The draft changed while it was being published; reload it and publish again.");
  }
  return toDocument(await client.report.findUniqueOrThrow({ where: { id: existing.id }, include: withEvidence }));
}

/** Deletes a report (draft or published) with its share links. 404 for an unknown id. */
export async function deleteReport(client: DbClient, reportId: string): Promise<{ id: string; status: ReportStatus }> {
  const existing = await findReportRow(client, reportId);
  const { count } = await client.report.deleteMany({ where: { id: existing.id } });
  if (count === 0) throw notFound("report", reportId);
  return { id: existing.id, status: reportStatusOf(existing.status) };
}

export async function findReportRow(client: DbClient, reportId: string) {
  const row =
    typeof reportId === "string" && reportId !== ""
      ? await client.report.findUnique({ where: { id: reportId } })
      : null;
  if (!row) throw notFound("report", reportId);
  return row;
}

type ReportRow = {
  id: string;
  title: string;
  sections: unknown;
  snapshot: unknown;
  status: string;
  publishedAt: Date | null;
  createdBy: string | null;
  createdAt: Date;
  updatedAt: Date;
};

/** A report row with its added evidence, oldest first. */
export const withEvidence = { evidence: { orderBy: [{ createdAt: "asc" as const }, { id: "asc" as const }] } };

type EvidenceRow = {
  id: string;
  kind: string;
  snapshot: unknown;
  policyHash: string | null;
  createdBy: string | null;
  createdAt: Date;
};

export function toEvidenceItem(row: EvidenceRow): ReportEvidenceItem {
  return {
    id: row.id,
    kind: row.kind as ReportEvidenceItem["kind"],
    addedBy: row.createdBy,
    addedAt: row.createdAt.toISOString(),
    policyHash: row.policyHash,
    snapshot: row.snapshot as EvidenceSnapshot,
  };
}

export function toDocument(row: ReportRow & { evidence?: EvidenceRow[] }): ReportDocument {
  const snapshot = readSnapshot(row.snapshot);
  if (!snapshot) throw new Error(`report ${row.id} has a snapshot of an unknown version`);
  return {
    id: row.id,
    title: row.title,
    createdAt: row.createdAt.toISOString(),
    createdBy: row.createdBy,
    status: reportStatusOf(row.status),
    publishedAt: row.publishedAt?.toISOString() ?? null,
    updatedAt: row.updatedAt.toISOString(),
    sections: ReportSections.parse(row.sections),
    snapshot,
    addedEvidence: (row.evidence ?? []).map(toEvidenceItem),
  };
}

export async function getReport(client: DbClient, id: string): Promise<ReportDocument | null> {
  if (typeof id !== "string" || id === "") return null;
  const row = await client.report.findUnique({ where: { id }, include: withEvidence });
  return row ? toDocument(row) : null;
}

export interface ReportListItem {
  id: string;
  title: string;
  status: ReportStatus;
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
      status: doc.status,
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

/** The replay a report still points at (null once that replay is gone). */
export async function reportReplayId(client: DbClient, reportId: string): Promise<string | null> {
  const row = await client.report.findUnique({ where: { id: reportId }, select: { replayId: true } });
  return row?.replayId ?? null;
}
