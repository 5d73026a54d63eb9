/** RCA reports from finished replays, and the revocable share links that open them read-only. */
import { stepWords } from "@/lib/reports/step-words";
import { z } from "zod";
import { withTransaction, type Db } from "@/lib/db";
import { getExperiment as readExperiment } from "@/lib/db/experiments";
import { findInvestigation } from "@/lib/db/investigations";
import { getPolicyVersionById } from "@/lib/db/policies";
import { isTerminal, loadReplayMeta } from "@/lib/db/replays";
import { stepOutlines } from "@/lib/db/session-reads";
import {
  addReportEvidence as insertEvidence,
  draftReportsFor,
  evidenceTarget,
  experimentHasSession,
  removeReportEvidence as deleteEvidence,
  sessionLabel,
  type NewEvidence,
} from "@/lib/db/report-evidence";
import {
  createShareLink as insertShareLink,
  findSharedReport,
  listShareLinks,
  revokeShareLink as markShareRevoked,
} from "@/lib/db/report-shares";
import {
  deleteReport as removeReport,
  publishReport as markReportPublished,
  getReport as readReport,
  listReports as readReports,
  reportReplayId,
} from "@/lib/db/reports";
import { AppError, notFound } from "@/lib/errors";
import { Policy } from "@/lib/replay";
import { coverageEvidence, evidencePolicy, investigationEvidence, type EvidenceSnapshot } from "@/lib/reports/evidence";
import { sessionLabelOf } from "@/lib/reports/snapshot";
import { ReportSectionsInput, ReportTitle } from "@/lib/reports/sections";
import { ExpiresIn, shareUrl } from "@/lib/reports/share";
import { authorize } from "../authz";
import { createReportFromReplay, editReport } from "./report-snapshot";
import { getExperimentCoverage, getReplayCoverage } from "../replays/coverage";
import { resolveChecks } from "../checks/counterfactual";
import { presentInvestigation } from "../investigations/investigations";
import type { Principal } from "../principal";

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
  return createReportFromReplay(prisma, { ...input, createdBy: principal.name, createdById: principal.userId });
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
  return editReport(prisma, input.reportId, { title: input.title, sections: input.sections });
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

// ---------------------------------------------------------------------------
// Evidence from investigations and coverage

const Id = z.string().min(1).max(64);

export const AddEvidenceInput = z
  .strictObject({
    reportId: Id,
    /** A finished blame search, minimisation or stale check. */
    investigationId: Id.optional(),
    /** The policy coverage of a finished replay or experiment. */
    coverage: z.union([z.strictObject({ replayId: Id }), z.strictObject({ experimentId: Id })]).optional(),
  })
  .refine((v) => (v.investigationId === undefined) !== (v.coverage === undefined), {
    message: 'Send either "investigationId" or "coverage" ({ "replayId" } or { "experimentId" }).',
    path: ["investigationId"],
  });
export type AddEvidenceInput = z.infer<typeof AddEvidenceInput>;

type ReportSession = { id: string; label: string };

/** 400 for a source about another session than the report's, naming both. */
async function refuseOtherSession(
  prisma: Db,
  report: { id: string; session: ReportSession },
  source: { what: string; sessionId: string; path: string },
) {
  if (source.sessionId === report.session.id) return;
  const other = (await sessionLabel(prisma, source.sessionId)) ?? { id: source.sessionId, label: source.sessionId };
  throw new AppError(
    "invalid_input",
    `${source.what} is about session "${other.label}" (${other.id}), and report "${report.id}" is about session "${report.session.label}" (${report.session.id}): only evidence about the report's own session can go into it.`,
    [{ path: source.path, message: `about session ${other.id}, not the report's ${report.session.id}` }],
  );
}

/**
 * The frozen evidence of the source the input names; 404 when it does not exist, 409 when it has not finished, 400
 * when it is about another session than the report's (an experiment: when none of its members replayed that session).
 */
