/**
 * Investigations and coverage as report evidence, called as operations on real databases: an item is frozen with
 * its policy hash and author, shows in the report (and its share), and every refusal writes nothing.
 */
import { loadReplayView } from "@/lib/db/replays-testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { claimInvestigation, finishInvestigation, insertInvestigation } from "@/lib/db/investigations";
import { createShareLink, findSharedReport } from "@/lib/db/report-shares";
import { TEST_ENGINES, type TestDatabase } from "@/lib/db/testing";
import { AppError, parseInput } from "@/lib/errors";
import { policyHash, type Policy } from "@/lib/replay";
import { reportToMarkdown } from "@/lib/reports/export";
import { getReplayCoverage } from "../replays/coverage";
import * as experiments from "../experiments/experiments";
import { localAdmin } from "../principal";
import type { Principal } from "../principal";
import * as reports from "./reports";
import { importSession, RECORDED, refundCopy, refundDatabase, refusal, replayOf, savePolicy, user } from "../testing";

const BLAME_POLICY: Policy = {
  model: "recorded-until-divergence",
  drift: "continue_to_terminal",
  maxSteps: 200,
  maxLiveCalls: 18,
  tools: { default: { type: "history", scope: "baseline", on_miss: "error_result" } },
};

const ana = user("u-ana", "Ana");
const ben = user("u-ben", "Ben");
const vic = user("u-vic", "Vic", "viewer");
const root = user("u-root", "Root", "admin");

