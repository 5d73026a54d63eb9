/**
 * RCA reports and their share links. A report starts as a draft:
 * its title, sections and pinned steps may be edited (the snapshot is rebuilt
 * from the replay) and it may be deleted. Publishing freezes it; a published
 * report never changes again and only published reports can be shared. Share
 * links store only the SHA-256 of their token.
 */
import type { z } from "zod";
import { AppError, notFound } from "@/lib/errors";
import type { ReportDocument } from "@/lib/reports/export";
import { ReportSections, ReportSectionsInput, ReportTitle } from "@/lib/reports/sections";
import { shareState } from "@/lib/reports/share";
import type { EvidenceSnapshot, ReportEvidenceItem } from "@/lib/reports/evidence";
import { buildReportSnapshot, readSnapshot, staleRecordingsUsedBy, unknownPins } from "@/lib/reports/snapshot";
import { latestStaleCheck } from "./investigations";
import type { DbClient } from "./client";
import type { Prisma } from "./generated/client";
import { eventDelta, type AlignedPair, type Comparison } from "@/lib/replay";
import { loadReplayComparison, type ReplayComparisonView } from "./replay-comparison";
import { comparisonRowsAt, isTerminal } from "./replays";

function json(value: unknown): Prisma.InputJsonValue {
  return value as Prisma.InputJsonValue;
}

export const REPORT_STATUSES = ["draft", "published"] as const;
export type ReportStatus = (typeof REPORT_STATUSES)[number];

export interface NewReport {
  replayId: string;
  title: string;
  sections: ReportSectionsInput;
  createdBy: string;
  /** The author's account (null for an admin key): with admins, the one who may add evidence to it. */
  createdById?: string | null;
  /** Publish at once (the Finding must be filled in); a draft otherwise. */
  publish?: boolean;
}

/** Why a report cannot be published, as issues (empty when it can). */
export function publishIssues(sections: Pick<ReportSections, "finding">): { path: string; message: string }[] {
  return sections.finding.trim() === ""
    ? [{ path: "sections.finding", message: "Write the Finding before publishing." }]
    : [];
}

function refuseUnpublishable(sections: Pick<ReportSections, "finding">): void {
  const issues = publishIssues(sections);
  if (issues.length > 0)
    throw new AppError(
      "invalid_input",
      "A report without a Finding cannot be published: say what went wrong first.",
      issues,
    );
}

/**
 * Creates a report from a finished replay: the snapshot is built now and never
 * changes. 404 for an unknown replay, 409 for one that has not finished, 400
 * for pins that are not pairs of its comparison.
 */
export async function createReport(client: DbClient, input: NewReport, now = new Date()): Promise<ReportDocument> {
  const title = ReportTitle.parse(input.title);
  const sectionsIn = ReportSectionsInput.parse(input.sections);
  if (input.publish) refuseUnpublishable(ReportSections.pick({ finding: true }).parse(sectionsIn));
  const { snapshot, sections } = await snapshotFor(client, input.replayId, sectionsIn, now);
  const row = await client.report.create({
    data: {
      replayId: input.replayId,
      title,
      sections: json(sections),
      snapshot: json(snapshot),
      status: input.publish ? "published" : "draft",
      publishedAt: input.publish ? now : null,
      createdBy: input.createdBy,
      createdById: input.createdById ?? null,
      createdAt: now,
      updatedAt: now,
    },
  });
  return toDocument(row);
}

/** The snapshot of a finished replay with the given pins, and the sections as stored. */
async function snapshotFor(
  client: DbClient,
  replayId: string,
  sectionsIn: z.output<typeof ReportSectionsInput>,
  now: Date,
) {
  const view = await loadReplayComparison(client, replayId);
  if (!view) throw notFound("replay", replayId, "replayId");
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
  const check = await latestStaleCheck(client, view.replay.sessionId);
  const staleRecordings = check
    ? staleRecordingsUsedBy(await stepSources(client, replayId), {
        id: check.id,
        finishedAt: check.finishedAt?.toISOString() ?? null,
        records: (check.probes ?? []) as { seq: number; tool: string; state: string; paths: string[] }[],
      })
    : null;
  const comparison = await withPairsWhole(client, view, sectionsIn.pinnedPairs);
  const snapshot = buildReportSnapshot({ ...view, comparison, staleRecordings }, sectionsIn.pinnedPairs, now);
  const sections = ReportSections.parse({
    ...sectionsIn,
    validity: sectionsIn.validity ?? snapshot.suggestedValidity.label,
    pinnedPairs: snapshot.pinnedPairs,
  });
  return { snapshot, sections };
}

/** Each branch step's kind, base step and source, in order: what tells which recordings it used. */
async function stepSources(client: DbClient, replayId: string) {
  const rows = await client.replayStep.findMany({
    where: { replayId },
    orderBy: { idx: "asc" },
    select: { idx: true, kind: true, baseSeq: true, source: true },
  });
  return rows.map((r) => ({ seq: r.idx, kind: r.kind, baseSeq: r.baseSeq, source: r.source }));
}

