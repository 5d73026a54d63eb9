import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createApiKey, type Database } from "@/lib/db";
import { recordExists } from "@/lib/db/records";
import { TEST_ENGINES, createTestDatabase, type TestDatabase } from "@/lib/db/testing";
import { startJobs, type Jobs } from "@/lib/jobs/queue";
import { eventually } from "@/lib/jobs/testing";
import { runCheckJob } from "@/lib/server/checks/online";
import { jobHandlers } from "@/lib/server/job-handlers";
import { plugJobQueue } from "@/lib/server/job-queue";
import { localAdmin } from "@/lib/server/principal";
import { importSessions } from "@/lib/server/sessions/sessions";
import { startScriptedModel, type ScriptedModel } from "@/scripts/scripted-model";
import { POST as createCheckRoute } from "./route";
import { GET as checkRoute } from "./[id]/route";
import { DELETE as detachRoute, POST as attachRoute } from "./[id]/attach/route";
import { GET as backfillGet, POST as backfillPost } from "./[id]/backfill/route";
import { GET as regressionsRoute } from "../regressions/route";

const global = globalThis as unknown as { __branchpointDb?: Promise<Database> };
const tester = localAdmin("tester");

/** A native session of `agent`/`version` that answers `answer` (a completed run either way). */
function doc(agent: string, version: string, externalId: string, answer: string) {
  const at = "2025-03-01T10:00:00.000Z";
  return {
    externalId,
    title: externalId,
    agent: { name: agent, adapter: "generic" },
    agentVersion: { version, capabilities: [] },
    startedAt: at,
    events: [
      {
        seq: 0,
        kind: "model_call",
        name: "gpt-4o",
        input: { messages: [{ role: "user", content: "refund order 7" }] },
        output: { role: "assistant", content: answer },
        startedAt: at,
      },
      { seq: 1, kind: "final_output", name: "final_output", output: answer, startedAt: at },
    ],
  };
}

