import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { loadReplayView } from "@/lib/db/replays-testing";
import { loadDemoData } from "@/lib/server/sessions/demo-data";
import { createTestDatabase, type TestDatabase } from "@/lib/db/testing";
import { AppError, parseInput } from "@/lib/errors";
import { RECOMMENDED_RCA_POLICY, wilsonInterval, type Policy } from "@/lib/replay";
import {
  REFUND_SESSION,
  refundAgentScript,
  seededRandom,
  startScriptedModel,
  type ScriptedModel,
} from "@/scripts/scripted-model";
import {
  createCheck,
  CreateCheckInput,
  listChecks,
  replayCounterfactual as readCounterfactual,
  trialSetView as readTrialSet,
} from "./counterfactual";
import { localAdmin } from "../principal";
import { StartReplayInput } from "../replays/replay-inputs";
import { startReplay as startOperation } from "../replays/replays";

const FORK_LIVE: Policy = { ...RECOMMENDED_RCA_POLICY, model: "recorded-until-divergence" };
const NOT_REFUNDED = { name: "no second refund", definition: { kind: "tool_not_called", tool: "refund_payment" } };

const tester = localAdmin("tester");

async function apiError(promise: Promise<unknown>): Promise<AppError> {
  const error = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(AppError);
  return error as AppError;
}

