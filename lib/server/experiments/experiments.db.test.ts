import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadReplayView } from "@/lib/db/replays-testing";
import { savePolicyByName } from "@/lib/db/policies";
import { withTransaction } from "@/lib/db/transactions";
import { TEST_ENGINES, type TestDatabase } from "@/lib/db/testing";
import type { Db } from "@/lib/db";
import { type AppError, parseInput } from "@/lib/errors";
import { toolLevelPreset, wilsonInterval, type Policy } from "@/lib/replay";
import * as experiments from "./experiments";
import { localAdmin } from "../principal";
import * as replayInputs from "../replays/replay-inputs";
import * as replayReads from "../replays/replay-reads";
import * as replays from "../replays/replays";
import { demoDatabase, RECORDED, refusal } from "../testing";

// The operations, called directly with input parsed by their schemas (as every adapter does).
const createExperiment = async (prisma: Db, raw: unknown, by: string) =>
  experiments.createExperiment(localAdmin(by), parseInput(experiments.CreateExperimentInput, raw), prisma);
const loadExperiment = (prisma: Db, experimentId: string) =>
  experiments.getExperiment(localAdmin("reader"), { experimentId }, prisma);
const runExperiment = (prisma: Db, experimentId: string) =>
  experiments.runExperiment(localAdmin("runner"), { experimentId }, prisma);
const createReplay = async (prisma: Db, raw: unknown, by: string) =>
  replays.createReplay(localAdmin(by), parseInput(replayInputs.StartReplayInput, raw), prisma);

const COHORT: Policy = {
  model: "recorded-only",
  drift: "continue_to_terminal",
  tools: { default: { type: "history", scope: "cohort_version", on_miss: "fail" } },
};
const FIXTURES: Policy = {
  model: "recorded-only",
  drift: "continue_to_terminal",
  tools: toolLevelPreset("analyst-fixture"),
};