describe.each(TEST_ENGINES)("online checks on %s", (engine) => {
  let db: TestDatabase;
  let key: string;
  let queue: Jobs;
  let model: ScriptedModel;
  let checkId = "";
  let judgeId = "";
  /** Session ids by external id. */
  const ids = new Map<string, string>();

  async function importDocs(docs: object[]) {
    const result = await importSessions(tester, { body: JSON.stringify(docs), format: "native" }, db.prisma);
    if (!result.ok) throw new Error(JSON.stringify(result.issues.slice(0, 3)));
    for (const [i, s] of result.sessions.entries()) ids.set((docs[i] as { externalId: string }).externalId, s.id);
    return result.sessions.map((s) => s.id);
  }

  const call = async (
    handler: (r: Request, c: { params: Promise<never> }) => Promise<Response>,
    path: string,
    init: RequestInit = {},
    params: object = {},
  ) => {
    const response = await handler(
      new Request(`http://127.0.0.1${path}`, {
        ...init,
        headers: { authorization: `Bearer ${key}`, "content-type": "application/json", ...init.headers },
      }),
      { params: Promise.resolve(params as never) },
    );
    return { status: response.status, body: (await response.json()) as Record<string, unknown> };
  };
  const post = (handler: Parameters<typeof call>[0], path: string, body: unknown, params: object = {}) =>
    call(handler, path, { method: "POST", body: typeof body === "string" ? body : JSON.stringify(body) }, params);

  /** Every stored verdict of a check, as [external id, outcome], by external id. */
  async function verdictsOf(check: string) {
    const rows = await db.prisma.sessionCheckVerdict.findMany({
      where: { checkId: check },
      select: { session: { select: { externalId: true } }, outcome: true },
    });
    return rows.map((r) => [r.session.externalId, r.outcome]).sort((a, b) => (a[0]! < b[0]! ? -1 : 1));
  }
  const countRows = async () => ({
    attachments: await db.prisma.checkAttachment.count(),
    verdicts: await db.prisma.sessionCheckVerdict.count(),
    spend: await db.prisma.checkSpend.count(),
  });

  beforeAll(async () => {
    db = await createTestDatabase(engine);
    key = (await createApiKey(db.prisma, "script")).key;
    global.__branchpointDb = Promise.resolve(db);
    // The scripted judge passes a run whose final answer says it refunded.
    model = await startScriptedModel({
      script: (request) => {
        const prompt = request.messages.map((m) => (typeof m.content === "string" ? m.content : "")).join("\n");
        return prompt.includes("Refunded")
          ? { content: '{"verdict": "pass", "reason": "It refunded."}' }
          : { content: '{"verdict": "fail", "reason": "No refund."}' };
      },
    });
    await db.prisma.modelEndpoint.create({ data: { name: "judge", baseUrl: model.baseUrl, model: "judge-1" } });
    await db.prisma.allowedHost.create({ data: { host: model.host } });
    // The durable queue with its workers in this process, as the server runs it.
    // A long lease: the timer sweeper waits minutes, so the test's own sweep() is the only one.
    queue = await startJobs(db, {
      work: true,
      handlers: jobHandlers,
      concurrency: 1,
      leaseMs: 600_000,
      log: () => undefined,
    });
    plugJobQueue(queue);
    // Stored before any check is attached: shop 1.0 and 2.0, and another agent.
    await importDocs([
      doc("shop", "1.0", "old-1.0-a", "Refunded."),
      doc("shop", "1.0", "old-1.0-b", "Sorry, no."),
      doc("shop", "2.0", "old-2.0-a", "Refunded."),
      doc("shop", "2.0", "old-2.0-b", "Sorry, no."),
      doc("other", "1.0", "old-other-a", "Refunded."),
    ]);
    const created = await post(createCheckRoute, "/api/v1/checks", {
      name: "says refunded",
      definition: { kind: "output_contains", text: "refunded" },
    });
    checkId = (created.body.check as { id: string }).id;
    const judge = await post(createCheckRoute, "/api/v1/checks", {
      name: "judge refund",
      definition: { kind: "llm_judge", rubric: "Pass only if the order was refunded.", model: "judge" },
    });
    judgeId = (judge.body.check as { id: string }).id;
  }, 300_000);

  afterAll(async () => {
    plugJobQueue(null);
    await queue?.stop();
    await model?.close();
    global.__branchpointDb = undefined;
    await db?.drop();
  });

  it("refuses bad input with exact errors and writes nothing", async () => {
    const before = await countRows();
    const attach = (id: string, body: unknown) => post(attachRoute, `/api/v1/checks/${id}/attach`, body, { id });
    expect(await attach("nope", { agentName: "shop" })).toEqual({
      status: 404,
      body: { error: { code: "not_found", message: 'No check with id "nope".', issues: [] } },
    });
    expect(await attach(checkId, { agentName: "ghost" })).toEqual({
      status: 404,
      body: {
        error: {
          code: "not_found",
          message: 'No agent named "ghost".',
          issues: [{ path: "agentName", message: "unknown agent" }],
        },
      },
    });
    expect(await attach(checkId, { agentId: "c0000000000000000000000000" })).toEqual({
      status: 404,
      body: {
        error: {
          code: "not_found",
          message: 'No agent with id "c0000000000000000000000000".',
          issues: [{ path: "agentId", message: "unknown agent" }],
        },
      },
    });
    expect(await attach(checkId, { agentName: "shop", fromVersion: "9.9" })).toEqual({
      status: 400,
      body: {
        error: {
          code: "invalid_input",
          message: 'Agent "shop" has no version "9.9".',
          issues: [{ path: "fromVersion", message: "unknown version of this agent" }],
        },
      },
    });
    // A member named __proto__ (JSON.parse makes it an own member): refused as unknown, not merged into anything.
    const proto = await attach(checkId, '{"agentName": "shop", "__proto__": {"fromVersion": "2.0"}}');
    expect(proto.status).toBe(400);
    expect(proto.body).toEqual({
      error: {
        code: "invalid_input",
        message: "The request body is not valid.",
        issues: [{ path: "", message: 'Unrecognized key: "__proto__"' }],
      },
    });
    expect(await attach(checkId, { agentName: "shop", agentId: "x" })).toEqual({
      status: 400,
      body: {
        error: {
          code: "invalid_input",
          message: "The request body is not valid.",
          issues: [{ path: "agentId", message: "Name the agent by agentId or by agentName (one of them)." }],
        },
      },
    });
    expect(await attach(checkId, { agentName: "shop", dailyBudgetUsd: 5 })).toEqual({
      status: 400,
      body: {
        error: {
          code: "invalid_input",
          message: 'Only LLM-judge checks take a budget: "says refunded" costs nothing to run.',
          issues: [{ path: "dailyBudgetUsd", message: "only for llm_judge" }],
        },
      },
    });
    expect((await attach(judgeId, { agentName: "other", dailyBudgetUsd: 1e300 })).status).toBe(400);
    expect((await attach(judgeId, { agentName: "other", judgeCallUsd: 0 })).status).toBe(400);
    const detach = await call(
      detachRoute,
      `/api/v1/checks/${checkId}/attach?agentName=shop`,
      { method: "DELETE" },
      {
        id: checkId,
      },
    );
    expect(detach).toEqual({
      status: 404,
      body: {
        error: {
          code: "not_found",
          message: 'The check "says refunded" is not attached to agent "shop".',
          issues: [{ path: "agentName", message: "not attached" }],
        },
      },
    });
    const backfill = await call(
      backfillPost,
      `/api/v1/checks/${checkId}/backfill?agentName=shop`,
      { method: "POST" },
      {
        id: checkId,
      },
    );
    expect(backfill).toEqual({
      status: 409,
      body: {
        error: {
          code: "wrong_state",
          message: 'The check "says refunded" is not attached to agent "shop": attach it first, then backfill.',
          issues: [{ path: "agentName", message: "not attached" }],
        },
      },
    });
    const protoQuery = await call(
      backfillPost,
      `/api/v1/checks/${checkId}/backfill?__proto__=x`,
      { method: "POST" },
      {
        id: checkId,
      },
    );
    expect(protoQuery).toEqual({
      status: 400,
      body: {
        error: {
          code: "invalid_input",
          message: "The query parameters are not valid.",
          issues: [{ path: "", message: 'Unrecognized key: "__proto__"' }],
        },
      },
    });
    expect((await call(checkRoute, "/api/v1/checks/nope", {}, { id: "nope" })).status).toBe(404);
    // The check's page is a detail page: an unknown id is a real 404 there too.
    expect([await recordExists(db.prisma, "check", checkId), await recordExists(db.prisma, "check", "nope")]).toEqual([
      true,
      false,
    ]);
    expect(await countRows()).toEqual(before);
  });

  it("attached from 2.0 on: the job judges exactly the shop sessions of 2.0 imported after it", async () => {
    const attached = await post(
      attachRoute,
      `/api/v1/checks/${checkId}/attach`,
      { agentName: "shop", fromVersion: "2.0" },
      {
        id: checkId,
      },
    );
    expect(attached.status).toBe(201);
    expect(attached.body.attachment).toMatchObject({
      checkId,
      agentName: "shop",
      fromVersion: "2.0",
      dailyBudgetUsd: null,
      backfill: { status: "none", total: 0, done: 0 },
    });
    await importDocs([
      doc("shop", "1.0", "new-1.0-a", "Refunded."),
      doc("shop", "2.0", "new-2.0-a", "Refunded."),
      doc("shop", "2.0", "new-2.0-b", "Sorry, no."),
      doc("shop", "3.0", "new-3.0-a", "Refunded."),
      doc("other", "1.0", "new-other-a", "Sorry, no."),
    ]);
    // Judged by the job the import enqueued (one for the whole import), in the queue's worker.
    await eventually("the import's verdicts", async () => (await verdictsOf(checkId)).length >= 3, 60_000);
    const jobs = await queue.boss
      .getDb()
      .executeSql(`SELECT count(*)::int AS n FROM pgboss.job WHERE name = 'check-run'`, []);
    expect((jobs.rows as { n: number }[])[0]!.n).toBe(1);
    expect(await verdictsOf(checkId)).toEqual([
      ["new-2.0-a", "pass"],
      ["new-2.0-b", "fail"],
      ["new-3.0-a", "pass"],
    ]);
    // The failed check is the session's failure: its cluster's signature names the check.
    const member = await db.prisma.clusterMember.findUniqueOrThrow({
      where: { sessionId: ids.get("new-2.0-b")! },
      select: { cluster: { select: { check: true, step: true, errorType: true } } },
    });
    expect(member.cluster).toEqual({ check: "says refunded", step: "", errorType: "" });
    expect(await db.prisma.clusterMember.count({ where: { sessionId: ids.get("new-2.0-a")! } })).toBe(0);
    const shown = await call(checkRoute, `/api/v1/checks/${checkId}`, {}, { id: checkId });
    expect(shown.status).toBe(200);
    expect(shown.body.attachments).toMatchObject([
      {
        agentName: "shop",
        fromVersion: "2.0",
        verdicts: { pass: 2, fail: 1, check_error: 0, over_budget: 0 },
        today: null,
      },
    ]);
  });

  it("a backfill judges exactly the older sessions of those versions, with its progress; again, it judges none", async () => {
    const started = await call(backfillPost, `/api/v1/checks/${checkId}/backfill`, { method: "POST" }, { id: checkId });
    expect(started.status).toBe(202);
    expect(started.body.backfills).toMatchObject([{ agentName: "shop", total: 2, done: 0, started: true }]);
    expect(["queued", "running", "completed"]).toContain((started.body.backfills as { status: string }[])[0]!.status);
    await eventually("the backfill", async () => {
      const p = await call(backfillGet, `/api/v1/checks/${checkId}/backfill`, {}, { id: checkId });
      return (p.body.backfills as { status: string }[])[0]!.status === "completed";
    });
    const progress = await call(backfillGet, `/api/v1/checks/${checkId}/backfill`, {}, { id: checkId });
    expect(progress.body.backfills).toMatchObject([
      { agentName: "shop", status: "completed", total: 2, done: 2, error: null },
    ]);
    expect(await verdictsOf(checkId)).toEqual([
      ["new-2.0-a", "pass"],
      ["new-2.0-b", "fail"],
      ["new-3.0-a", "pass"],
      ["old-2.0-a", "pass"],
      ["old-2.0-b", "fail"],
    ]);
    const stamps = async () =>
      (await db.prisma.sessionCheckVerdict.findMany({ orderBy: { sessionId: "asc" } })).map((v) => [
        v.sessionId,
        v.outcome,
        v.judgedAt.toISOString(),
      ]);
    const before = await stamps();
    // Again: nothing left to judge; and the import's job run again changes nothing either.
    const again = await call(
      backfillPost,
      `/api/v1/checks/${checkId}/backfill?agentName=shop`,
      { method: "POST" },
      {
        id: checkId,
      },
    );
    expect(again.body.backfills).toMatchObject([{ total: 0, started: true }]);
    await eventually("the second backfill", async () => {
      const p = await call(backfillGet, `/api/v1/checks/${checkId}/backfill`, {}, { id: checkId });
      return (p.body.backfills as { status: string }[])[0]!.status === "completed";
    });
    await runCheckJob(db.prisma, { kind: "import", sessionIds: [...ids.values()] });
    expect(await stamps()).toEqual(before);
    // Regressions per check and version, from the stored verdicts: 1.0 was never judged.
    const reg = await call(regressionsRoute, "/api/v1/regressions?agentName=shop");
    expect(reg.status).toBe(200);
    const checks = reg.body.checks as {
      name: string;
      versions: { version: string; passed: number; total: number }[];
    }[];
    expect(checks.map((c) => [c.name, c.versions.map((v) => [v.version, v.passed, v.total])])).toEqual([
      [
        "says refunded",
        [
          ["2.0", 2, 4],
          ["3.0", 1, 1],
        ],
      ],
    ]);
    // Detached: later imports are not judged; the verdicts stay.
    const detached = await call(
      detachRoute,
      `/api/v1/checks/${checkId}/attach?agentName=shop`,
      { method: "DELETE" },
      {
        id: checkId,
      },
    );
    expect(detached.status).toBe(200);
    await importDocs([doc("shop", "3.0", "after-detach", "Sorry, no.")]);
    expect((await verdictsOf(checkId)).length).toBe(5);
  });

  it("an LLM judge over its daily budget records the session as not judged, and the check says so", async () => {
    const attached = await post(
      attachRoute,
      `/api/v1/checks/${judgeId}/attach`,
      { agentName: "other", dailyBudgetUsd: 0.02, judgeCallUsd: 0.01 },
      { id: judgeId },
    );
    expect(attached.status).toBe(201);
    const asked = model.requests.length;
    await importDocs([
      doc("other", "1.0", "judge-a", "Refunded."),
      doc("other", "1.0", "judge-b", "Sorry, no."),
      doc("other", "1.0", "judge-c", "Refunded."),
    ]);
    await eventually("the judge's verdicts", async () => (await verdictsOf(judgeId)).length === 3, 60_000);
    // In id order: the first two within the budget, the third past it, and the model asked twice.
    const order = ["judge-a", "judge-b", "judge-c"].sort((a, b) => (ids.get(a)! < ids.get(b)! ? -1 : 1));
    const outcome = new Map((await verdictsOf(judgeId)).map(([e, o]) => [e, o]));
    expect(order.map((e) => outcome.get(e))).toEqual([e2o(order[0]!), e2o(order[1]!), "over_budget"]);
    expect(model.requests.length - asked).toBe(2);
    const skipped = await db.prisma.sessionCheckVerdict.findUniqueOrThrow({
      where: { sessionId_checkId: { sessionId: ids.get(order[2]!)!, checkId: judgeId } },
    });
    expect(skipped.reason).toBe(
      "Not judged: over budget. Judging by this check may spend $0.02 a day for this agent ($0.01 a call), and today's is spent.",
    );
    expect(skipped.costUsd).toBe(0);
    const shown = await call(checkRoute, `/api/v1/checks/${judgeId}`, {}, { id: judgeId });
    expect(shown.body.attachments).toMatchObject([
      {
        agentName: "other",
        dailyBudgetUsd: 0.02,
        judgeCallUsd: 0.01,
        verdicts: { over_budget: 1 },
        today: { spentUsd: 0.02, judgeCalls: 2, notJudgedOverBudget: 1, overBudget: true },
      },
    ]);
    // A failed judge verdict is a failure like any other.
    const failed = order.find((e) => e2o(e) === "fail")!;
    const member = await db.prisma.clusterMember.findUniqueOrThrow({
      where: { sessionId: ids.get(failed)! },
      select: { cluster: { select: { check: true } } },
    });
    expect(member.cluster.check).toBe("judge refund");
  });

  it("a backfill left queued with no job (a process stopped before enqueueing it) is put back by the sweeper", async () => {
    const attachment = await db.prisma.checkAttachment.findFirstOrThrow({ where: { checkId: judgeId } });
    await db.prisma.checkAttachment.update({
      where: { id: attachment.id },
      data: { backfillStatus: "queued", backfillStarted: new Date(Date.now() - 3_600_000), backfillTotal: 0 },
    });
    expect(await queue.sweep()).toBe(1);
    await eventually("the swept backfill", async () => {
      const row = await db.prisma.checkAttachment.findUniqueOrThrow({ where: { id: attachment.id } });
      return row.backfillStatus === "completed";
    });
    // Nothing was stored an hour before, so it judged nothing; the over-budget verdict is as it was.
    expect((await verdictsOf(judgeId)).map(([, o]) => o).sort()).toEqual(["fail", "over_budget", "pass"]);
    expect(await queue.sweep()).toBe(0);
  });
});

/** The judge's verdict on a judge-* session: pass when it answered "Refunded.". */
function e2o(externalId: string) {
  return externalId === "judge-b" ? "fail" : "pass";
}
