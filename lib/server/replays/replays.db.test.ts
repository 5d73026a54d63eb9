import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadDemoData } from "@/lib/server/sessions/demo-data";
import type { Db } from "@/lib/db/client";
import { loadReplayComparison } from "@/lib/db/replay-comparison";
import { loadReplayMeta } from "@/lib/db/replays";
import { loadReplayView } from "@/lib/db/replays-testing";
import { TEST_ENGINES, createTestDatabase, type TestDatabase } from "@/lib/db/testing";
import { AppError, parseInput } from "@/lib/errors";
import { isBaseOnly, toolLevelPreset, type Policy } from "@/lib/replay";
import { toRows } from "@/lib/session-view/compare-pairs-testing";
import { listComparisonRows } from "./comparison-pages";
import { replayCounterfactual } from "../checks/counterfactual";
import { localAdmin } from "../principal";
import * as replayInputs from "./replay-inputs";
import * as replayResume from "./replay-resume";
import * as replays from "./replays";
import * as queuedReplays from "./run-queued-replay";

// The operations, called directly with input parsed by their schemas (as every adapter does) and a principal of the given name.
const as = (name: string) => localAdmin(name);
const createReplay = async (prisma: Db, raw: unknown, by: string) =>
  replays.createReplay(as(by), parseInput(replayInputs.StartReplayInput, raw), prisma);
const startReplay = async (prisma: Db, raw: unknown, by: string) =>
  replays.startReplay(as(by), parseInput(replayInputs.StartReplayInput, raw), prisma);
const runReplay = (prisma: Db, replayId: string) => queuedReplays.runReplay(as("runner"), { replayId }, prisma);
const supplyFixture = async (prisma: Db, replayId: string, raw: object, by: string) =>
  replayResume.supplyFixture(as(by), parseInput(replayInputs.SupplyFixtureInput, { ...raw, replayId }), prisma);
const decideApproval = async (prisma: Db, replayId: string, raw: object, by: string) =>
  replayResume.decideApproval(as(by), parseInput(replayInputs.DecideApprovalInput, { ...raw, replayId }), prisma);

const RECORDED: Policy = {
  model: "recorded-only",
  drift: "continue_to_terminal",
  tools: toolLevelPreset("recorded-only"),
};
const PAUSE: Policy = {
  model: "recorded-only",
  drift: "continue_to_terminal",
  tools: toolLevelPreset("pause-for-fixture"),
};
const LIVE_REFUND: Policy = {
  model: "recorded-only",
  drift: "continue_to_terminal",
  tools: {
    default: { type: "history", scope: "baseline", on_miss: "fail" },
    overrides: { refund_payment: { type: "passthrough", approval: "per_call" } },
  },
};