describe.each(TEST_ENGINES)("report evidence on %s", (engine) => {
  let db: TestDatabase;
  let sessionId: string;
  let replayId: string;
  let blameId: string;
  let staleId: string;

  beforeAll(async () => {
    ({ db, sessionId } = await refundDatabase(engine, { as: ana }));
    // A stale check found the order lookup (base step 1) answers differently today.
    const stale = await insertInvestigation(db.prisma, {
      kind: "stale",
      sessionId,
      replayId: null,
      params: {
        checks: [],
        trials: 1,
        share: 1,
        modelEndpoint: null,
        policy: RECORDED,
        volatile: ["$.at"],
        skipped: [],
      },
      estimate: { probes: 1, trials: 1, replays: 0, maxLiveCallsPerTrial: 0, maxLiveCalls: 0, liveToolCalls: 1 },
      createdBy: "Ana",
    });
    await claimInvestigation(db.prisma, stale.id, "test-worker", 60_000);
    await finishInvestigation(db.prisma, stale.id, "test-worker", {
      status: "completed",
      probes: [{ seq: 1, tool: "lookup_order", state: "stale", paths: ["$.status"], ignored: ["$.at"] }],
      result: { kind: "checked", stale: 1, fresh: 0, unchecked: 0 },
    });
    staleId = stale.id;
    replayId = await replayOf(db.prisma, ana, sessionId);
    const blame = await insertInvestigation(db.prisma, {
      kind: "blame",
      sessionId,
      replayId: null,
      params: {
        checks: [{ name: "no refund", definition: { kind: "tool_not_called", tool: "refund_payment" } }],
        trials: 2,
        share: 1,
        modelEndpoint: "scripted",
        policy: BLAME_POLICY,
        modelSteps: [
          { seq: 0, name: "m" },
          { seq: 3, name: "m" },
          { seq: 5, name: "m" },
          { seq: 7, name: "m" },
        ],
      },
      estimate: { probes: 3, trials: 2, replays: 6, maxLiveCallsPerTrial: 18, maxLiveCalls: 108 },
      createdBy: "Ana",
    });
    await claimInvestigation(db.prisma, blame.id, "test-worker", 60_000);
    await finishInvestigation(db.prisma, blame.id, "test-worker", {
      status: "completed",
      probes: [
        { index: 0, modelStep: 0, baseSeq: 0, passes: 2, trials: 2, passRate: 1, fixes: true, replayIds: ["r1", "r2"] },
        { index: 2, modelStep: 2, baseSeq: 5, passes: 2, trials: 2, passRate: 1, fixes: true, replayIds: ["r3", "r4"] },
        {
          index: 3,
          modelStep: 3,
          baseSeq: 7,
          passes: 0,
          trials: 2,
          passRate: 0,
          fixes: false,
          replayIds: ["r5", "r6"],
        },
      ],
      result: { kind: "decided", modelStep: 2, baseSeq: 5, replayId: "r3" },
    });
    blameId = blame.id;
  });
  afterAll(async () => {
    await db?.drop();
  });

  const draftBy = (who: Principal, title: string) =>
    reports.createReport(who, parseInput(reports.CreateReportInput, { replayId, title }), db.prisma);
  const add = (who: Principal, raw: Record<string, unknown>) =>
    reports.addReportEvidence(who, parseInput(reports.AddEvidenceInput, raw), db.prisma);
  const evidenceCount = () => db.prisma.reportEvidence.count();

  it("a report on a replay that used a stale recording says so in its validity", async () => {
    const draft = await draftBy(ana, "Stale refund");
    expect(draft.snapshot.staleRecordings).toMatchObject({
      investigationId: staleId,
      used: [{ seq: 1, baseSeq: 1, tool: "lookup_order", paths: ["$.status"] }],
    });
    expect(draft.snapshot.staleRecordings?.checkedAt).toMatch(/^\d{4}-\d\d-\d\dT/);
    expect(draft.snapshot.suggestedValidity.reasons.at(-1)).toBe(
      "Step 1 used recorded answer that the tool no longer gives (a stale check found it changed): the finding may not hold against today's tools.",
    );
    expect(reportToMarkdown(draft)).toContain("- step 1: lookup_order (base step 1) differs today at $.status");
  });

  it("a blame search and a replay's coverage go into a draft with their policy hash and author, and into its share", async () => {
    const draft = await draftBy(ana, "Refund RCA");
    const blame = await add(ana, { reportId: draft.id, investigationId: blameId });
    expect(blame).toMatchObject({ kind: "blame", addedBy: "Ana", policyHash: policyHash(BLAME_POLICY) });
    expect(blame.snapshot).toMatchObject({
      kind: "blame",
      investigationId: blameId,
      checks: ["no refund"],
      decided: { modelStep: 2, baseSeq: 5, stepName: "called refund_payment" },
      branchReplayId: "r3",
      probes: [
        { modelStep: 0, passes: 2, trials: 2, fixes: true },
        { modelStep: 2, passes: 2, trials: 2, fixes: true },
        { modelStep: 3, passes: 0, trials: 2, fixes: false },
      ],
    });
    const coverage = await add(ana, { reportId: draft.id, coverage: { replayId } });
    const replay = (await loadReplayView(db.prisma, replayId))!;
    expect(coverage).toMatchObject({ kind: "coverage", addedBy: "Ana", policyHash: replay.replay.policyHash });
    const tools = (await getReplayCoverage(ana, { replayId }, db.prisma)).tools;
    expect(coverage.snapshot.kind === "coverage" && coverage.snapshot.tools.map((t) => [t.tool, t.calls])).toEqual(
      tools.map((t) => [t.tool, t.calls]),
    );
    const stale = await add(ana, { reportId: draft.id, investigationId: staleId });
    expect(stale).toMatchObject({ kind: "stale", policyHash: null, snapshot: { counts: { stale: 1, fresh: 0 } } });

    const read = await reports.getReport(ana, { reportId: draft.id }, db.prisma);
    expect(read.addedEvidence.map((e) => e.kind)).toEqual(["blame", "coverage", "stale"]);
    const md = reportToMarkdown(read);
    expect(md).toContain("#### Blame search: the failure is decided at model step 2 (base step 5)");
    expect(md).toContain(`- Policy hash: \`${policyHash(BLAME_POLICY)}\``);
    expect(md).toContain("- Added by Ana at ");

    await reports.updateReport(
      ana,
      parseInput(reports.UpdateReportInput, { reportId: draft.id, sections: { finding: "Step 5 decides it." } }),
      db.prisma,
    );
    await reports.publishReport(ana, { reportId: draft.id }, db.prisma);
    const { token } = await createShareLink(db.prisma, draft.id, "7d");
    const shared = await findSharedReport(db.prisma, token);
    expect(shared?.addedEvidence.map((e) => [e.kind, e.addedBy])).toEqual([
      ["blame", "Ana"],
      ["coverage", "Ana"],
      ["stale", "Ana"],
    ]);
    // Published: nothing more goes in, and nothing comes out.
    const before = await evidenceCount();
    await refusal(add(ana, { reportId: draft.id, coverage: { replayId } }), "wrong_state");
    await refusal(
      reports.removeReportEvidence(ana, { reportId: draft.id, evidenceId: blame.id }, db.prisma),
      "wrong_state",
    );
    expect(await evidenceCount()).toBe(before);
  });

  it("refuses what cannot be evidence, naming why, and writes nothing", async () => {
    const draft = await draftBy(ana, "Refusals");
    const before = await evidenceCount();
    const unknown = await refusal(add(ana, { reportId: draft.id, investigationId: "no-such" }), "not_found");
    expect(unknown.issues).toEqual([{ path: "investigationId", message: "unknown investigation" }]);
    await refusal(add(ana, { reportId: "no-such-report", investigationId: blameId }), "not_found");
    await refusal(add(ana, { reportId: draft.id, coverage: { experimentId: "no-such" } }), "not_found");
    const running = await insertInvestigation(db.prisma, {
      kind: "blame",
      sessionId,
      replayId: null,
      params: { checks: [], trials: 1, share: 1, modelEndpoint: null, policy: BLAME_POLICY },
      estimate: { probes: 1, trials: 1, replays: 1, maxLiveCallsPerTrial: 1, maxLiveCalls: 1 },
      createdBy: "Ana",
    });
    const notDone = await refusal(add(ana, { reportId: draft.id, investigationId: running.id }), "wrong_state");
    expect(notDone.message).toContain("The investigation is queued");
    // Someone else's draft: refused for another analyst and a viewer, allowed for an admin.
    const other = await refusal(add(ben, { reportId: draft.id, investigationId: blameId }), "forbidden");
    expect(other.message).toContain("Ana's draft");
    await refusal(add(vic, { reportId: draft.id, investigationId: blameId }), "forbidden");
    expect(() => parseInput(reports.AddEvidenceInput, { reportId: draft.id })).toThrow(AppError);
    expect(() =>
      parseInput(reports.AddEvidenceInput, { reportId: draft.id, investigationId: blameId, coverage: { replayId } }),
    ).toThrow(AppError);
    expect(await evidenceCount()).toBe(before);

    await add(root, { reportId: draft.id, investigationId: blameId });
    await refusal(add(ana, { reportId: draft.id, investigationId: blameId }), "conflict");
    expect(await evidenceCount()).toBe(before + 1);
    // The author's drafts are offered to them; another analyst is not offered this one.
    expect((await reports.evidenceDrafts(ana, {}, db.prisma)).map((d) => d.id)).toContain(draft.id);
    expect((await reports.evidenceDrafts(ben, {}, db.prisma)).map((d) => d.id)).not.toContain(draft.id);
    expect(await reports.evidenceDrafts(vic, {}, db.prisma)).toEqual([]);
  });

  it("refuses evidence about another session than the report's, naming both sessions, and writes nothing", async () => {
    const otherId = await importSession(db.prisma, ana, refundCopy("refund-other", "4821", "Another refund"));
    const otherReplay = { id: await replayOf(db.prisma, ana, otherId) };
    const otherStale = await insertInvestigation(db.prisma, {
      kind: "stale",
      sessionId: otherId,
      replayId: null,
      params: { checks: [], trials: 1, share: 1, modelEndpoint: null, policy: RECORDED, volatile: [], skipped: [] },
      estimate: { probes: 1, trials: 1, replays: 0, maxLiveCallsPerTrial: 0, maxLiveCalls: 0, liveToolCalls: 1 },
      createdBy: "Ana",
    });
    await claimInvestigation(db.prisma, otherStale.id, "test-worker", 60_000);
    await finishInvestigation(db.prisma, otherStale.id, "test-worker", {
      status: "completed",
      probes: [],
      result: { kind: "checked", stale: 0, fresh: 1, unchecked: 0 },
    });
    // Two finished experiments over the same agent version: one replayed only the other session.
    const { agentVersionId } = await db.prisma.session.findUniqueOrThrow({ where: { id: sessionId } });
    const versionId = await savePolicy(db.prisma, "evidence sessions", RECORDED);
    const experimentOver = async (name: string, sessionIds: string[]) => {
      const created = await experiments.createExperiment(
        ana,
        { name, policyVersionId: versionId, agentVersionId, sessionIds },
        db.prisma,
      );
      await experiments.runExperiment(ana, { experimentId: created.id }, db.prisma);
      expect((await db.prisma.experiment.findUniqueOrThrow({ where: { id: created.id } })).status).toBe("completed");
      return created.id;
    };
    const elsewhere = await experimentOver("Other refund only", [otherId]);
    const both = await experimentOver("Both refunds", [otherId, sessionId]);

    const draft = await draftBy(ana, "Own session only");
    const own = draft.snapshot.session;
    const before = await evidenceCount();
    const inv = await refusal(add(ana, { reportId: draft.id, investigationId: otherStale.id }), "invalid_input");
    expect(inv.message).toBe(
      `Investigation "${otherStale.id}" is about session "Another refund" (${otherId}), and report "${draft.id}" is about session "${own.label}" (${sessionId}): only evidence about the report's own session can go into it.`,
    );
    expect(inv.issues).toEqual([
      { path: "investigationId", message: `about session ${otherId}, not the report's ${sessionId}` },
    ]);
    const cov = await refusal(
      add(ana, { reportId: draft.id, coverage: { replayId: otherReplay.id } }),
      "invalid_input",
    );
    expect(cov.message).toBe(
      `Replay "${otherReplay.id}" is about session "Another refund" (${otherId}), and report "${draft.id}" is about session "${own.label}" (${sessionId}): only evidence about the report's own session can go into it.`,
    );
    expect(cov.status).toBe(400);
    const exp = await refusal(add(ana, { reportId: draft.id, coverage: { experimentId: elsewhere } }), "invalid_input");
    expect(exp.message).toBe(
      `Experiment "Other refund only" (${elsewhere}) replayed no run of session "${own.label}" (${sessionId}), the session report "${draft.id}" is about: only evidence about the report's own session can go into it.`,
    );
    // An admin is refused the same way: the rule is about the evidence, not who adds it.
    await refusal(add(root, { reportId: draft.id, investigationId: otherStale.id }), "invalid_input");
    expect(await evidenceCount()).toBe(before);

    // An experiment that replayed the report's session among others is evidence about it.
    expect(await add(ana, { reportId: draft.id, coverage: { experimentId: both } })).toMatchObject({
      kind: "coverage",
    });
    expect(await evidenceCount()).toBe(before + 1);

    // "Add to report" offers only the drafts that take the source: about its session, or one of the experiment's.
    const otherDraft = (
      await reports.createReport(
        ana,
        parseInput(reports.CreateReportInput, { replayId: otherReplay.id, title: "Other" }),
        db.prisma,
      )
    ).id;
    const offered = async (about: { sessionId?: string; experimentId?: string }) =>
      (await reports.evidenceDrafts(ana, about, db.prisma)).map((d) => d.id);
    expect(await offered({ sessionId: otherId })).toContain(otherDraft);
    expect(await offered({ sessionId: otherId })).not.toContain(draft.id);
    expect(await offered({ sessionId })).toContain(draft.id);
    expect(await offered({ sessionId })).not.toContain(otherDraft);
    expect(await offered({ experimentId: elsewhere })).toContain(otherDraft);
    expect(await offered({ experimentId: elsewhere })).not.toContain(draft.id);
    expect(await offered({ experimentId: both })).toEqual(expect.arrayContaining([draft.id, otherDraft]));
  });

  it("a draft without an author account takes evidence from any analyst or admin, never a viewer", async () => {
    // Written with the admin key: no account to check as its author.
    const draft = await draftBy(localAdmin("admin key"), "Keyless");
    expect((await db.prisma.report.findUniqueOrThrow({ where: { id: draft.id } })).createdById).toBeNull();
    const before = await evidenceCount();
    await refusal(add(vic, { reportId: draft.id, investigationId: blameId }), "forbidden");
    expect(await evidenceCount()).toBe(before);
    expect(await add(ben, { reportId: draft.id, investigationId: blameId })).toMatchObject({ addedBy: "Ben" });
    expect(await add(root, { reportId: draft.id, investigationId: staleId })).toMatchObject({ addedBy: "Root" });
    expect(await evidenceCount()).toBe(before + 2);
  });
});
