import { readFile } from "node:fs/promises";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createApiKey, type Database } from "@/lib/db";
import { TEST_ENGINES, createTestDatabase, type TestDatabase } from "@/lib/db/testing";
import { cohort, jsonlDocuments } from "@/lib/clusters/testing";
import { loadDemoData } from "@/lib/server/sessions/demo-data";
import { importSessions } from "@/lib/server/sessions/sessions";
import { attachCheck, startBackfill } from "@/lib/server/checks/online";
import { lastToolResult, REFUND_SESSION, startScriptedModel, type Script } from "@/scripts/scripted-model";
import { GET as listRoute, POST as createRoute, DELETE as deleteQueryRoute } from "./route";
import { GET as deliveriesRoute } from "./[id]/deliveries/route";
import { DELETE as deleteRoute } from "./[id]/route";
import { CHECK_QUEUE, startJobs } from "@/lib/jobs/queue";
import { plugJobQueue } from "@/lib/server/job-queue";
import { RESENT_NOTE } from "@/lib/server/watches/deliver";
import { localAdmin } from "@/lib/server/principal";
import { getRegressions } from "@/lib/server/clusters/regressions";
import { runWatchJob } from "@/lib/server/watches/watch-jobs";
import type { JobQueue, WatchJob } from "@/lib/server/job-queue";
import type { PresentedWatch } from "@/lib/server/watches/watch-inputs";
import type { TriggerInvestigation } from "@/lib/server/watches/investigate";

const analyst = localAdmin("dana");
const global = globalThis as unknown as { __branchpointDb?: Promise<Database> };