/** A fake tool endpoint on 127.0.0.1 that counts the calls it gets (answering with `answer`, after `delayMs`). */
async function fakeToolServer(
  answer: (body: unknown) => { status: number; body: unknown } = () => ({
    status: 200,
    body: { output: "refund issued (live): $129.00" },
  }),
  delayMs = 0,
) {
  const calls: unknown[] = [];
  const server: Server = createServer((req, res) => {
    let body = "";
    req.on("data", (c: Buffer) => (body += c.toString()));
    req.on("end", () => {
      const parsed = JSON.parse(body) as unknown;
      calls.push(parsed);
      setTimeout(() => {
        const a = answer(parsed);
        res.statusCode = a.status;
        res.setHeader("content-type", "application/json");
        res.end(JSON.stringify(a.body));
      }, delayMs);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as AddressInfo).port;
  return { calls, port, close: () => new Promise<void>((r) => server.close(() => r())) };
}

async function expectAppError(promise: Promise<unknown>, status: number, code: string): Promise<AppError> {
  const error = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(AppError);
  expect((error as AppError).status).toBe(status);
  expect((error as AppError).code).toBe(code);
  return error as AppError;
}

describe.each(TEST_ENGINES)("replays on %s", (engine) => {
  let db: TestDatabase;
  let refundSessionId: string;

  beforeAll(async () => {
    db = await createTestDatabase(engine);
    await loadDemoData(db.prisma);
    const refund = await db.prisma.session.findFirstOrThrow({
      where: { agent: { name: "harbor-pine-support" } },
      select: { id: true },
    });
    refundSessionId = refund.id;
  });
  afterAll(async () => {
    await db?.drop();
  });

  it("a branch under the recorded policy compares exact for every demo session", async () => {
    const sessions = await db.prisma.session.findMany({ select: { id: true, title: true } });
    expect(sessions.length).toBeGreaterThanOrEqual(10);
    for (const s of sessions) {
      const { id } = await startReplay(db.prisma, { sessionId: s.id, policy: RECORDED }, "tester");
      const view = await loadReplayView(db.prisma, id);
      expect({ title: s.title, status: view!.replay.status, comparability: view!.replay.comparability }).toEqual({
        title: s.title,
        status: "completed",
        comparability: "exact",
      });
      expect(view!.comparison.firstDivergence).toBeNull();
      expect(view!.steps).toHaveLength(view!.base.length);
      expect(view!.evidence.strength).toBe("recorded");
    }
  });

  it("pauses on a miss, takes a fixture with its note, resumes and names the divergence at the fixture's step", async () => {
    const { id } = await startReplay(
      db.prisma,
      {
        sessionId: refundSessionId,
        policy: PAUSE,
        edits: [{ seq: 1, op: "replace_tool_args", value: { order_id: "4822" } }],
      },
      "tester",
    );
    let view = (await loadReplayView(db.prisma, id))!;
    expect(view.replay.status).toBe("paused");
    expect(view.pending).toMatchObject({ waitingFor: "fixture", tool: "lookup_order", step: 1 });
    expect(view.pending!.miss!.closest[0]!.differingPaths).toEqual([["order_id"]]);
    expect(view.pending!.prefill).not.toBeNull();

    await supplyFixture(
      db.prisma,
      id,
      { output: { order_id: "4822", status: "lost" }, note: "from the warehouse ticket" },
      "dana",
    );
    view = (await loadReplayView(db.prisma, id))!;
    expect(view.replay.status).toBe("completed");
    expect(view.fixtures).toMatchObject([
      { toolName: "lookup_order", stepIdx: 1, author: "dana", note: "from the warehouse ticket" },
    ]);
    expect(view.evidence.fixturesUsed).toMatchObject([
      { step: 1, tool: "lookup_order", author: "dana", note: "from the warehouse ticket" },
    ]);
    expect(view.evidence.strength).toBe("controlled");
    // Other arguments, other cache key, same tool at the same place: one changed pair at step 1.
    expect(view.comparison.firstDivergence).toMatchObject({ pairIndex: 1, id: "p1-1", type: "changed", baseSeq: 1 });
    expect(view.comparison.firstDivergence!.summary).toBe("tool_call lookup_order: arguments, result changed");
    expect(view.comparison.pairs[1]).toMatchObject({ type: "changed", branch: { seq: 1, source: "fixture" } });
    expect(view.comparison.pairs.filter((p) => p.type === "removed" || p.type === "inserted")).toEqual([]);
  });

  it("refuses bad fixture input with a clear message and changes nothing", async () => {
    const { id } = await startReplay(
      db.prisma,
      {
        sessionId: refundSessionId,
        policy: PAUSE,
        edits: [{ seq: 1, op: "replace_tool_args", value: { order_id: "9" } }],
      },
      "tester",
    );
    const before = await db.prisma.replay.findUniqueOrThrow({ where: { id } });
    const count = async () => ({
      fixtures: await db.prisma.fixture.count({ where: { replayId: id } }),
      log: await db.prisma.replayLogEntry.count({ where: { replayId: id } }),
    });
    const counts = await count();

    const both = await expectAppError(
      supplyFixture(db.prisma, id, { output: 1, error: { type: "E", message: "m" }, note: "x" }, "dana"),
      400,
      "invalid_input",
    );
    expect(both.issues[0]!.message).toMatch(/exactly one of "output"/);
    const noNote = await expectAppError(
      supplyFixture(db.prisma, id, { output: 1, note: "  " }, "dana"),
      400,
      "invalid_input",
    );
    expect(noNote.issues.map((i) => i.path)).toEqual(["note"]);
    expect(noNote.issues[0]!.message).toMatch(/note is required/);
    const wrong = await expectAppError(
      supplyFixture(db.prisma, id, { output: 1, note: "n", callId: "call_nope" }, "dana"),
      409,
      "wrong_state",
    );
    expect(wrong.message).toMatch(/waits for lookup_order \(call call_7Qm2/);
    await expectAppError(
      supplyFixture(db.prisma, "no-such-replay", { output: 1, note: "n" }, "dana"),
      404,
      "not_found",
    );

    const after = await db.prisma.replay.findUniqueOrThrow({ where: { id } });
    expect(after.updatedAt).toEqual(before.updatedAt);
    expect(await count()).toEqual(counts);

    const { id: done } = await startReplay(db.prisma, { sessionId: refundSessionId, policy: RECORDED }, "tester");
    const notPaused = await expectAppError(
      supplyFixture(db.prisma, done, { output: 1, note: "n" }, "dana"),
      409,
      "wrong_state",
    );
    expect(notPaused.message).toMatch(/is completed and waits for no fixture/);
    expect(await db.prisma.fixture.count({ where: { replayId: done } })).toBe(0);
  });

  it("refuses edits of the wrong kind or seq before a replay exists", async () => {
    const replays = await db.prisma.replay.count();
    const e = await expectAppError(
      createReplay(
        db.prisma,
        { sessionId: refundSessionId, policy: RECORDED, edits: [{ seq: 0, op: "replace_tool_result", value: 1 }] },
        "t",
      ),
      400,
      "invalid_edits",
    );
    expect(e.issues[0]!.path).toBe("edits[0].op");
    expect(e.issues[0]!.message).toMatch(/needs a tool_call event, but seq 0 is a model_call/);
    await expectAppError(
      createReplay(db.prisma, { sessionId: refundSessionId, policy: { model: "nope" } }, "t"),
      400,
      "invalid_policy",
    );
    await expectAppError(createReplay(db.prisma, { sessionId: "missing", policy: RECORDED }, "t"), 404, "not_found");
    expect(await db.prisma.replay.count()).toBe(replays);
  });

  it("asks for approval before a side-effecting live tool runs, runs it once, and never repeats it on resume", async () => {
    const fake = await fakeToolServer();
    try {
      await db.prisma.toolEndpoint.create({
        data: { toolName: "refund_payment", url: `http://127.0.0.1:${fake.port}/tools`, timeoutMs: 5000 },
      });
      await db.prisma.allowedHost.create({ data: { host: "127.0.0.1" } });

      const { id } = await startReplay(db.prisma, { sessionId: refundSessionId, policy: LIVE_REFUND }, "tester");
      let view = (await loadReplayView(db.prisma, id))!;
      expect(view.replay.status).toBe("awaiting_approval");
      expect(view.pending).toMatchObject({ waitingFor: "approval", tool: "refund_payment" });
      expect(fake.calls).toHaveLength(0);

      await decideApproval(db.prisma, id, { decision: "approved", note: "test refund" }, "lee");
      view = (await loadReplayView(db.prisma, id))!;
      expect(view.replay.status).toBe("completed");
      expect(fake.calls).toEqual([
        {
          tool: "refund_payment",
          args: { order_id: "4821", amount: 129, reason: "damaged" },
          callId: "call_pX4kT8bW0eRj3nLq6yMz1HsD",
        },
      ]);
      expect(view.approvals).toMatchObject([
        { tool: "refund_payment", decision: "approved", by: "lee", note: "test refund" },
      ]);
      expect(view.approvals[0]!.at).toMatch(/^\d{4}-/);
      expect(view.evidence.liveCalls).toMatchObject([
        { name: "refund_payment", fromLog: false, approval: { decision: "approved", by: "lee" } },
      ]);
      expect(view.evidence.strength).toBe("live");
      const step = view.steps.find((s) => s.name === "refund_payment")!;
      expect(step).toMatchObject({ source: "live", output: "refund issued (live): $129.00" });

      // A re-run reads the live result from the log: the endpoint is not called again.
      await runReplay(db.prisma, id);
      view = (await loadReplayView(db.prisma, id))!;
      expect(fake.calls).toHaveLength(1);
      expect(view.evidence.liveCalls).toMatchObject([{ name: "refund_payment", fromLog: true }]);

      // A host off the allow-list is refused with a clear error, and nothing is sent.
      await db.prisma.allowedHost.deleteMany({});
      const { id: refused } = await startReplay(
        db.prisma,
        { sessionId: refundSessionId, policy: LIVE_REFUND },
        "tester",
      );
      await decideApproval(db.prisma, refused, { decision: "approved" }, "lee");
      view = (await loadReplayView(db.prisma, refused))!;
      const refusedStep = view.steps.find((s) => s.name === "refund_payment")!;
      expect(refusedStep.error?.type).toBe("HostNotAllowed");
      expect(refusedStep.error?.message).toMatch(/Host "127\.0\.0\.1:\d+" is not on the executor allow-list/);
      expect(fake.calls).toHaveLength(1);
    } finally {
      await fake.close();
      await db.prisma.toolEndpoint.deleteMany({});
      await db.prisma.allowedHost.deleteMany({});
    }
  });

  it("two concurrent approvals run the live call once: the second is refused with 409", async () => {
    const fake = await fakeToolServer(undefined, 150);
    try {
      await db.prisma.toolEndpoint.create({
        data: { toolName: "refund_payment", url: `http://127.0.0.1:${fake.port}/tools`, timeoutMs: 5000 },
      });
      await db.prisma.allowedHost.create({ data: { host: "127.0.0.1" } });
      const { id } = await startReplay(db.prisma, { sessionId: refundSessionId, policy: LIVE_REFUND }, "tester");
      const outcomes = await Promise.allSettled([
        decideApproval(db.prisma, id, { decision: "approved" }, "lee"),
        decideApproval(db.prisma, id, { decision: "approved" }, "kim"),
      ]);
      expect(fake.calls).toHaveLength(1);
      expect(outcomes.filter((o) => o.status === "fulfilled")).toHaveLength(1);
      const rejected = outcomes.filter((o): o is PromiseRejectedResult => o.status === "rejected");
      expect(rejected).toHaveLength(1);
      expect(rejected[0]!.reason).toBeInstanceOf(AppError);
      expect((rejected[0]!.reason as AppError).status).toBe(409);
      const view = (await loadReplayView(db.prisma, id))!;
      expect(view.replay.status).toBe("completed");
      expect(view.approvals).toHaveLength(1);
      expect(await db.prisma.replayLogEntry.count({ where: { replayId: id, type: "live_tool_result" } })).toBe(1);
    } finally {
      await fake.close();
      await db.prisma.toolEndpoint.deleteMany({});
      await db.prisma.allowedHost.deleteMany({});
    }
  });

  it("a model endpoint that fails after an approved live tool ran keeps the approval and the live result; nothing runs twice", async () => {
    let toolRan = false;
    const tool = await fakeToolServer(() => {
      toolRan = true;
      return { status: 200, body: { output: "refund issued (live): $129.00" } };
    });
    // The model answers until the live tool has run, then fails (as an endpoint that times out would).
    const model = await fakeToolServer(() =>
      toolRan
        ? { status: 503, body: { error: "overloaded" } }
        : { status: 200, body: { model: "fake-model", choices: [{ message: { content: "probe" } }] } },
    );
    try {
      await db.prisma.toolEndpoint.create({
        data: { toolName: "refund_payment", url: `http://127.0.0.1:${tool.port}/tools`, timeoutMs: 5000 },
      });
      await db.prisma.modelEndpoint.create({
        data: { name: "fake", baseUrl: `http://127.0.0.1:${model.port}/v1`, model: "fake-model" },
      });
      await db.prisma.allowedHost.create({ data: { host: "127.0.0.1" } });
      const policy: Policy = { ...LIVE_REFUND, model: "determinism-probe", probeRuns: 2 };
      const { id } = await startReplay(db.prisma, { sessionId: refundSessionId, policy }, "tester");
      expect((await loadReplayView(db.prisma, id))!.replay.status).toBe("awaiting_approval");

      await decideApproval(db.prisma, id, { decision: "approved" }, "lee");
      const view = (await loadReplayView(db.prisma, id))!;
      expect(tool.calls).toHaveLength(1);
      expect(view.replay.status).toBe("failed");
      expect(view.replay.error).toMatchObject({ code: "executor_error" });
      expect(view.replay.error!.message).toMatch(/model executor .*HTTP 503/);
      expect(view.approvals).toMatchObject([{ tool: "refund_payment", decision: "approved", by: "lee" }]);
      expect(await db.prisma.replayLogEntry.count({ where: { replayId: id, type: "live_tool_result" } })).toBe(1);

      // A re-run reads the live result from the log: the tool is not called again.
      await runReplay(db.prisma, id);
      expect(tool.calls).toHaveLength(1);
    } finally {
      await tool.close();
      await model.close();
      await db.prisma.toolEndpoint.deleteMany({});
      await db.prisma.modelEndpoint.deleteMany({});
      await db.prisma.allowedHost.deleteMany({});
    }
  });

  it("a replay whose result cannot be saved is marked failed with the reason, not left running", async () => {
    const { id } = await createReplay(db.prisma, { sessionId: refundSessionId, policy: RECORDED }, "tester");
    const failing = db.prisma.$extends({
      query: {
        // A run writes its steps in its final transaction as multi-row inserts (lib/db/replay-steps insertStepRows).
        $allOperations: ({ operation, args, query }) =>
          operation === "$executeRaw" && JSON.stringify(args).includes('INSERT INTO \\"ReplayStep\\"')
            ? Promise.reject(new Error("simulated: the database refused the steps"))
            : query(args),
      },
    }) as unknown as Db;
    expect(await runReplay(failing, id)).toBeNull();
    const row = await db.prisma.replay.findUniqueOrThrow({ where: { id } });
    expect(row.status).toBe("failed");
    expect(row.error).toMatchObject({ code: "save_failed" });
    expect((row.error as { message: string }).message).toMatch(
      // The reason is ours; a driver's or Prisma's own text stays in the server log.
      /could not be saved: an unexpected server error \(details are in the server log\)/,
    );
    expect(row.finishedAt).not.toBeNull();
  });

  it("a NUL character in a live tool's answer is replaced and noted on the step, so the run can be saved", async () => {
    const fake = await fakeToolServer(() => ({
      status: 200,
      body: { output: { text: "refund\u0000issued", ["k\u0000"]: 1 } },
    }));
    try {
      await db.prisma.toolEndpoint.create({
        data: { toolName: "refund_payment", url: `http://127.0.0.1:${fake.port}/tools`, timeoutMs: 5000 },
      });
      await db.prisma.allowedHost.create({ data: { host: "127.0.0.1" } });
      const { id } = await startReplay(db.prisma, { sessionId: refundSessionId, policy: LIVE_REFUND }, "tester");
      await decideApproval(db.prisma, id, { decision: "approved" }, "lee");
      let view = (await loadReplayView(db.prisma, id))!;
      expect(view.replay.status).toBe("completed");
      let step = view.steps.find((s) => s.name === "refund_payment")!;
      expect(step.output).toEqual({ text: "refund\uFFFDissued", ["k\uFFFD"]: 1 });
      expect(step.notes?.[0]).toMatch(/held 2 NUL characters \(U\+0000\), replaced with U\+FFFD/);
      // A re-run reads the result from the log and keeps the note.
      await runReplay(db.prisma, id);
      view = (await loadReplayView(db.prisma, id))!;
      step = view.steps.find((s) => s.name === "refund_payment")!;
      expect(step.notes?.[0]).toMatch(/NUL/);
      expect(fake.calls).toHaveLength(1);
    } finally {
      await fake.close();
      await db.prisma.toolEndpoint.deleteMany({});
      await db.prisma.allowedHost.deleteMany({});
    }
  });

  it("an approval note with a lone surrogate is refused before the live call runs; a tool's lone surrogate is repaired", async () => {
    const fake = await fakeToolServer(() => ({ status: 200, body: { output: { text: "cut \ud83d" } } }));
    try {
      await db.prisma.toolEndpoint.create({
        data: { toolName: "refund_payment", url: `http://127.0.0.1:${fake.port}/tools`, timeoutMs: 5000 },
      });
      await db.prisma.allowedHost.create({ data: { host: "127.0.0.1" } });
      const { id } = await startReplay(db.prisma, { sessionId: refundSessionId, policy: LIVE_REFUND }, "tester");
      const refused = await expectAppError(
        decideApproval(db.prisma, id, { decision: "approved", note: "ok \ud800" }, "lee"),
        400,
        "invalid_input",
      );
      expect(refused.issues.map((i) => i.path)).toContain("note");
      expect(fake.calls).toHaveLength(0);
      expect((await db.prisma.replay.findUniqueOrThrow({ where: { id } })).status).toBe("awaiting_approval");
      await decideApproval(db.prisma, id, { decision: "approved", note: "ok" }, "lee");
      const view = (await loadReplayView(db.prisma, id))!;
      expect(view.replay.status).toBe("completed");
      expect(view.steps.find((s) => s.name === "refund_payment")!.output).toEqual({ text: "cut \uFFFD" });
      expect(fake.calls).toHaveLength(1);
    } finally {
      await fake.close();
      await db.prisma.toolEndpoint.deleteMany({});
      await db.prisma.allowedHost.deleteMany({});
    }
  });

  it("refuses a NUL character in a fixture or an edit, naming where it is", async () => {
    const { id } = await startReplay(
      db.prisma,
      {
        sessionId: refundSessionId,
        policy: PAUSE,
        edits: [{ seq: 1, op: "replace_tool_args", value: { order_id: "77" } }],
      },
      "tester",
    );
    const fixture = await expectAppError(
      supplyFixture(db.prisma, id, { output: { rows: ["ok", "bad\u0000"] }, note: "n" }, "dana"),
      400,
      "invalid_input",
    );
    expect(fixture.issues.map((i) => i.path)).toContain("output.rows[1]");
    expect((await db.prisma.replay.findUniqueOrThrow({ where: { id } })).status).toBe("paused");
    const edit = await expectAppError(
      createReplay(
        db.prisma,
        {
          sessionId: refundSessionId,
          policy: RECORDED,
          edits: [{ seq: 1, op: "replace_tool_args", value: { order_id: "4\u00001" } }],
        },
        "t",
      ),
      400,
      "invalid_input",
    );
    expect(edit.issues.map((i) => i.path)).toContain("edits[0].value.order_id");
  });

  it("a denied call returns a tool error to the agent and is recorded as evidence", async () => {
    const { id } = await startReplay(db.prisma, { sessionId: refundSessionId, policy: LIVE_REFUND }, "tester");
    await expectAppError(supplyFixture(db.prisma, id, { output: 1, note: "n" }, "dana"), 409, "wrong_state");
    await decideApproval(db.prisma, id, { decision: "denied", note: "not in test" }, "lee");
    const view = (await loadReplayView(db.prisma, id))!;
    expect(view.approvals).toMatchObject([{ decision: "denied", by: "lee" }]);
    expect(view.steps.find((s) => s.name === "refund_payment")).toMatchObject({
      source: "error_result",
      error: { type: "ApprovalDenied" },
    });
    await expectAppError(decideApproval(db.prisma, id, { decision: "approved" }, "lee"), 409, "wrong_state");
  });
  it("the comparison page's loader (model prompts as digests) agrees with the full view for every replay", async () => {
    // Edits that change model inputs and outputs, so digests are compared, not only vouched for by the engine.
    const modelSeq = (
      await db.prisma.event.findFirstOrThrow({
        where: { sessionId: refundSessionId, kind: "model_call" },
        orderBy: { seq: "desc" },
        select: { seq: true },
      })
    ).seq;
    await startReplay(
      db.prisma,
      {
        sessionId: refundSessionId,
        policy: RECORDED,
        edits: [{ seq: modelSeq, op: "replace_model_output", value: { role: "assistant", content: "changed" } }],
      },
      "tester",
    );
    const firstModel = (
      await db.prisma.event.findFirstOrThrow({
        where: { sessionId: refundSessionId, kind: "model_call" },
        orderBy: { seq: "asc" },
        select: { seq: true },
      })
    ).seq;
    await startReplay(
      db.prisma,
      {
        sessionId: refundSessionId,
        policy: PAUSE,
        edits: [{ seq: firstModel, op: "replace_system_prompt", value: "Be terse." }],
      },
      "tester",
    );
    // A tool call run with other arguments: the first divergence names them (not just "input").
    const firstTool = await db.prisma.event.findFirstOrThrow({
      where: { sessionId: refundSessionId, kind: "tool_call" },
      orderBy: { seq: "asc" },
      select: { seq: true, name: true, input: true },
    });
    const args = (firstTool.input as { args: Record<string, unknown> }).args;
    await startReplay(
      db.prisma,
      {
        sessionId: refundSessionId,
        policy: {
          ...RECORDED,
          tools: {
            default: { type: "history", scope: "baseline", on_miss: "fail" },
            overrides: { [firstTool.name]: { type: "static", cases: [{ match_mode: "exact", result: "ok" }] } },
          },
        },
        edits: [{ seq: firstTool.seq, op: "replace_tool_args", value: { ...args, note: "other" } }],
      },
      "tester",
    );
    const replays = await db.prisma.replay.findMany({ select: { id: true } });
    let diverging = 0;
    let drifting = 0;
    let arguments_ = 0;
    for (const { id } of replays) {
      const full = (await loadReplayView(db.prisma, id))!;
      const lite = (await loadReplayComparison(db.prisma, id))!;
      const shape = (c: typeof full.comparison) => c.pairs.map((p) => `${p.id}:${p.type}`);
      expect(shape(lite.comparison)).toEqual(shape(full.comparison));
      expect(lite.comparison.firstDivergence).toEqual(full.comparison.firstDivergence);
      expect(lite.comparison.metrics).toEqual(full.comparison.metrics);
      expect(lite.comparison.finalOutputDiff).toEqual(full.comparison.finalOutputDiff);
      // The list's rows, previews made from the steps each window shows, as the whole view makes them.
      const rows = await listComparisonRows(as("reader"), { replayId: id, limit: 500 }, db.prisma);
      expect(rows.rows).toEqual(toRows(full.comparison.pairs));
      // Outputs and tool arguments were not read: digests stood for them (a final output is read whole).
      const toolOutputs = lite.comparison.pairs.flatMap((p) =>
        isBaseOnly(p) || p.branch.kind !== "tool_call" || p.branch.output === null ? [] : [p.branch.output],
      );
      for (const output of toolOutputs) expect(Object.keys(output as object)).toEqual(["digest"]);
      if (full.comparison.firstDivergence?.summary.includes("arguments")) arguments_++;
      expect([lite.baseCount, lite.branchCount]).toEqual([full.base.length, full.steps.length]);
      expect(lite.branchFinalOutput ?? null).toEqual(
        [...full.steps].reverse().find((e) => e.kind === "final_output")?.output ?? null,
      );
      if (full.comparison.firstDivergence) diverging++;
      // The pages' meta: the same evidence without its input-drift list; the counterfactual's fork as stored.
      const page = (await loadReplayMeta(db.prisma, id, { inputDrift: false }))!;
      const { inputDrift, ...rest } = full.evidence;
      expect(page.evidence).toEqual(rest);
      expect(Object.keys(page.evidence)).not.toContain("inputDrift");
      expect(page.fixtures).toEqual(full.fixtures);
      expect(page.replay).toEqual(full.replay);
      if (inputDrift.length > 0) drifting++;
      const counterfactual = await replayCounterfactual(as("reader"), { replayId: id }, db.prisma);
      expect(counterfactual.fork).toEqual(full.evidence.fork ?? null);
    }
    expect(diverging).toBeGreaterThan(2);
    expect(drifting).toBeGreaterThan(0);
    expect(arguments_).toBeGreaterThan(0);
  });
});