// One engine: the counterfactual paths add no SQL of their own beyond plain columns (PostgreSQL is covered by the replay suite).
describe("counterfactual replays against a scripted model over HTTP", () => {
  let db: TestDatabase;
  let sessionId: string;
  let returned: { seq: number; op: "replace_tool_result"; value: unknown };
  let model: ScriptedModel | null = null;
  // The operations as an adapter calls them: input parsed by its schema first.
  const startReplay = async (raw: unknown) => startOperation(tester, parseInput(StartReplayInput, raw), db.prisma);
  const replayCounterfactual = (replayId: string) => readCounterfactual(tester, { replayId }, db.prisma);
  const trialSetView = (trialSetId: string) => readTrialSet(tester, { trialSetId }, db.prisma);

  async function useModel(script: Parameters<typeof startScriptedModel>[0]) {
    model = await startScriptedModel(script);
    await db.prisma.modelEndpoint.create({
      data: { name: "scripted", baseUrl: model.baseUrl, model: "gpt-4.1-2025-04-14" },
    });
    await db.prisma.allowedHost.create({ data: { host: model.host } });
    return model;
  }

  beforeAll(async () => {
    db = await createTestDatabase("pglite");
    await loadDemoData(db.prisma);
    const session = await db.prisma.session.findFirstOrThrow({
      where: { agent: { name: "harbor-pine-support" }, title: { contains: "4821" } },
      select: { id: true, events: { where: { seq: 1 }, select: { output: true } } },
    });
    sessionId = session.id;
    returned = {
      seq: 1,
      op: "replace_tool_result",
      value: { ...(session.events[0]!.output as object), status: "returned" },
    };
  });
  afterEach(async () => {
    await model?.close();
    model = null;
    await db.prisma.modelEndpoint.deleteMany({});
    await db.prisma.allowedHost.deleteMany({});
  });
  afterAll(async () => {
    await db?.drop();
  });

  it("fork-live: an edited tool result changes the final answer; steps before the fork are recorded, after it live", async () => {
    const m = await useModel({ script: refundAgentScript() });
    const started = await startReplay({ sessionId, policy: FORK_LIVE, edits: [returned], checks: [NOT_REFUNDED] });
    const view = (await loadReplayView(db.prisma, started.id))!;
    expect(view.replay.status).toBe("completed");
    expect(view.steps.map((s) => [s.seq, s.kind, s.source])).toEqual([
      [0, "model_call", "recorded"],
      [1, "tool_call", "edit"],
      [2, "tool_call", "recorded"],
      [3, "model_call", "live"],
      [4, "user_message", "recorded"],
      [5, "model_call", "live"],
      [6, "final_output", "live"],
    ]);
    expect(view.steps.at(-1)!.output).toBe(REFUND_SESSION.refuse);
    expect(m.requests).toHaveLength(2);
    // The live model was sent the edited result.
    expect(JSON.stringify(m.requests[0]!.messages)).toContain('\\"status\\":\\"returned\\"');
    const cf = await replayCounterfactual(started.id);
    expect(cf.fork).toMatchObject({ seq: 3, modelStep: 1, baseSeq: 3 });
    expect(cf.verdicts).toMatchObject([
      {
        name: "no second refund",
        base: { outcome: "fail" },
        branch: { outcome: "pass" },
        change: "base failed → branch passed",
      },
    ]);
    expect(view.evidence.strength).toBe("live");
  });

  it("recorded-only: the same edit leaves the answer as recorded (the model step's output is copied)", async () => {
    const m = await useModel({ script: refundAgentScript() });
    const started = await startReplay({
      sessionId,
      policy: RECOMMENDED_RCA_POLICY,
      edits: [returned],
      checks: [NOT_REFUNDED],
    });
    const view = (await loadReplayView(db.prisma, started.id))!;
    expect(view.steps.at(-1)!.output).toBe(REFUND_SESSION.done);
    expect(view.steps[3]).toMatchObject({ source: "recorded", equalsBase: false });
    expect(view.steps[3]!.inputDrift).toEqual(["tool_result_changed:call_7Qm2vR1xKp8dLs0aZ3nYb4Tc"]);
    expect(m.requests).toHaveLength(0);
    const cf = await replayCounterfactual(started.id);
    expect(cf.fork).toBeNull();
    expect(cf.verdicts[0]!.change).toBe("base failed → branch failed");
  });

  it("fork-live without edits makes no live call and reproduces the base exactly", async () => {
    const m = await useModel({ script: refundAgentScript() });
    const started = await startReplay({ sessionId, policy: FORK_LIVE });
    const view = (await loadReplayView(db.prisma, started.id))!;
    expect(m.requests).toHaveLength(0);
    expect(view.replay.comparability).toBe("exact");
    expect((await replayCounterfactual(started.id)).fork).toBeNull();
  });

  it("an LLM judge through the endpoint: its verdict and its prompt and answer kept; garbage is a check_error", async () => {
    const judge = { definition: { kind: "llm_judge", rubric: "Pass only if no refund was issued." } };
    await useModel({ script: refundAgentScript() });
    const ok = await startReplay({ sessionId, policy: FORK_LIVE, edits: [returned], checks: [judge] });
    const [verdict] = (await replayCounterfactual(ok.id)).verdicts;
    expect(verdict).toMatchObject({
      base: { outcome: "fail", reason: "The agent issued a refund." },
      branch: { outcome: "pass", reason: "No refund was issued." },
    });
    expect(verdict!.branch!.judge!.prompt[1]!.content).toContain("Pass only if no refund was issued.");
    expect(verdict!.branch!.judge!.answer).toBe('{"verdict": "pass", "reason": "No refund was issued."}');
    await model!.close();
    await db.prisma.modelEndpoint.deleteMany({});
    await db.prisma.allowedHost.deleteMany({});

    await useModel({ script: refundAgentScript({ judgeGarbage: true }) });
    const bad = await startReplay({ sessionId, policy: FORK_LIVE, edits: [returned], checks: [judge] });
    const [garbage] = (await replayCounterfactual(bad.id)).verdicts;
    expect(garbage!.branch).toMatchObject({ outcome: "check_error" });
    expect(garbage!.branch!.reason).toContain("not the JSON object asked for");
    expect(garbage!.branch!.judge!.answer).toBe("Looks fine to me!");
  });

  it("20 trials of a 50/50 scripted choice: the pass rate with its Wilson interval, departures at the scripted step", async () => {
    const seed = 17;
    const m = await useModel({ script: refundAgentScript({ refuseRate: 0.5 }), seed });
    const started = await startReplay({
      sessionId,
      policy: FORK_LIVE,
      edits: [returned],
      checks: [NOT_REFUNDED],
      trials: 20,
    });
    expect(started.trialIds).toHaveLength(20);
    // The script draws once per trial, at its first live step: the expected split, from the same generator.
    const draw = seededRandom(seed);
    const refusals = Array.from({ length: 20 }, () => draw() < 0.5).filter(Boolean).length;
    expect(refusals).toBeGreaterThan(0);
    expect(refusals).toBeLessThan(20);

    const set = await trialSetView(started.trialSetId!);
    expect(set.n).toBe(20);
    expect(set.finished).toBe(20);
    expect(set.basePassed).toBe(false);
    const expected = wilsonInterval(refusals, 20);
    expect(set.stats.pass).toEqual(expected);
    expect(set.stats.undecided).toBe(0);
    // Nothing departs before the scripted step (seq 3); the refusing trials all first depart there.
    expect(set.stats.steps.slice(0, 3).map((s) => s.rate)).toEqual([0, 0, 0]);
    expect(set.stats.steps[3]).toMatchObject({ diverged: refusals, first: refusals, n: 20 });
    expect(set.stats.firstDivergence).toEqual([
      { baseSeq: 3, count: refusals },
      { baseSeq: null, count: 20 - refusals },
    ]);
    expect(set.trials.filter((t) => t.passed).map((t) => t.firstDivergence)).toEqual(Array(refusals).fill(3));
    // Judged once for the base, live calls linear in the trials: one per refusing trial's two live steps, three per other.
    expect(m.requests).toHaveLength(refusals * 2 + (20 - refusals) * 3);
  });

  it("refuses bad counterfactual requests with a 4xx naming the field, writing nothing", async () => {
    const before = await db.prisma.replay.count();
    // The demo data runs on the built-in demo model; data of one's own needs an endpoint.
    await db.prisma.session.update({ where: { id: sessionId }, data: { demo: false } });
    let e = await apiError(startReplay({ sessionId, policy: FORK_LIVE, edits: [returned] }));
    await db.prisma.session.update({ where: { id: sessionId }, data: { demo: true } });
    expect([e.status, e.code]).toEqual([400, "executor_missing"]);
    expect(e.message).toContain("Without a live model, edits cannot change what the agent does");

    await useModel({ script: refundAgentScript() });
    e = await apiError(startReplay({ sessionId, policy: RECOMMENDED_RCA_POLICY, trials: 5 }));
    expect([e.status, e.code, e.issues[0]?.path]).toEqual([400, "invalid_input", "trials"]);
    e = await apiError(startReplay({ sessionId, policy: FORK_LIVE, trials: 51 }));
    expect([e.status, e.code, e.issues[0]?.path]).toEqual([400, "invalid_input", "trials"]);
    e = await apiError(startReplay({ sessionId, policy: FORK_LIVE, checks: ["nope"] }));
    expect([e.status, e.code, e.issues[0]?.path]).toEqual([400, "invalid_input", "checks[0]"]);
    e = await apiError(startReplay({ sessionId, policy: FORK_LIVE, modelEndpoint: "other" }));
    expect([e.status, e.code, e.issues[0]?.path]).toEqual([400, "invalid_input", "modelEndpoint"]);
    e = await apiError(
      startReplay({ sessionId, policy: FORK_LIVE, checks: [{ definition: { kind: "output_regex", pattern: "(" } }] }),
    );
    expect([e.status, e.code, e.issues[0]?.path]).toEqual([400, "invalid_input", "checks[0].definition.pattern"]);
    expect(await db.prisma.replay.count()).toBe(before);
  });

  it("saved checks: created by name, listed, used by id; a taken name is a 409", async () => {
    const saved = await createCheck(tester, parseInput(CreateCheckInput, NOT_REFUNDED), db.prisma);
    expect(saved).toMatchObject({ name: "no second refund", createdBy: "tester" });
    expect((await listChecks(tester, {}, db.prisma)).map((c) => c.name)).toContain("no second refund");
    const dup = await apiError(createCheck(tester, parseInput(CreateCheckInput, NOT_REFUNDED), db.prisma));
    expect([dup.status, dup.code]).toEqual([409, "conflict"]);
    const bad = await apiError(
      (async () =>
        createCheck(
          tester,
          parseInput(CreateCheckInput, { name: "x", definition: { kind: "max_steps" } }),
          db.prisma,
        ))(),
    );
    expect([bad.status, bad.code, bad.issues[0]?.path]).toEqual([400, "invalid_input", "definition.max"]);

    const started = await startReplay({ sessionId, policy: RECOMMENDED_RCA_POLICY, checks: [saved.id] });
    expect((await replayCounterfactual(started.id)).verdicts).toMatchObject([
      { checkId: saved.id, change: "base failed → branch failed" },
    ]);
  });
});