/** A webhook receiver: answers each POST with the next status of `statuses` (then 200), and keeps what came. */
async function receiver(statuses: number[] = []) {
  const got: { at: number; body: Record<string, unknown>; key: string | undefined }[] = [];
  const server: Server = createServer((req, res) => {
    let text = "";
    req.on("data", (c: Buffer) => (text += c.toString("utf8")));
    req.on("end", () => {
      const key = req.headers["idempotency-key"];
      got.push({ at: Date.now(), body: JSON.parse(text) as Record<string, unknown>, key: key as string | undefined });
      res.writeHead(statuses.shift() ?? 200, { "content-type": "text/plain" }).end("ok");
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/hook`,
    host: `127.0.0.1:${port}`,
    got,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** The agent as it should have behaved: it looks the order up, then declines to refund it. */
const neverRefunds: Script = (request) =>
  lastToolResult(request.messages, "lookup_order") === null
    ? { toolCalls: [{ name: "lookup_order", args: { order_id: "4821" } }] }
    : { content: REFUND_SESSION.refuse };

/** A queue that keeps what was put on it (watch work only), for a test to run when it chooses. */
function recordingQueue() {
  const queued: { jobs: readonly WatchJob[]; delayMs: number }[] = [];
  const queue: JobQueue = {
    enqueueReplays: async () => undefined,
    enqueueInvestigations: async () => undefined,
    enqueueWatches: async (jobs, delayMs = 0) => void queued.push({ jobs, delayMs }),
  };
  return { queue, queued };
}

describe.each(TEST_ENGINES)("watches on %s", (engine) => {
  let db: TestDatabase;
  let key: string;

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
  const post = (body: unknown) =>
    call(createRoute, "/api/v1/watches", {
      method: "POST",
      body: typeof body === "string" ? body : JSON.stringify(body),
    });

  /** Imports sessions through the import operation, as the API does (its hook evaluates the watches). */
  async function importCohort(agent: string, version: string, count: number, mix: Record<string, number>, seed = 1) {
    const sessions = cohort({ agent, seed, perVersion: { [version]: { count, mix } } });
    for (const body of jsonlDocuments(sessions, 100)) {
      const result = await importSessions(analyst, { body, format: "native" }, db.prisma);
      if (!result.ok) throw new Error(JSON.stringify(result.issues.slice(0, 3)));
    }
  }
  const agentId = async (name: string) => (await db.prisma.agent.findUniqueOrThrow({ where: { name } })).id;

  beforeAll(async () => {
    db = await createTestDatabase(engine);
    key = (await createApiKey(db.prisma, "script")).key;
    global.__branchpointDb = Promise.resolve(db);
    await loadDemoData(db.prisma);
  }, 120_000);
  afterAll(async () => {
    global.__branchpointDb = undefined;
    await db?.drop();
  });

  it("delivers once per trigger to a real receiver, even when evaluated twice", async () => {
    const hook = await receiver();
    try {
      await db.prisma.allowedHost.create({ data: { host: hook.host } });
      await importCohort("watch-a", "1.0", 10, {});
      const created = await post({
        agentName: "watch-a",
        name: "New failures",
        condition: { kind: "new_cluster" },
        actions: { webhook: { url: hook.url } },
        windowSeconds: 60,
      });
      expect(created.status).toBe(201);
      const watch = created.body.watch as PresentedWatch;
      expect(watch).toMatchObject({ condition: { kind: "new_cluster" }, costBound: null, windowSeconds: 60 });

      // Two failure classes arrive: two new clusters, one trigger and one POST each.
      await importCohort("watch-a", "2.0", 20, { declined: 0.25, not_found: 0.25 }, 2);
      expect(hook.got).toHaveLength(2);
      const first = hook.got[0]!.body;
      expect(first.text).toMatch(/^Watch "New failures": New failure cluster for watch-a: ".+" \(5 sessions\)\.$/);
      expect(first).toMatchObject({ agent: { name: "watch-a" }, watch: { id: watch.id, name: "New failures" } });
      expect((first.facts as { cluster: { size: number } }).cluster.size).toBe(5);

      // Evaluated again inside the window: nothing. After it (a job later on): the same triggers, not sent again.
      await importCohort("watch-a", "2.1", 4, { declined: 0.5 }, 3);
      const later = new Date(Date.now() + 120_000);
      await runWatchJob(db.prisma, { kind: "evaluate", agentIds: [await agentId("watch-a")] }, { now: later });
      expect(hook.got).toHaveLength(2);
      const log = await call(deliveriesRoute, `/api/v1/watches/${watch.id}/deliveries`, {}, { id: watch.id });
      expect(log.status).toBe(200);
      const deliveries = log.body.deliveries as { attempt: number; status: string; httpStatus: number }[];
      expect(deliveries.map((d) => [d.attempt, d.status, d.httpStatus])).toEqual([
        [1, "delivered", 200],
        [1, "delivered", 200],
      ]);
      expect((log.body.triggers as unknown[]).length).toBe(2);
    } finally {
      await hook.close();
    }
  }, 120_000);

  it("a regression watch fires once per version flagged, overall and per check, as the regressions read flags it", async () => {
    const hook = await receiver();
    try {
      await db.prisma.allowedHost.create({ data: { host: hook.host } });
      await importCohort("watch-r", "1.0", 40, { declined: 0.1 }, 5);
      const created = await post({
        agentName: "watch-r",
        name: "Releases",
        condition: { kind: "regression" },
        actions: { webhook: { url: hook.url } },
        windowSeconds: 60,
      });
      expect(created.status).toBe(201);
      await importCohort("watch-r", "2.0", 40, { declined: 0.4, not_found: 0.2 }, 6);
      await importCohort("watch-r", "3.0", 40, { declined: 0.4, not_found: 0.2 }, 7);
      const id = await agentId("watch-r");
      // Versions in order of first seen: 3.0 (the cohorts' seeds start it earliest), 1.0, 2.0. A check whose
      // verdicts fall in 2.0 only: a regression of its own, 2.0 against 1.0.
      const check = await db.prisma.check.create({
        data: { name: "watch-r says sorry", definition: { kind: "output_contains", text: "sorry" } },
      });
      const sessions = await db.prisma.session.findMany({
        where: { agentId: id },
        select: { id: true, agentVersionId: true, agentVersion: { select: { version: true } } },
        orderBy: { externalId: "asc" },
      });
      await db.prisma.sessionCheckVerdict.createMany({
        data: sessions.map((s, i) => ({
          sessionId: s.id,
          checkId: check.id,
          agentId: id,
          agentVersionId: s.agentVersionId,
          outcome: s.agentVersion.version === "2.0" && i % 2 === 0 ? "fail" : "pass",
          reason: "",
          eventCount: 0,
        })),
      });
      const read = await getRegressions(analyst, { agentId: id }, db.prisma);
      expect(read.regressions.map((v) => v.version)).toEqual(["2.0"]);
      expect(read.checks.map((c) => [c.name, c.regressions])).toEqual([["watch-r says sorry", ["2.0"]]]);

      const later = new Date(Date.now() + 120_000);
      await runWatchJob(db.prisma, { kind: "evaluate", agentIds: [id] }, { now: later });
      const v2 = read.regressions[0]!;
      const checked = read.checks[0]!.versions.find((v) => v.version === "2.0")!;
      const pct = (x: number | null) => `${Math.round((x ?? 0) * 1000) / 10}%`;
      expect(hook.got.map((g) => [g.body.text, g.body.facts])).toEqual([
        [
          `Watch "Releases": watch-r 2.0 regressed: pass rate 40% (16 of 40), down from 90% in 1.0. Grew most: ${v2.grew[0]!.label}.`,
          {
            version: "2.0",
            previous: "1.0",
            passRate: 0.4,
            previousPassRate: 0.9,
            passed: 16,
            total: 40,
            reasons: v2.regression!.reasons,
            grew: v2.grew.slice(0, 3),
          },
        ],
        [
          `Watch "Releases": watch-r 2.0 regressed on watch-r says sorry: pass rate ${pct(checked.rate)} (${checked.passed} of ${checked.total}), down from 1.0.`,
          {
            check: { id: check.id, name: "watch-r says sorry" },
            version: "2.0",
            previous: "1.0",
            passRate: checked.rate,
          },
        ],
      ]);
      // The clusters that grew are named as the cluster list names them.
      expect(v2.grew.map((g) => g.label)).not.toContain(v2.grew[0]!.clusterId);
      expect(v2.grew.length).toBeGreaterThan(0);

      // Evaluated again a window later: the same regressions, not fired again.
      await runWatchJob(db.prisma, { kind: "evaluate", agentIds: [id] }, { now: new Date(later.getTime() + 120_000) });
      expect(hook.got).toHaveLength(2);
    } finally {
      await hook.close();
    }
  }, 120_000);

  it("retries a failing receiver with a doubling backoff, logging every attempt", async () => {
    const hook = await receiver([500, 500]);
    try {
      await db.prisma.allowedHost.create({ data: { host: hook.host } });
      // The failures arrive before the watch exists (its growth counts a day's arrivals); a job evaluates it.
      await importCohort("watch-b", "1.0", 10, { timeout: 0.4 }, 4);
      const created = await post({
        agentName: "watch-b",
        name: "Growth",
        condition: { kind: "cluster_growth", perDay: 3 },
        actions: { webhook: { url: hook.url } },
      });
      const watch = created.body.watch as PresentedWatch;
      const start = hook.got.length;
      await runWatchJob(db.prisma, { kind: "evaluate", agentIds: [await agentId("watch-b")] }, { backoffMs: 60 });
      const attempts = hook.got.slice(start);
      expect(attempts).toHaveLength(3);
      const gaps = [attempts[1]!.at - attempts[0]!.at, attempts[2]!.at - attempts[1]!.at];
      expect(gaps[0]).toBeGreaterThanOrEqual(60);
      expect(gaps[1]).toBeGreaterThanOrEqual(120);
      const log = await call(deliveriesRoute, `/api/v1/watches/${watch.id}/deliveries`, {}, { id: watch.id });
      const rows = (log.body.deliveries as { attempt: number; status: string; httpStatus: number; error: string }[])
        .slice()
        .reverse();
      expect(rows.map((d) => [d.attempt, d.status, d.httpStatus])).toEqual([
        [1, "failed", 500],
        [2, "failed", 500],
        [3, "delivered", 200],
      ]);
      expect(rows[0]!.error).toBe("The receiver answered 500: ok");
    } finally {
      await hook.close();
    }
  }, 120_000);

  it("with a queue, puts the delivery on it, and a failed attempt's retry after its backoff", async () => {
    const hook = await receiver([503]);
    const queued: { jobs: readonly WatchJob[]; delayMs: number }[] = [];
    const queue: JobQueue = {
      enqueueReplays: async () => undefined,
      enqueueInvestigations: async () => undefined,
      enqueueWatches: async (jobs, delayMs = 0) => void queued.push({ jobs, delayMs }),
    };
    try {
      await db.prisma.allowedHost.create({ data: { host: hook.host } });
      await importCohort("watch-q", "1.0", 10, { declined: 0.5 }, 5);
      const created = await post({
        agentName: "watch-q",
        name: "Queued",
        condition: { kind: "cluster_growth", perDay: 5 },
        actions: { webhook: { url: hook.url } },
      });
      const watch = created.body.watch as PresentedWatch;
      const agents = [await agentId("watch-q")];
      await runWatchJob(db.prisma, { kind: "evaluate", agentIds: agents }, { queue, backoffMs: 1000 });
      const [trigger] = await db.prisma.watchTrigger.findMany({ where: { watchId: watch.id } });
      expect(queued).toEqual([{ jobs: [{ kind: "deliver", triggerId: trigger!.id, attempt: 1 }], delayMs: 0 }]);
      expect(hook.got).toHaveLength(0);
      await runWatchJob(db.prisma, queued[0]!.jobs[0]!, { queue, backoffMs: 1000 });
      expect(queued[1]).toEqual({ jobs: [{ kind: "deliver", triggerId: trigger!.id, attempt: 2 }], delayMs: 1000 });
      // The same attempt delivered twice by the queue is made once.
      await runWatchJob(db.prisma, queued[0]!.jobs[0]!, { queue, backoffMs: 1000 });
      expect(hook.got).toHaveLength(1);
      await runWatchJob(db.prisma, queued[1]!.jobs[0]!, { queue, backoffMs: 1000 });
      expect(hook.got).toHaveLength(2);
      const rows = await db.prisma.watchDelivery.findMany({
        where: { triggerId: trigger!.id },
        orderBy: { attempt: "asc" },
      });
      expect(rows.map((d) => [d.attempt, d.status, d.httpStatus])).toEqual([
        [1, "failed", 503],
        [2, "delivered", 200],
      ]);
      expect(queued).toHaveLength(2);
    } finally {
      await hook.close();
    }
  });

  it("a trigger caused inside the window is evaluated once at the window's end and delivered exactly once", async () => {
    const hook = await receiver();
    const { queue, queued } = recordingQueue();
    try {
      await db.prisma.allowedHost.create({ data: { host: hook.host } });
      await importCohort("watch-d", "1.0", 4, {}, 8);
      const created = await post({
        agentName: "watch-d",
        name: "Late failures",
        condition: { kind: "new_cluster" },
        actions: { webhook: { url: hook.url } },
        windowSeconds: 60,
      });
      const watch = created.body.watch as PresentedWatch;
      const agents = [await agentId("watch-d")];
      const t0 = Date.now();
      const at = (s: number) => ({ queue, now: new Date(t0 + s * 1000) });
      // Evaluated at t0: no cluster yet, nothing fires; the window runs to t0 + 60 s.
      await runWatchJob(db.prisma, { kind: "evaluate", agentIds: agents }, at(0));
      expect(queued).toEqual([]);

      // Failures arrive inside the window (the import's hook puts an evaluation on the queue).
      plugJobQueue(queue);
      try {
        const sessions = cohort({
          agent: "watch-d",
          seed: 9,
          perVersion: { "2.0": { count: 6, mix: { declined: 0.5 } } },
        });
        for (const body of jsonlDocuments(sessions, 100))
          await importSessions(analyst, { body, format: "native" }, db.prisma);
      } finally {
        plugJobQueue(null);
      }
      const arrival = queued.splice(0);
      expect(arrival).toEqual([{ jobs: [{ kind: "evaluate", agentIds: agents }], delayMs: 0 }]);
      // Its evaluation at t0 + 10 s is inside the window: one evaluation is owed at the window's end, queued to start then.
      await runWatchJob(db.prisma, arrival[0]!.jobs[0]!, at(10));
      const owedSince = new Date(t0 + 10_000).toISOString();
      const owed = { kind: "owed", watchId: watch.id, owedSince } as const;
      expect(queued.splice(0)).toEqual([{ jobs: [owed], delayMs: 50_000 }]);
      // More arrivals inside the window queue nothing more: one evaluation is pending already.
      await runWatchJob(db.prisma, arrival[0]!.jobs[0]!, at(20));
      expect(queued).toEqual([]);
      // The delayed job run early (t0 + 30 s) evaluates nothing and waits again for the window's end.
      await runWatchJob(db.prisma, owed, at(30));
      expect(queued.splice(0)).toEqual([{ jobs: [owed], delayMs: 30_000 }]);
      expect(await db.prisma.watchTrigger.count({ where: { watchId: watch.id } })).toBe(0);

      // At the window's end it evaluates: the new cluster fires once, its POST queued and made once.
      await runWatchJob(db.prisma, owed, at(60));
      const triggers = await db.prisma.watchTrigger.findMany({ where: { watchId: watch.id } });
      expect(triggers).toHaveLength(1);
      expect(triggers[0]!.key).toMatch(/^cluster:/);
      const delivery = { kind: "deliver", triggerId: triggers[0]!.id, attempt: 1 } as const;
      expect(queued.splice(0)).toEqual([{ jobs: [delivery], delayMs: 0 }]);
      await runWatchJob(db.prisma, delivery, at(60));
      // The same delayed job delivered again, and arrivals a window later: settled, the trigger not fired again.
      await runWatchJob(db.prisma, owed, at(61));
      await runWatchJob(db.prisma, owed, at(200));
      await runWatchJob(db.prisma, arrival[0]!.jobs[0]!, at(200));
      expect(queued).toEqual([]);
      expect(hook.got.map((g) => [g.key, g.body.text])).toEqual([[triggers[0]!.id, triggers[0]!.text]]);
      expect(await db.prisma.watch.findUniqueOrThrow({ where: { id: watch.id } })).toMatchObject({
        owedSince: null,
        lastEvaluatedAt: new Date(t0 + 200_000),
      });
    } finally {
      plugJobQueue(null);
      await hook.close();
    }
  }, 120_000);

  it("the sweep evaluates a growing cluster with no new arrival, and sends again an attempt its worker left sending", async () => {
    const hook = await receiver();
    const { queue, queued } = recordingQueue();
    const jobs = await startJobs(db, { work: false, log: () => undefined });
    /** Runs the sweep; answers the watch jobs it put on the queue. */
    const sweep = async () => {
      await jobs.sweep();
      const fetched = await jobs.boss.fetch<{ kind: string; watch?: WatchJob }>(CHECK_QUEUE, { batchSize: 50 });
      return fetched.filter((j) => j.data.kind === "watch").map((j) => j.data.watch!);
    };
    try {
      await db.prisma.allowedHost.create({ data: { host: hook.host } });
      // Five timeouts arrive in a day; the watch, saved after them, was last evaluated two hours ago (a window of 1 h).
      await importCohort("watch-g", "1.0", 10, { timeout: 0.5 }, 10);
      const created = await post({
        agentName: "watch-g",
        name: "Growing",
        condition: { kind: "cluster_growth", perDay: 4 },
        actions: { webhook: { url: hook.url } },
      });
      const watch = created.body.watch as PresentedWatch;
      const update = (lastEvaluatedAt: Date) =>
        db.prisma.watch.update({ where: { id: watch.id }, data: { lastEvaluatedAt } });
      await update(new Date(Date.now() - 30 * 60_000));
      expect(await sweep()).toEqual([]);
      await update(new Date(Date.now() - 2 * 3600_000));
      const swept = await sweep();
      expect(swept).toEqual([{ kind: "sweep", watchIds: [watch.id] }]);
      await runWatchJob(db.prisma, swept[0]!, { queue });
      const [trigger] = await db.prisma.watchTrigger.findMany({ where: { watchId: watch.id } });
      expect(trigger!.text).toMatch(
        /^Watch "Growing": Failure cluster ".+" of watch-g grew by 5 sessions in the last 24 hours/,
      );
      const delivery = { kind: "deliver", triggerId: trigger!.id, attempt: 1 } as const;
      expect(queued.splice(0)).toEqual([{ jobs: [delivery], delayMs: 0 }]);
      // Swept again: its window has not passed since.
      await runWatchJob(db.prisma, swept[0]!, { queue });
      expect(await sweep()).toEqual([]);

      // A worker recorded attempt 1 as sending, POSTed, and stopped before recording the answer.
      const row = await db.prisma.watchDelivery.create({
        data: { watchId: watch.id, triggerId: trigger!.id, attempt: 1, status: "sending", at: new Date() },
      });
      // While that send may still be in flight, the job delivered again does not send: it looks again later.
      await runWatchJob(db.prisma, delivery, { queue });
      expect(queued.splice(0)).toEqual([{ jobs: [delivery], delayMs: expect.any(Number) as number }]);
      expect(hook.got).toHaveLength(0);
      expect(await sweep()).toEqual([]);
      // Sending for longer than three POST timeouts: the worker stopped. The sweep sends it again, once, with the key.
      await db.prisma.watchDelivery.update({ where: { id: row.id }, data: { at: new Date(Date.now() - 31_000) } });
      const resend = await sweep();
      expect(resend).toEqual([delivery]);
      await runWatchJob(db.prisma, resend[0]!, { queue });
      await runWatchJob(db.prisma, resend[0]!, { queue });
      expect(queued).toEqual([]);
      expect(hook.got.map((g) => g.key)).toEqual([trigger!.id]);
      const log = await call(deliveriesRoute, `/api/v1/watches/${watch.id}/deliveries`, {}, { id: watch.id });
      expect(
        (log.body.deliveries as Record<string, unknown>[]).map((d) => [d.attempt, d.status, d.httpStatus, d.note]),
      ).toEqual([[1, "delivered", 200, RESENT_NOTE]]);
    } finally {
      await jobs.stop();
      await hook.close();
    }
  }, 120_000);

  it("refuses a webhook off the allow-list, and hostile bodies, with 400 and nothing written", async () => {
    await importCohort("watch-c", "1.0", 2, {});
    const base = { agentName: "watch-c", name: "w", condition: { kind: "new_cluster" } };
    const before = await db.prisma.watch.count();
    const offList = await post({ ...base, actions: { webhook: { url: "http://127.0.0.1:9/hook" } } });
    expect(offList.status).toBe(400);
    expect(offList.body.error).toMatchObject({
      code: "invalid_input",
      message:
        'The webhook cannot be saved: Host "127.0.0.1:9" is not on the executor allow-list (Settings → Executors). Add its host under Settings → Executors first.',
      issues: [
        {
          path: "actions.webhook.url",
          message: 'Host "127.0.0.1:9" is not on the executor allow-list (Settings → Executors).',
        },
      ],
    });
    const metadata = await post({ ...base, actions: { webhook: { url: "http://169.254.169.254/latest/meta-data" } } });
    expect(metadata.status).toBe(400);

    const hostile: [unknown, string][] = [
      [
        '{"__proto__": {"admin": true}, "agentName": "watch-c", "name": "w", "condition": {"kind": "new_cluster"}, "actions": {"investigate": {"maxSessions": 1}}}',
        "",
      ],
      [{ ...base, actions: {} }, "actions.webhook"],
      [{ ...base, actions: { webhook: { url: "file:///etc/passwd" } } }, "actions.webhook.url"],
      [{ ...base, actions: { investigate: { maxSessions: 1e300 } } }, "actions.investigate.maxSessions"],
      [{ ...base, condition: { kind: "cluster_growth", perDay: -1 } }, "condition.perDay"],
      [{ ...base, condition: { kind: "everything" } }, "condition.kind"],
      [{ ...base, name: "x".repeat(5000), actions: { investigate: { maxSessions: 1 } } }, "name"],
      [`${"[".repeat(5000)}${"]".repeat(5000)}`, ""],
      [{ ...base, agentId: "a", actions: { investigate: { maxSessions: 1 } } }, "agentId"],
    ];
    for (const [body, path] of hostile) {
      const answer = await post(body);
      expect(answer.status, JSON.stringify(body).slice(0, 80)).toBe(400);
      const error = answer.body.error as { code: string; issues: { path: string }[] };
      expect(error.code).toBe("invalid_input");
      if (path) expect(error.issues.map((i) => i.path)).toContain(path);
    }
    const unknownCheck = await post({
      ...base,
      condition: { kind: "check_pass_rate_below", checkId: "nope", lastN: 10, threshold: 0.9 },
      actions: { investigate: { maxSessions: 1 } },
    });
    expect([unknownCheck.status, (unknownCheck.body.error as { code: string }).code]).toEqual([404, "not_found"]);
    expect(await db.prisma.watch.count()).toBe(before);
    expect((await call(listRoute, "/api/v1/watches?agentName=watch-c")).body.watches).toEqual([]);
  });

  it("investigates a new cluster: a blame search on each sampled session and a draft report naming each one's deciding step", async () => {
    const model = await startScriptedModel({ script: neverRefunds });
    try {
      await db.prisma.modelEndpoint.create({
        data: { name: "scripted", baseUrl: model.baseUrl, model: "gpt-4.1-2025-04-14" },
      });
      await db.prisma.allowedHost.create({ data: { host: model.host } });
      const check = await db.prisma.check.create({
        data: { name: "no refund", definition: { kind: "tool_not_called", tool: "refund_payment" } },
      });
      // Two more refund sessions (the demo's, under other ids and titles): the cluster will have three members.
      const refund = JSON.parse(await readFile("prisma/seed/native/refund-agent.json", "utf8")) as Record<
        string,
        unknown
      >;
      for (const n of [2, 3]) {
        const copy = { ...refund, externalId: `${String(refund.externalId)}:copy-${n}`, title: `Refund, take ${n}` };
        const imported = await importSessions(analyst, { body: JSON.stringify(copy), format: "native" }, db.prisma);
        expect(imported.ok).toBe(true);
      }
      const created = await post({
        agentName: "harbor-pine-support",
        name: "Refund failures",
        condition: { kind: "new_cluster" },
        actions: { investigate: { maxSessions: 3, trials: 1 } },
      });
      expect(created.status).toBe(201);
      const watch = created.body.watch as PresentedWatch;
      // The demo session has four model steps: a blame search probes at most three forks of one trial each.
      expect(watch.costBound).toEqual({
        sessions: 3,
        trials: 1,
        modelSteps: 4,
        probesPerSession: 3,
        replays: 9,
        maxLiveCalls: 162,
        text: "Each trigger runs at most 3 blame searches of at most 3 replays each: 9 replays and 162 live model calls in all (the agent's longest session has 4 model steps).",
      });

      // The check judges the agent's sessions; the refund session fails it and lands in a new cluster.
      await attachCheck(analyst, { checkId: check.id, agentName: "harbor-pine-support" }, db.prisma);
      await startBackfill(analyst, { checkId: check.id, agentName: "harbor-pine-support" }, db.prisma);
      const agent = await agentId("harbor-pine-support");
      await runWatchJob(db.prisma, { kind: "evaluate", agentIds: [agent] });

      const [trigger] = await db.prisma.watchTrigger.findMany({ where: { watchId: watch.id } });
      const state = trigger!.investigation as unknown as TriggerInvestigation;
      expect(state).toMatchObject({ status: "reported", checkId: check.id, refused: [], error: null });
      // Each of the cluster's three sessions was sampled and blame-searched on its own.
      expect(state.investigationIds).toHaveLength(3);
      const investigations = await Promise.all(
        state.investigationIds.map((id) =>
          db.prisma.investigation.findUniqueOrThrow({
            where: { id },
            include: { session: { select: { title: true } } },
          }),
        ),
      );
      expect(investigations.map((i) => i.session.title).sort()).toEqual([
        "Refund for cracked pour-over set (order 4821)",
        "Refund, take 2",
        "Refund, take 3",
      ]);
      for (const investigation of investigations) {
        expect(investigation).toMatchObject({ kind: "blame", status: "completed", createdBy: "script" });
        expect(investigation.result).toMatchObject({ kind: "decided", modelStep: 2, baseSeq: 5 });
      }

      const report = await db.prisma.report.findUniqueOrThrow({
        where: { id: state.reportId! },
        include: { evidence: true },
      });
      expect(report.status).toBe("draft");
      expect(report.title).toBe(trigger!.text);
      const sections = report.sections as { observedBaseline: string; scope: string };
      // One line per sampled session, each naming that session's own deciding step and its own blame search.
      expect(sections.observedBaseline).toBe(
        [
          "Deciding steps:",
          ...investigations.map(
            (i) =>
              `- Session "${i.session.title}" (${i.sessionId}): deciding step 5 (called refund_payment), model step 3; blame search ${i.id}.`,
          ),
        ].join("\n"),
      );
      expect(sections.scope).toContain("Blame searches on 3 failed sessions.");
      expect(report.evidence.map((e) => [e.kind, e.sourceKey])).toEqual([
        ["blame", `investigation:${investigations[0]!.id}`],
      ]);
    } finally {
      await model.close();
      await db.prisma.modelEndpoint.deleteMany({});
    }
  }, 300_000);

  it("deletes a watch by id", async () => {
    const [w] = await db.prisma.watch.findMany({ take: 1 });
    const gone = await call(deleteQueryRoute, `/api/v1/watches?id=${w!.id}`, { method: "DELETE" });
    expect(gone).toEqual({ status: 200, body: { deleted: { id: w!.id } } });
    const again = await call(deleteQueryRoute, `/api/v1/watches?id=${w!.id}`, { method: "DELETE" });
    expect(again.status).toBe(404);
  });

  it("deletes a watch at /api/v1/watches/:id with its triggers and delivery log; an unknown id is a 404", async () => {
    const [w] = await db.prisma.watch.findMany({ where: { deliveries: { some: {} } }, take: 1 });
    const path = `/api/v1/watches/${w!.id}`;
    const gone = await call(deleteRoute, path, { method: "DELETE" }, { id: w!.id });
    expect(gone).toEqual({ status: 200, body: { deleted: { id: w!.id } } });
    expect(await db.prisma.watchTrigger.count({ where: { watchId: w!.id } })).toBe(0);
    expect(await db.prisma.watchDelivery.count({ where: { watchId: w!.id } })).toBe(0);
    const again = await call(deleteRoute, path, { method: "DELETE" }, { id: w!.id });
    expect([again.status, (again.body.error as { code: string }).code]).toEqual([404, "not_found"]);
    const hostile = await call(deleteRoute, "/api/v1/watches/__proto__", { method: "DELETE" }, { id: "__proto__" });
    expect(hostile.status).toBe(404);
  });
});