describe.each(TEST_ENGINES)("experiments on %s", (engine) => {
  let db: TestDatabase;
  let agentVersionId: string;
  let cohortIds: string[];

  async function saveVersion(name: string, document: Policy): Promise<string> {
    const saved = await withTransaction(db.prisma, (tx) => savePolicyByName(tx, { name, agentId: null, document }));
    return saved.versionId;
  }

  beforeAll(async () => {
    db = await demoDatabase(engine);
    const version = await db.prisma.agentVersion.findFirstOrThrow({
      where: { agent: { name: "tau-bench-airline-agent" } },
      select: { id: true },
    });
    agentVersionId = version.id;
    const sessions = await db.prisma.session.findMany({
      where: { agentVersionId, isReplay: false },
      select: { id: true },
    });
    cohortIds = sessions.map((s) => s.id);
    expect(cohortIds.length).toBeGreaterThanOrEqual(5);
    // Timings and costs on the recorded steps, so that members' cost and latency against their base runs count something.
    await db.prisma
      .$executeRaw`UPDATE "Event" SET "durationMs" = seq * 7 + 3, "costUsd" = CASE WHEN kind = 'model_call' THEN 0.00125 * (seq + 1) END WHERE "sessionId" = ANY(${cohortIds}::text[])`;
  });
  afterAll(async () => {
    await db?.drop();
  });

  /** Each finished member's cost and latency against its base are its comparison's. */
  async function expectDeltasOfComparisons(
    results: { replayId: string; deltas: { costUsd: number; latencyMs: number } | null }[],
  ) {
    for (const r of results) {
      const { metrics } = (
        await replayReads.getReplayComparison(localAdmin("reader"), { replayId: r.replayId }, db.prisma)
      ).comparison;
      expect(r.deltas!.latencyMs).toBe(metrics.latencyMs.delta);
      expect(r.deltas!.costUsd).toBeCloseTo(metrics.costUsd.delta, 12);
    }
  }

  it("runs a recorded-only policy over the τ-bench cohort: one replay per session, all exact, then completed", async () => {
    const policyVersionId = await saveVersion("recorded", RECORDED);
    const created = await createExperiment(
      db.prisma,
      { name: "τ-bench regression", policyVersionId, agentVersionId },
      "tester",
    );
    expect(created).toMatchObject({ status: "pending", total: cohortIds.length });
    const before = await loadExperiment(db.prisma, created.id);
    expect(before.summary).toMatchObject({ total: cohortIds.length, done: 0 });

    await runExperiment(db.prisma, created.id);
    const after = await loadExperiment(db.prisma, created.id);
    expect(after.status).toBe("completed");
    expect(after.finishedAt).not.toBeNull();
    expect(after.results.map((r) => r.session.id).sort()).toEqual([...cohortIds].sort());
    for (const r of after.results) {
      expect({
        session: r.session.label,
        status: r.status,
        comparability: r.comparability,
        strength: r.evidenceStrength,
        firstDivergence: r.firstDivergence,
      }).toEqual({
        session: r.session.label,
        status: "completed",
        comparability: "exact",
        strength: "recorded",
        firstDivergence: null,
      });
    }
    // Exact members' cost and latency (one query for the cohort) are their comparisons': nothing changed.
    await expectDeltasOfComparisons(after.results);
    expect(after.results.map((r) => r.deltas)).toEqual(after.results.map(() => ({ costUsd: 0, latencyMs: 0 })));
    // A step that took longer than recorded counts: the query reads what the comparison reads.
    const slower = after.results[0]!.replayId;
    await db.prisma
      .$executeRaw`UPDATE "ReplayStep" SET detail = jsonb_set(detail, '{durationMs}', to_jsonb((detail->>'durationMs')::int + 5)) WHERE "replayId" = ${slower} AND idx = 0`;
    const again = await loadExperiment(db.prisma, created.id);
    await expectDeltasOfComparisons(again.results);
    expect(again.results.find((r) => r.replayId === slower)!.deltas).toEqual({ costUsd: 0, latencyMs: 5 });
    expect(after.summary).toEqual({
      total: cohortIds.length,
      done: cohortIds.length,
      byComparability: { exact: cohortIds.length },
      byStatus: { completed: cohortIds.length },
      outcomes: null,
    });

    // It runs once: a second run changes nothing.
    const replayCount = await db.prisma.replay.count({ where: { experimentId: created.id } });
    await runExperiment(db.prisma, created.id);
    expect(await db.prisma.replay.count({ where: { experimentId: created.id } })).toBe(replayCount);
  });

  it("judges every member by the experiment's checks, base and branch: a branch cut short passes a step limit its base broke", async () => {
    // A limit every base run breaks: one step fewer than the shortest member's model and tool steps.
    const counts = await db.prisma.session.findMany({
      where: { id: { in: cohortIds } },
      select: { modelCallCount: true, toolCallCount: true },
    });
    const limit = Math.min(...counts.map((s) => s.modelCallCount + s.toolCallCount)) - 1;
    expect(limit).toBeGreaterThanOrEqual(3);
    const saved = await db.prisma.check.create({
      data: { name: "short", definition: { kind: "max_steps", max: limit }, createdBy: "tester" },
    });
    // The budget stops every branch after two model or tool steps.
    const policyVersionId = await saveVersion("cut short", { ...RECORDED, maxSteps: 2 });
    const inline = {
      name: "never books a flight twice",
      definition: { kind: "tool_not_called", tool: "no_such_tool" },
    };
    const created = await createExperiment(
      db.prisma,
      { name: "checked", policyVersionId, agentVersionId, checks: [saved.id, inline] },
      "tester",
    );
    await runExperiment(db.prisma, created.id);
    const after = await loadExperiment(db.prisma, created.id);
    const n = cohortIds.length;
    // Each member's cost and latency against its base are the comparison's (over the steps both runs covered).
    await expectDeltasOfComparisons(after.results);
    expect(after.results.map((r) => r.outcome)).toEqual(
      Array.from({ length: n }, () => ({ base: false, branch: true })),
    );
    expect(after.summary.outcomes).toEqual({
      checks: ["short", "never books a flight twice"],
      judged: n,
      unjudged: 0,
      base: wilsonInterval(0, n),
      branch: wilsonInterval(n, n),
      fixed: n,
      broke: 0,
      stillPassing: 0,
      stillFailing: 0,
    });

    const unknown = await refusal(
      createExperiment(db.prisma, { name: "x", policyVersionId, agentVersionId, checks: ["no-such-check"] }, "tester"),
    );
    expect(unknown.message).toBe('No saved check with id "no-such-check".');
    expect(await db.prisma.experiment.count({ where: { name: "x" } })).toBe(0);
  });

  it("accepts history in cohort_version scope, which a single replay refuses, and answers from another session of the chosen cohort only", async () => {
    // A tool call recorded in two sessions of the cohort: the other (newer) session's recording answers.
    const recorded = await db.prisma.event.findMany({
      where: { kind: "tool_call", status: "completed", cacheKey: { not: null }, session: { agentVersionId } },
      orderBy: [{ sessionId: "asc" }, { seq: "asc" }],
      select: { id: true, sessionId: true, seq: true, name: true, cacheKey: true },
    });
    const own = recorded.find((e) => recorded.some((o) => o.cacheKey === e.cacheKey && o.sessionId !== e.sessionId));
    if (!own) throw new Error("the τ-bench cohort has no tool call recorded in two sessions");
    const other = recorded.find((o) => o.cacheKey === own.cacheKey && o.sessionId !== own.sessionId)!;
    const marker = { answeredBy: "another session of the cohort" };
    await db.prisma.event.update({ where: { id: other.id }, data: { output: marker } });
    await db.prisma.session.update({
      where: { id: other.sessionId },
      data: { createdAt: new Date(Date.now() + 60_000) },
    });

    const policyVersionId = await saveVersion("cohort regression", COHORT);
    const single = await refusal(createReplay(db.prisma, { sessionId: own.sessionId, policyVersionId }, "tester"));
    expect(single.code).toBe("invalid_policy");

    const created = await createExperiment(
      db.prisma,
      { name: "cohort", policyVersionId, agentVersionId, sessionIds: [own.sessionId, other.sessionId] },
      "tester",
    );
    expect(created.total).toBe(2);
    await runExperiment(db.prisma, created.id);
    const experiment = await loadExperiment(db.prisma, created.id);
    expect(experiment.status).toBe("completed");
    const result = experiment.results.find((r) => r.session.id === own.sessionId)!;
    const view = (await loadReplayView(db.prisma, result.replayId))!;
    const step = view.steps.find((s) => s.baseSeq === own.seq && s.kind === "tool_call");
    expect(step).toMatchObject({ name: own.name, source: "recorded", output: marker });
    expect(result.comparability).not.toBe("exact");
    expect(result.firstDivergence?.baseSeq).toBe(own.seq);

    // A subset without the other session: its recording is outside the chosen cohort and answers nothing.
    const alone = await createExperiment(
      db.prisma,
      { name: "cohort alone", policyVersionId, agentVersionId, sessionIds: [own.sessionId] },
      "tester",
    );
    await runExperiment(db.prisma, alone.id);
    const aloneResult = (await loadExperiment(db.prisma, alone.id)).results[0]!;
    const aloneStep = (await loadReplayView(db.prisma, aloneResult.replayId))!.steps.find(
      (s) => s.baseSeq === own.seq && s.kind === "tool_call",
    );
    expect(aloneStep).toMatchObject({ name: own.name, source: "recorded" });
    expect(aloneStep!.output).not.toEqual(marker);
    expect(aloneResult.firstDivergence?.baseSeq ?? null).not.toBe(own.seq);
  });

  it("a subset by the session browser's filters: counted before starting, and only those sessions become members", async () => {
    const all = await db.prisma.session.findMany({
      where: { agentVersionId, isReplay: false },
      select: { id: true, status: true, toolNames: true, startedAt: true },
    });
    // A tool some sessions called and others did not.
    const tools = [...new Set(all.flatMap((x) => x.toolNames))];
    const tool = tools.find((t) => {
      const n = all.filter((x) => x.toolNames.includes(t)).length;
      return n > 0 && n < all.length;
    })!;
    const withTool = all.filter((x) => x.toolNames.includes(tool)).map((x) => x.id);
    const preview = (filter: unknown) =>
      experiments.previewCohort(
        localAdmin("reader"),
        parseInput(experiments.CohortPreviewInput, { agentVersionId, filter }),
        db.prisma,
      );
    expect(await preview({ tool })).toEqual({ matching: withTool.length, total: all.length });
    expect(await preview({})).toEqual({ matching: all.length, total: all.length });
    const statuses = [...new Set(all.map((x) => x.status))];
    for (const status of statuses.filter((x): x is "completed" | "failed" | "incomplete" =>
      ["completed", "failed", "incomplete"].includes(x),
    ))
      expect((await preview({ status })).matching).toBe(all.filter((x) => x.status === status).length);
    // Dates are whole days, both ends included; a session with no start time is outside any date range.
    await db.prisma.session.updateMany({ where: { agentVersionId }, data: { startedAt: null } });
    await db.prisma.session.update({
      where: { id: all[0]!.id },
      data: { startedAt: new Date("2026-03-01T23:59:00Z") },
    });
    await db.prisma.session.update({
      where: { id: all[1]!.id },
      data: { startedAt: new Date("2026-03-02T00:00:00Z") },
    });
    expect((await preview({ from: "2026-03-01", to: "2026-03-01" })).matching).toBe(1);
    expect((await preview({ from: "2026-03-01", to: "2026-03-02" })).matching).toBe(2);
    expect((await preview({ from: "2026-03-02" })).matching).toBe(1);
    expect((await preview({ to: "2026-02-28" })).matching).toBe(0);
    const issuesOf = (filter: unknown) => {
      try {
        parseInput(experiments.CohortPreviewInput, { agentVersionId, filter });
      } catch (error) {
        return (error as AppError).issues;
      }
      return [];
    };
    expect(issuesOf({ from: "2026-02-01", to: "2026-01-01" })).toEqual([
      { path: "filter.to", message: "The first day comes after the last." },
    ]);
    expect(issuesOf({ from: "01/02/2026" })).toEqual([{ path: "filter.from", message: "Give a date as YYYY-MM-DD." }]);

    const policyVersionId = await saveVersion("subset", RECORDED);
    const created = await createExperiment(
      db.prisma,
      { name: "subset", policyVersionId, agentVersionId, filter: { tool } },
      "tester",
    );
    expect(created.total).toBe(withTool.length);
    const members = await db.prisma.replay.findMany({
      where: { experimentId: created.id },
      select: { sessionId: true },
    });
    expect(members.map((m) => m.sessionId).sort()).toEqual([...withTool].sort());

    const before = await db.prisma.experiment.count();
    const none = await refusal(
      createExperiment(
        db.prisma,
        { name: "none", policyVersionId, agentVersionId, filter: { q: "no session says zzqqxx" } },
        "tester",
      ),
    );
    expect(none.code).toBe("invalid_input");
    expect(none.message).toMatch(/No session of agent version .* matches the filters/);
    expect(await db.prisma.experiment.count()).toBe(before);
  });

  it("records paused replays and a replay that cannot run, and still completes with every other result", async () => {
    const policyVersionId = await saveVersion("fixtures only", FIXTURES);
    const created = await createExperiment(
      db.prisma,
      { name: "pauses", policyVersionId, agentVersionId, sessionIds: cohortIds },
      "tester",
    );
    // One replay that cannot run (its stored policy is broken): it is failed, the others still run.
    const replays = await db.prisma.replay.findMany({
      where: { experimentId: created.id },
      orderBy: [{ createdAt: "asc" }, { id: "asc" }],
      select: { id: true },
    });
    const broken = replays[0]!.id;
    await db.prisma.replay.update({ where: { id: broken }, data: { policySnapshot: { model: "no such model" } } });

    await runExperiment(db.prisma, created.id);
    const experiment = await loadExperiment(db.prisma, created.id);
    expect(experiment.status).toBe("completed");
    expect(experiment.summary.done).toBe(cohortIds.length);
    const byId = new Map(experiment.results.map((r) => [r.replayId, r]));
    expect(byId.get(broken)).toMatchObject({ status: "failed", comparability: "non_comparable" });
    const others = experiment.results.filter((r) => r.replayId !== broken);
    const paused = others.filter((r) => r.status === "paused");
    expect(paused.length).toBeGreaterThan(0);
    for (const r of paused) expect(r.comparability).toBe("non_comparable");
    // Sessions without tool calls need no fixture: they finish exact.
    for (const r of others.filter((o) => o.status !== "paused"))
      expect(r).toMatchObject({ status: "completed", comparability: "exact" });
    const view = (await loadReplayView(db.prisma, paused[0]!.replayId))!;
    expect(view.pending).toMatchObject({ waitingFor: "fixture" });
  });

  it("refuses a session outside the cohort, or an unknown version, writing nothing", async () => {
    const policyVersionId = await saveVersion("recorded", RECORDED);
    const outside = await db.prisma.session.findFirstOrThrow({
      where: { agentVersionId: { not: agentVersionId } },
      select: { id: true },
    });
    const before = await db.prisma.experiment.count();
    expect(
      (
        await refusal(
          createExperiment(
            db.prisma,
            { name: "x", policyVersionId, agentVersionId, sessionIds: [outside.id] },
            "tester",
          ),
        )
      ).code,
    ).toBe("invalid_input");
    expect(
      (await refusal(createExperiment(db.prisma, { name: "x", policyVersionId: "nope", agentVersionId }, "tester")))
        .status,
    ).toBe(404);
    expect(
      (await refusal(createExperiment(db.prisma, { name: "x", policyVersionId, agentVersionId: "nope" }, "tester")))
        .status,
    ).toBe(404);
    expect(await db.prisma.experiment.count()).toBe(before);
  });
});
