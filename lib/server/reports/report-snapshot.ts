/**
 * What a report holds of its replay: the snapshot of a finished replay's
 * comparison with the pairs it keeps whole, the recordings a later stale
 * check found out of date, and the sections as stored. Built when a report is
 * created and again when a draft's sections change; lib/db stores the result.
 */
import type { z } from "zod";
import type { DbClient } from "@/lib/db";
import { latestStaleCheck } from "@/lib/db/investigations";
import { loadReplayComparison, type ReplayComparisonView } from "@/lib/db/replay-comparison";
import { comparisonRowsAt, isTerminal } from "@/lib/db/replays";
import { findReportRow, insertReport, replayStepSources, saveReportEdit, toDocument } from "@/lib/db/reports";
import { AppError, notFound } from "@/lib/errors";
import { eventDelta, type AlignedPair, type Comparison } from "@/lib/replay";
import type { ReportDocument } from "@/lib/reports/export";
import { refuseUnlessDraft, refuseUnpublishable } from "@/lib/reports/lifecycle";
import { ReportSections, ReportSectionsInput, ReportTitle } from "@/lib/reports/sections";
import { buildReportSnapshot, staleRecordingsUsedBy, unknownPins } from "@/lib/reports/snapshot";

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

/**
 * Creates a report from a finished replay: the snapshot is built now and never
 * changes. 404 for an unknown replay, 409 for one that has not finished, 400
 * for pins that are not pairs of its comparison.
 */
export async function createReportFromReplay(
  client: DbClient,
  input: NewReport,
  now = new Date(),
): Promise<ReportDocument> {
  const title = ReportTitle.parse(input.title);
  const sectionsIn = ReportSectionsInput.parse(input.sections);
  if (input.publish) refuseUnpublishable(ReportSections.pick({ finding: true }).parse(sectionsIn));
  const { snapshot, sections } = await reportSnapshot(client, input.replayId, sectionsIn, now);
  return insertReport(
    client,
    {
      replayId: input.replayId,
      title,
      sections,
      snapshot,
      publish: input.publish,
      createdBy: input.createdBy,
      createdById: input.createdById,
    },
    now,
  );
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
export async function editReport(
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
      ({ snapshot, sections } = await reportSnapshot(client, existing.replayId, sectionsIn, now));
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
  return saveReportEdit(client, existing.id, { title, sections, snapshot }, now);
}

/** The snapshot of a finished replay with the given pins, and the sections as stored. */
async function reportSnapshot(
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
    ? staleRecordingsUsedBy(await replayStepSources(client, replayId), {
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
