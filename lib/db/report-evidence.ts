/** Evidence added to draft reports from investigations and coverage. */
import { AppError, notFound } from "@/lib/errors";
import type { EvidenceSnapshot, ReportEvidenceItem } from "@/lib/reports/evidence";
import { refuseUnlessDraft } from "@/lib/reports/lifecycle";
import { readSnapshot, sessionLabelOf } from "@/lib/reports/snapshot";
import type { DbClient } from "./client";
import type { Prisma } from "./generated/client";
import { findReportRow, toEvidenceItem } from "./reports";

function json(value: unknown): Prisma.InputJsonValue {
  return value as Prisma.InputJsonValue;
}

export interface NewEvidence {
  kind: ReportEvidenceItem["kind"];
  /** Its source, once per report: investigation:<id>, replay:<id> or experiment:<id>. */
  sourceKey: string;
  snapshot: EvidenceSnapshot;
  policyHash: string | null;
}

/**
 * The draft a principal may add evidence to: 404 for an unknown report, 409 once published (published reports
 * never change), 403 when it is someone else's and the principal is not an admin.
 */
export async function evidenceTarget(
  client: DbClient,
  reportId: string,
  actor: { userId: string | null; isAdmin: boolean },
): Promise<{ id: string; session: { id: string; label: string } }> {
  const row = await findReportRow(client, reportId);
  refuseUnlessDraft(row, "given more evidence");
  // A draft without an author account (written with an admin key, or before accounts) has no author to check:
  // anyone who may write reports (analysts and admins) may add to it.
  if (!actor.isAdmin && row.createdById !== null && row.createdById !== actor.userId)
    throw new AppError(
      "forbidden",
      `Report "${row.id}" is ${row.createdBy ?? "someone else"}'s draft: only its author or an admin may add evidence to it.`,
      [{ path: "reportId", message: "not your report" }],
    );
  const snapshot = readSnapshot(row.snapshot);
  if (!snapshot) throw new Error(`report ${row.id} has a snapshot of an unknown version`);
  return { id: row.id, session: { id: snapshot.session.id, label: snapshot.session.label } };
}

/** Whether a replay of `sessionId` is a member of the experiment. */
export async function experimentHasSession(client: DbClient, experimentId: string, sessionId: string) {
  return (await client.replay.count({ where: { experimentId, sessionId }, take: 1 })) > 0;
}

/**
 * Adds one item to a draft (checked with `evidenceTarget` first); 409 when that source is already in it.
 * Run it in a transaction: marking the draft changed holds its row until the insert is committed.
 */
export async function addReportEvidence(
  client: DbClient,
  reportId: string,
  item: NewEvidence,
  addedBy: string,
  now = new Date(),
): Promise<ReportEvidenceItem> {
  const existing = await client.reportEvidence.findUnique({
    where: { reportId_sourceKey: { reportId, sourceKey: item.sourceKey } },
    select: { id: true },
  });
  if (existing)
    throw new AppError("conflict", "This is already evidence in that report.", [
      { path: "reportId", message: "already added" },
    ]);
  // Only while the report is still a draft: a publish that won the race keeps the report as published.
  const draft = await client.report.updateMany({ where: { id: reportId, status: "draft" }, data: { updatedAt: now } });
  if (draft.count === 0) refuseUnlessDraft(await findReportRow(client, reportId), "given more evidence");
  try {
    const row = await client.reportEvidence.create({
      data: {
        reportId,
        kind: item.kind,
        sourceKey: item.sourceKey,
        snapshot: json(item.snapshot),
        policyHash: item.policyHash,
        createdBy: addedBy,
        createdAt: now,
      },
    });
    return toEvidenceItem(row);
  } catch (error) {
    if ((error as { code?: string }).code === "P2002")
      throw new AppError("conflict", "This is already evidence in that report.", [
        { path: "reportId", message: "already added" },
      ]);
    throw error;
  }
}

/**
 * Removes an item from a draft: 404 for an unknown item, 409 once the report is published. Run it in a
 * transaction (as adding): marking the draft changed holds its row, so a publish waits and then sees the change.
 */
export async function removeReportEvidence(client: DbClient, reportId: string, evidenceId: string, now = new Date()) {
  const draft = await client.report.updateMany({ where: { id: reportId, status: "draft" }, data: { updatedAt: now } });
  if (draft.count === 0) refuseUnlessDraft(await findReportRow(client, reportId), "changed");
  const { count } = await client.reportEvidence.deleteMany({ where: { id: evidenceId, reportId } });
  if (count === 0) throw notFound("evidence", evidenceId, "evidenceId");
  return { id: evidenceId };
}

/** Drafts evidence may be added to by this principal (their own, or any for an admin), newest first. */
export async function draftReportsFor(
  client: DbClient,
  actor: { userId: string | null; isAdmin: boolean },
  about: { sessionId?: string; experimentId?: string } = {},
) {
  // By the session of the replay a draft was made from (a draft whose replay was deleted since is not offered).
  const onSession =
    about.sessionId !== undefined
      ? { replay: { sessionId: about.sessionId } }
      : about.experimentId !== undefined
        ? { replay: { session: { replays: { some: { experimentId: about.experimentId } } } } }
        : {};
  return client.report.findMany({
    where: {
      status: "draft",
      ...(actor.isAdmin ? {} : { OR: [{ createdById: null }, { createdById: actor.userId ?? "" }] }),
      ...onSession,
    },
    orderBy: [{ createdAt: "desc" }, { id: "desc" }],
    take: 50,
    select: { id: true, title: true, createdBy: true },
  });
}

/** A session's id and label (title, else its external id, else its id), or null. */
export async function sessionLabel(client: DbClient, id: string): Promise<{ id: string; label: string } | null> {
  const row = await client.session.findUnique({ where: { id }, select: { id: true, title: true, externalId: true } });
  return row ? { id: row.id, label: sessionLabelOf(row) } : null;
}