async function evidenceOf(
  principal: Principal,
  input: AddEvidenceInput,
  report: { id: string; session: ReportSession },
  prisma: Db,
): Promise<NewEvidence> {
  if (input.investigationId !== undefined) {
    authorize(principal, "investigations.read");
    const row = await findInvestigation(prisma, input.investigationId);
    if (!row) throw notFound("investigation", input.investigationId, "investigationId");
    const inv = presentInvestigation(row);
    await refuseOtherSession(prisma, report, {
      what: `Investigation "${inv.id}"`,
      sessionId: inv.sessionId,
      path: "investigationId",
    });
    if (inv.status !== "completed")
      throw new AppError(
        "wrong_state",
        `The investigation is ${inv.status}: only a finished one can be evidence. Wait for it to finish${inv.status === "queued" || inv.status === "running" ? "" : ", or run it again"}.`,
        [{ path: "investigationId", message: `investigation is ${inv.status}` }],
      );
    const session = (await sessionLabel(prisma, inv.sessionId)) ?? { id: inv.sessionId, label: inv.sessionId };
    // Only the steps a blame search names (its probes' and the deciding one), without their inputs.
    const named: unknown[] = [inv.result, ...(Array.isArray(inv.probes) ? (inv.probes as unknown[]) : [])];
    const namedSeqs = named
      .map((x) => (x && typeof x === "object" && "baseSeq" in x ? x.baseSeq : null))
      .filter((seq): seq is number => typeof seq === "number" && Number.isInteger(seq));
    const events = inv.kind === "blame" ? await stepOutlines(prisma, inv.sessionId, namedSeqs) : [];
    // Saved checks by their names today (a check deleted since keeps the reference it was run with).
    const checks = await resolveChecks(prisma, inv.params.checks).then(
      (named) => named.map((c) => c.name),
      () => inv.params.checks.map((c) => (typeof c === "string" ? c : (c.name ?? "unnamed check"))),
    );
    const snapshot = investigationEvidence(inv, {
      session,
      checks,
      stepName: (seq) => {
        const e = events.find((x) => x.seq === seq);
        return e ? stepWords(e) : null;
      },
    });
    return {
      kind: inv.kind,
      sourceKey: `investigation:${inv.id}`,
      snapshot,
      policyHash: snapshot.policy?.hash ?? null,
    };
  }
  const coverage = input.coverage!;
  if ("replayId" in coverage) {
    const view = await loadReplayMeta(prisma, coverage.replayId, { inputDrift: false });
    if (!view) throw notFound("replay", coverage.replayId, "coverage.replayId");
    await refuseOtherSession(prisma, report, {
      what: `Replay "${view.replay.id}"`,
      sessionId: view.session.id,
      path: "coverage.replayId",
    });
    if (!isTerminal(view.replay.status) && view.replay.status !== "paused")
      throw new AppError(
        "wrong_state",
        `The replay is ${view.replay.status}: its coverage is evidence once it has finished (or paused).`,
        [{ path: "coverage.replayId", message: `replay is ${view.replay.status}` }],
      );
    const tools = await getReplayCoverage(principal, { replayId: coverage.replayId }, prisma);
    const { replay } = view;
    const policy = evidencePolicy(
      Policy.parse(replay.policySnapshot),
      replay.policyVersion
        ? { policyName: replay.policyVersion.policyName, version: replay.policyVersion.version }
        : null,
      replay.policyHash,
    );
    const snapshot: EvidenceSnapshot = coverageEvidence(
      tools,
      { kind: "replay", replayId: replay.id },
      { id: view.session.id, label: sessionLabelOf(view.session) },
      policy,
      new Date().toISOString(),
    );
    return { kind: "coverage", sourceKey: `replay:${replay.id}`, snapshot, policyHash: policy.hash };
  }
  const experiment = await readExperiment(prisma, coverage.experimentId);
  if (!experiment) throw notFound("experiment", coverage.experimentId, "coverage.experimentId");
  if (experiment.status !== "completed")
    throw new AppError(
      "wrong_state",
      `The experiment is ${experiment.status}: its coverage is evidence once every member has finished.`,
      [{ path: "coverage.experimentId", message: `experiment is ${experiment.status}` }],
    );
  if (!(await experimentHasSession(prisma, experiment.id, report.session.id)))
    throw new AppError(
      "invalid_input",
      `Experiment "${experiment.name}" (${experiment.id}) replayed no run of session "${report.session.label}" (${report.session.id}), the session report "${report.id}" is about: only evidence about the report's own session can go into it.`,
      [{ path: "coverage.experimentId", message: `no replay of session ${report.session.id}` }],
    );
  const tools = await getExperimentCoverage(principal, { experimentId: experiment.id }, prisma);
  const version = await getPolicyVersionById(prisma, experiment.policyVersion.id);
  const policy = evidencePolicy(
    Policy.parse(version?.document),
    { policyName: experiment.policyVersion.policy.name, version: experiment.policyVersion.version },
    experiment.policyVersion.hash,
  );
  const { agent, version: agentVersion } = experiment.agentVersion;
  const snapshot = coverageEvidence(
    tools,
    { kind: "experiment", experimentId: experiment.id, name: experiment.name, replays: tools.replays },
    { id: "", label: `${tools.replays} sessions of ${agent.name} ${agentVersion}` },
    policy,
    new Date().toISOString(),
  );
  return { kind: "coverage", sourceKey: `experiment:${experiment.id}`, snapshot, policyHash: policy.hash };
}

/**
 * Adds an investigation's result or a policy's coverage to a draft report as evidence, frozen with its policy and
 * hash and naming who added it. 404 for an unknown report or source, 409 for a published report, an unfinished
 * source or one already in the report, 400 for a source about another session, 403 for someone else's draft
 * (admins may add to any; a draft without an author account takes evidence from any analyst or admin).
 */
export async function addReportEvidence(principal: Principal, input: AddEvidenceInput, prisma: Db) {
  authorize(principal, "reports.write");
  const report = await evidenceTarget(prisma, input.reportId, {
    userId: principal.userId,
    isAdmin: principal.role === "admin",
  });
  const item = await evidenceOf(principal, input, report, prisma);
  // One transaction: the draft check holds the report's row, so a publish cannot land between it and the insert.
  return withTransaction(prisma, (tx) => insertEvidence(tx, input.reportId, item, principal.name));
}

export const RemoveEvidenceInput = z.strictObject({ reportId: Id, evidenceId: Id });

/** Takes an item out of a draft report (same rights as adding one). */
export async function removeReportEvidence(
  principal: Principal,
  input: z.infer<typeof RemoveEvidenceInput>,
  prisma: Db,
) {
  authorize(principal, "reports.write");
  await evidenceTarget(prisma, input.reportId, { userId: principal.userId, isAdmin: principal.role === "admin" });
  return withTransaction(prisma, (tx) => deleteEvidence(tx, input.reportId, input.evidenceId));
}

/**
 * The drafts this principal may add evidence to (an empty list for a viewer); with `sessionId`, those about that
 * session, with `experimentId`, those about one of its members' sessions (the only ones that take its evidence).
 */
export async function evidenceDrafts(
  principal: Principal,
  input: { sessionId?: string; experimentId?: string },
  prisma: Db,
) {
  authorize(principal, "reports.read");
  if (principal.readOnly || principal.role === "viewer") return [];
  return draftReportsFor(prisma, { userId: principal.userId, isAdmin: principal.role === "admin" }, input);
}
