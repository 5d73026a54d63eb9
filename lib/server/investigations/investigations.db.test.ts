import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { loadDemoData } from "@/lib/server/sessions/demo-data";
import { createTestDatabase, type TestDatabase } from "@/lib/db/testing";
import { AppError, parseInput } from "@/lib/errors";
import { blameProbeBound, RECOMMENDED_RCA_POLICY, type Policy } from "@/lib/replay";
import {
  lastToolResult,
  REFUND_SESSION,
  refundAgentScript,
  startScriptedModel,
  type Script,
  type ScriptedModel,
} from "@/scripts/scripted-model";
import { createInvestigation, StartInvestigationInput } from "./investigations";
import { cancelInvestigation, getInvestigation, staleRecordingsUsed } from "./investigation-reads";
import { runInvestigation } from "./run-investigation";
import { localAdmin } from "../principal";
import { StartReplayInput } from "../replays/replay-inputs";
import { startReplay } from "../replays/replays";

const NOT_REFUNDED = { name: "no refund", definition: { kind: "tool_not_called", tool: "refund_payment" } };
const analyst = localAdmin("dana");

/** The agent as it should have behaved: it looks the order up, then declines to refund it. */
const neverRefunds: Script = (request) =>
  lastToolResult(request.messages, "lookup_order") === null
    ? { toolCalls: [{ name: "lookup_order", args: { order_id: "4821" } }] }
    : { content: REFUND_SESSION.refuse };

async function refusal(promise: Promise<unknown>): Promise<AppError> {
  const error = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(AppError);
  return error as AppError;
}