/**
 * The comparison with the pairs a report keeps (its first divergence and the
 * pinned ones) whole: both steps read in full and a changed pair's delta, as
 * the comparison of the whole runs has them. The other pairs stay as aligned
 * over digests: a report keeps only their ids, types and positions. So a
 * report reads its replay's rows once and the kept steps whole (each run's
 * earlier model calls once, when a kept model input is stored as a delta).
 */
async function withPairsWhole(
  client: DbClient,
  view: ReplayComparisonView,
  pinned: readonly string[],
): Promise<Comparison> {
  const kept = new Set([...pinned, ...(view.comparison.firstDivergence ? [view.comparison.firstDivergence.id] : [])]);
  const pairs = view.comparison.pairs.filter((p) => kept.has(p.id));
  const rows = await comparisonRowsAt(
    client,
    view.replay.id,
    pairs.flatMap((p) => (p.type === "inserted" ? [] : [p.base.seq])),
    pairs.flatMap((p) => (p.type === "removed" || p.type === "unreached" ? [] : [p.branch.seq])),
  );
  if (!rows) throw notFound("replay", view.replay.id, "replayId");
  const whole = new Map<string, AlignedPair>();
  for (const p of pairs) {
    const base = p.type === "inserted" ? null : rows.base.get(p.base.seq);
    const branch = p.type === "removed" || p.type === "unreached" ? null : rows.branch.get(p.branch.seq);
    if (base === undefined || branch === undefined)
      throw new AppError("wrong_state", "The replay's steps changed while the report was made: make it again.");
    whole.set(
      p.id,
      p.type === "changed"
        ? { ...p, base: base!, branch: branch!, delta: eventDelta(base!, branch!) }
        : p.type === "equal"
          ? { ...p, base: base!, branch: branch! }
          : p.type === "inserted"
            ? { ...p, branch: branch! }
            : { ...p, base: base! },
    );
  }
  return { ...view.comparison, pairs: view.comparison.pairs.map((p) => whole.get(p.id) ?? p) };
}

export interface ReportEdit {
  title?: string;
  sections?: ReportSectionsInput;
}

/**
 * Edits a draft: a new title and/or sections (sections replace the old ones
 * whole). The snapshot is rebuilt from the replay, so pins may change; once the
 * replay is deleted, only pins the report already holds may be kept. 404 for an
 * unknown report, 409 for a published one (published reports never change).
 */
export async function updateReport(
  client: DbClient,
  reportId: string,
  edit: ReportEdit,
  now = new Date(),
): Promise<ReportDocument> {
  const existing = await findReportRow(client, reportId);
  refuseUnlessDraft(existing, "edited");
  const current = toDocument(existing);
  const title = edit.title === undefined ? current.title : ReportTitle.parse(edit.title);
  let sections = current.sections;
  let snapshot = current.snapshot;
  if (edit.sections !== undefined) {
    const sectionsIn = ReportSectionsInput.parse(edit.sections);
    if (existing.replayId) {
      ({ snapshot, sections } = await snapshotFor(client, existing.replayId, sectionsIn, now));
    } else {
      const held = new Set(current.snapshot.pinnedPairs);
      const unknown = sectionsIn.pinnedPairs.filter((id) => !held.has(id));
      if (unknown.length > 0)
        throw new AppError(
          "invalid_input",
          "The replay of this report is deleted: only the steps already pinned can be kept.",
          unknown.map((id) => ({ path: "sections.pinnedPairs", message: `'${id}' is not pinned in this report` })),
        );
      const keep = new Set(sectionsIn.pinnedPairs);
      snapshot = { ...current.snapshot, pinnedPairs: current.snapshot.pinnedPairs.filter((id) => keep.has(id)) };
      sections = ReportSections.parse({
        ...sectionsIn,
        validity: sectionsIn.validity ?? current.sections.validity,
        pinnedPairs: snapshot.pinnedPairs,
      });
    }
  }
  // Only a row that is still a draft is written: a publish that won the race is not undone.
  const { count } = await client.report.updateMany({
    where: { id: existing.id, status: "draft" },
    data: { title, sections: json(sections), snapshot: json(snapshot), updatedAt: now },
  });
  if (count === 0) {
    refuseUnlessDraft(await findReportRow(client, reportId), "edited");
    throw new AppError("conflict", "The draft changed while it was being saved; reload it and save again.");
  }
  return toDocument(await client.report.findUniqueOrThrow({ where: { id: existing.id }, include: withEvidence }));
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
  return { id: existing.id, status: statusOf(existing.status) };
}

export async function findReportRow(client: DbClient, reportId: string) {
  const row =
    typeof reportId === "string" && reportId !== ""
      ? await client.report.findUnique({ where: { id: reportId } })
      : null;
  if (!row) throw notFound("report", reportId);
  return row;
}

export function refuseUnlessDraft(row: { id: string; status: string }, what: string): void {
  if (row.status !== "draft")
    throw new AppError(
      "wrong_state",
      `Report "${row.id}" is published and cannot be ${what}: published reports never change. Delete it or write a new one.`,
    );
}

function statusOf(value: string): ReportStatus {
  return value === "published" ? "published" : "draft";
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
    status: statusOf(row.status),
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