// The demo refund session refunds an order; the check says it should not have. Its model steps are base seqs 0, 3, 5
// (the refund_payment call) and 7.
describe("investigations against a scripted model over HTTP", () => {
  let db: TestDatabase;
  let sessionId: string;
  let lookupSeq: number;
  let model: ScriptedModel | null = null;
  const create = async (raw: unknown) =>
    createInvestigation(analyst, parseInput(StartInvestigationInput, raw), db.prisma);
  const run = (investigationId: string) => runInvestigation(analyst, { investigationId }, db.prisma);
  const read = (investigationId: string) => getInvestigation(analyst, { investigationId }, db.prisma);

  async function useModel(script: Script) {
    model = await startScriptedModel({ script });
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
      select: { id: true },
    });
    sessionId = session.id;
    lookupSeq = 1;
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

  it("blame names the model step that decided the failure, in fewer probes than steps, within its stated bound", async () => {
    const m = await useModel(neverRefunds);
    const created = await create({ kind: "blame", sessionId, checks: [NOT_REFUNDED], trials: 2, share: 1 });
    const modelSteps = created.params.modelSteps!.map((s) => s.seq);
    expect(modelSteps).toEqual([0, 3, 5, 7]);
    expect(created).toMatchObject({ status: "queued", progress: { probes: 0, of: blameProbeBound(4) } });
    expect(created.estimate).toEqual({
      probes: 3,
      trials: 2,
      replays: 6,
      maxLiveCallsPerTrial: 18,
      maxLiveCalls: 108,
    });

    await run(created.id);
    const done = await read(created.id);
    expect(done.status).toBe("completed");
    expect(done.result).toMatchObject({ kind: "decided", modelStep: 2, baseSeq: 5 });
    // Live from the first step fixes it; live from the refund call fixes it; after it, the refund is recorded.
    expect(done.probes.map((p) => ("modelStep" in p ? [p.modelStep, p.passes, p.trials, p.fixes] : null))).toEqual([
      [0, 2, 2, true],
      [2, 2, 2, true],
      [3, 0, 2, false],
    ]);
    expect(done.probes.length).toBeLessThan(modelSteps.length);
    // What it ran stayed within the bound it stated before starting.
    const replayIds = done.probes.flatMap((p) => ("replayIds" in p ? p.replayIds : []));
    expect(replayIds).toHaveLength(6);
    expect(m.requests.length).toBeLessThanOrEqual(created.estimate.maxLiveCalls);
    // The branch it names is an ordinary replay, forked at that step, authored by the analyst.
    const branch = await db.prisma.replay.findUniqueOrThrow({
      where: { id: (done.result as { replayId: string }).replayId },
      select: { createdBy: true, policySnapshot: true, sessionId: true },
    });
    expect(branch).toMatchObject({ createdBy: "dana", sessionId, policySnapshot: { liveFromModelStep: 2 } });

    // It runs once.
    await run(created.id);
    expect((await read(created.id)).probes).toHaveLength(3);
  });

  it("blame says when re-running the model cannot fix the run, and refuses checks the base already passes", async () => {
    // This model refunds whatever it is sent: nothing it decides live avoids the refund.
    await useModel(refundAgentScript({ refuseRate: 0 }));
    const created = await create({ kind: "blame", sessionId, checks: [NOT_REFUNDED], trials: 1 });
    await run(created.id);
    const done = await read(created.id);
    expect(done.result).toEqual({ kind: "not_fixable" });
    expect(done.probes).toHaveLength(1);

    const passing = await refusal(
      create({
        kind: "blame",
        sessionId,
        checks: [{ name: "x", definition: { kind: "tool_called", tool: "refund_payment" } }],
      }),
    );
    expect([passing.code, passing.message]).toEqual([
      "invalid_input",
      "The base run already passes these checks: there is no failure to investigate. Choose checks it fails.",
    ]);
    const tooMany = await refusal(create({ kind: "blame", sessionId, checks: [NOT_REFUNDED], trials: 21 }));
    expect([tooMany.code, tooMany.issues[0]?.path]).toEqual(["invalid_input", "trials"]);
    expect(await refusal(create({ kind: "blame", sessionId: "nope", checks: [NOT_REFUNDED] }))).toMatchObject({
      code: "not_found",
    });
  });

  it("minimize keeps only the edit that matters, as a saved replay", async () => {
    await useModel(refundAgentScript());
    const session = await db.prisma.session.findUniqueOrThrow({
      where: { id: sessionId },
      select: { events: { where: { seq: lookupSeq }, select: { output: true } } },
    });
    const returned = {
      seq: lookupSeq,
      op: "replace_tool_result" as const,
      value: { ...(session.events[0]!.output as object), status: "returned" },
    };
    // The other lookup the agent made: the scripted agent does not read it, so editing it changes nothing.
    const other = { seq: 2, op: "replace_tool_result" as const, value: { note: "nothing the agent reads" } };
    const policy: Policy = { ...RECOMMENDED_RCA_POLICY, model: "recorded-until-divergence" };
    const branch = await startReplay(
      analyst,
      parseInput(StartReplayInput, { sessionId, policy, edits: [other, returned], checks: [NOT_REFUNDED] }),
      db.prisma,
    );
    const created = await create({ kind: "minimize", replayId: branch.id, trials: 1 });
    expect(created.estimate.probes).toBe(5);
    await run(created.id);
    const done = await read(created.id);
    expect(done.status).toBe("completed");
    expect(done.result).toMatchObject({ kind: "minimal", kept: [1], edits: [returned] });
    expect(done.probes.map((p) => ("kept" in p ? [p.kept, p.fixes] : null))).toEqual([
      [[0, 1], true],
      [[0], false],
      [[1], true],
    ]);
    const saved = await db.prisma.replay.findUniqueOrThrow({
      where: { id: (done.result as { replayId: string }).replayId },
      select: { edits: true },
    });
    expect(saved.edits).toEqual([returned]);
  });

  it("without a model endpoint a blame search is refused before anything is stored", async () => {
    // The demo data runs on the built-in demo model; data of one's own needs an endpoint.
    await db.prisma.session.update({ where: { id: sessionId }, data: { demo: false } });
    try {
      const before = await db.prisma.investigation.count();
      const refused = await refusal(create({ kind: "blame", sessionId, checks: [NOT_REFUNDED] }));
      expect([refused.code, refused.issues[0]?.path]).toEqual(["executor_missing", "modelEndpoint"]);
      expect(await db.prisma.investigation.count()).toBe(before);
    } finally {
      await db.prisma.session.update({ where: { id: sessionId }, data: { demo: true } });
    }
  });

  it("stale check: a read-only tool whose answer changed in one field is stale there; volatile fields and other tools are left alone", async () => {
    const events = await db.prisma.event.findMany({
      where: { sessionId, kind: "tool_call" },
      orderBy: { seq: "asc" },
      select: { seq: true, name: true, output: true },
    });
    const lookup = events.find((e) => e.name === "lookup_order")!;
    const calls: { tool: string; args: unknown }[] = [];
    // The customer's order service today: the order has since been returned, and it stamps every answer.
    const server: Server = createServer((req, res) => {
      let body = "";
      req.on("data", (c: Buffer) => (body += c.toString()));
      req.on("end", () => {
        const call = JSON.parse(body) as { tool: string; args: unknown };
        calls.push({ tool: call.tool, args: call.args });
        res.setHeader("content-type", "application/json");
        res.end(
          JSON.stringify({
            output: { ...(lookup.output as object), status: "returned", served_at: new Date().toISOString() },
          }),
        );
      });
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const { port } = server.address() as AddressInfo;
    let restore = async () => {};
    try {
      await db.prisma.allowedHost.create({ data: { host: `127.0.0.1:${port}` } });
      for (const e of events)
        await db.prisma.toolEndpoint.create({
          data: { toolName: e.name, url: `http://127.0.0.1:${port}/tool`, readOnly: e.name === "lookup_order" },
        });
      // lookup_order is undeclared but its endpoint is read-only; the other tools write.
      const declared = await db.prisma.tool.findMany({ select: { id: true, sideEffect: true } });
      restore = async () => {
        for (const t of declared)
          await db.prisma.tool.update({ where: { id: t.id }, data: { sideEffect: t.sideEffect } });
      };
      await db.prisma.tool.updateMany({ where: { name: "lookup_order" }, data: { sideEffect: "unknown" } });
      await db.prisma.tool.updateMany({ where: { name: { not: "lookup_order" } }, data: { sideEffect: "write" } });

      const created = await create({ kind: "stale", sessionId, volatile: ["$.served_at"] });
      expect(created.estimate.liveToolCalls).toBe(1);
      expect(created.params.skipped).toEqual(
        [...new Set(events.map((e) => e.name))]
          .filter((n) => n !== "lookup_order")
          .map((tool) => ({ tool, reason: "not declared read-only (write); calling it again could change something" })),
      );
      await run(created.id);
      const done = await read(created.id);
      expect(done.result).toEqual({ kind: "checked", stale: 1, fresh: 0, unchecked: 0 });
      expect(done.probes).toEqual([
        { seq: lookup.seq, tool: "lookup_order", state: "stale", paths: ["status"], ignored: ["served_at"] },
      ]);
      // Only the read-only tool was called, with its recorded arguments.
      expect(calls.map((c) => c.tool)).toEqual(["lookup_order"]);

      // A branch that answers from that recording says it rests on a stale answer.
      const branch = await startReplay(
        analyst,
        parseInput(StartReplayInput, { sessionId, policy: RECOMMENDED_RCA_POLICY }),
        db.prisma,
      );
      expect(await staleRecordingsUsed(analyst, { replayId: branch.id }, db.prisma)).toMatchObject({
        investigationId: created.id,
        used: [{ seq: lookup.seq, baseSeq: lookup.seq, tool: "lookup_order", paths: ["status"] }],
      });

      const refused = await refusal(create({ kind: "stale", sessionId, volatile: ["a..b"] }));
      expect(refused.issues[0]?.path).toBe("volatile[0]");
    } finally {
      server.close();
      await db.prisma.toolEndpoint.deleteMany({});
      await restore();
    }
  });

  it("a cancel before it runs stops it; a cancel of an unknown one is not found", async () => {
    await useModel(neverRefunds);
    const created = await create({ kind: "blame", sessionId, checks: [NOT_REFUNDED], trials: 1 });
    expect(await cancelInvestigation(analyst, { investigationId: created.id }, db.prisma)).toEqual({
      id: created.id,
      status: "cancelled",
    });
    await run(created.id);
    expect((await read(created.id)).probes).toEqual([]);
    expect(await refusal(cancelInvestigation(analyst, { investigationId: "nope" }, db.prisma))).toMatchObject({
      code: "not_found",
    });
  });

  it("one whose runs keep ending without a result fails after the attempts allowed, keeping its probes", async () => {
    await useModel(neverRefunds);
    const created = await create({ kind: "blame", sessionId, checks: [NOT_REFUNDED], trials: 1 });
    // Three runs whose workers died: the lease ran out each time and the sweeper put it back in the queue.
    const probe = { index: 0, modelStep: 0, baseSeq: 0, passes: 1, trials: 1, passRate: 1, fixes: true, replayIds: [] };
    await db.prisma.investigation.update({ where: { id: created.id }, data: { attempts: 3, probes: [probe] } });
    expect(await runInvestigation(analyst, { investigationId: created.id }, db.prisma, { maxAttempts: 3 })).toBe(
      "gave_up",
    );
    const after = await read(created.id);
    expect(after.status).toBe("failed");
    expect(after.error).toEqual({
      code: "gave_up",
      message:
        "Stopped after 3 attempts: each run ended without a result (its worker stopped or crashed). The probes it finished are kept.",
    });
    expect(after.probes).toEqual([probe]);
    expect(model!.requests).toHaveLength(0);
  });
});
