/**
 * Durable jobs against real databases and real processes: worker processes
 * (`npm run worker`'s script, and a stand-in for `npm start` on the embedded
 * database) killed with SIGKILL in the middle of a live call, a live customer
 * tool on 127.0.0.1 that counts its calls, and the lease that keeps two
 * workers off one replay.
 */
import { rmSync } from "node:fs";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openDatabase, type Db } from "@/lib/db/client";
import {
  beginLiveCall,
  cancelExperimentRows,
  cancelReplayRow,
  claimReplayRun,
  requeueAbandonedReplays,
} from "@/lib/db/jobs";
import { savePolicyByName } from "@/lib/db/policies";
import { withTransaction } from "@/lib/db/transactions";
import { importLongChat, loadReplayView } from "@/lib/db/replays-testing";
import { runEventsOfClaim, sessionEventsForRun, toRunContext, type RunContextRow } from "@/lib/db/replay-save";
import { EVENT_WINDOW } from "@/lib/db/session-reads";
import { TEST_ENGINES, createTestDatabase, type TestDatabase } from "@/lib/db/testing";
import { AppError } from "@/lib/errors";
import { localAdmin } from "@/lib/server/principal";
import { cacheKey, type Policy } from "@/lib/replay";
import { createExperiment, runExperiment } from "@/lib/server/experiments/experiments";
import { cancelExperiment, cancelReplay, listJobs, presentJobs, retryReplay } from "@/lib/server/jobs/jobs";
import { jobOverview } from "@/lib/db/jobs";
import { decideApproval, supplyFixture } from "@/lib/server/replays/replay-resume";
import { createReplay, startReplay } from "@/lib/server/replays/replays";
import { runNow, runQueuedReplay } from "@/lib/server/replays/run-queued-replay";
import { loadDemoData } from "@/lib/server/sessions/demo-data";
import { parseInput } from "@/lib/errors";
import { createInvestigation, StartInvestigationInput } from "@/lib/server/investigations/investigations";
import { lastToolResult, REFUND_SESSION, startScriptedModel, type Script } from "@/scripts/scripted-model";
import type { JobQueue } from "@/lib/server/job-queue";
import { startJobs } from "./queue";
import {
  LIVE_LOOKUP,
  configureLiveTool,
  countingToolServer,
  eventually,
  generateRefundCohort,
  startTsx,
  type Proc,
} from "./testing";

// A lease of 8 s: short enough to wait out, long enough that a heartbeat late on two busy cores keeps it.
const FAST = { BRANCHPOINT_LEASE_SECONDS: "8", BRANCHPOINT_WORKER_CONCURRENCY: "2", BRANCHPOINT_JOB_ATTEMPTS: "3" };

async function saveVersion(prisma: Db, name: string, document: Policy): Promise<string> {
  return (await withTransaction(prisma, (tx) => savePolicyByName(tx, { name, agentId: null, document }))).versionId;
}

function urlOf(db: TestDatabase): string {
  return `postgres://postgres@127.0.0.1:5432/${db.pgConfig!.database}`;
}

/** A queue that records the replays it was given and runs nothing. */
function recordingEnqueue(): { queue: JobQueue; calls: string[][] } {
  const calls: string[][] = [];
  const queue: JobQueue = {
    enqueueReplays: async (ids) => {
      calls.push([...ids]);
    },
    enqueueInvestigations: async () => undefined,
  };
  return { queue, calls };
}

describe("a worker killed with SIGKILL in the middle of an experiment, on PostgreSQL", () => {
  let db: TestDatabase;
  beforeAll(async () => {
    db = await createTestDatabase("postgres");
  });
  afterAll(async () => {
    await db?.drop();
  });

  it("another worker process finishes it: every member ends once, no live call is made twice", async () => {
    const { agentVersionId, orders } = await generateRefundCohort(db.prisma, 12);
    const workers: Proc[] = [];
    const kill: { done: Promise<void> | null } = { done: null };
    const tool = await countingToolServer({
      delayMs: 150,
      // The fifth call is held, and the worker process making it is killed while it waits.
      hold: (hit) => {
        if (hit.tool !== "lookup_order" || kill.done || tool.hits.length < 5) return false;
        kill.done = (async () => {
          const replay = await db.prisma.replay.findFirstOrThrow({
            where: { session: { externalId: `cohort:cohort-1:${hit.order}` } },
            select: { leaseOwner: true },
          });
          const pid = Number(replay.leaseOwner!.split(":")[1]);
          const victim = workers.find((w) => w.child.pid === pid);
          if (!victim) throw new Error(`no worker with pid ${pid} (lease ${replay.leaseOwner})`);
          await victim.kill9();
        })();
        return true;
      },
    });
    const queue = await startJobs(db, { work: false, log: () => undefined });
    try {
      await configureLiveTool(db.prisma, "lookup_order", tool.url);
      const versionId = await saveVersion(db.prisma, "live lookups", LIVE_LOOKUP);
      const created = await createExperiment(
        localAdmin("tester"),
        { name: "kill -9", policyVersionId: versionId, agentVersionId },
        db.prisma,
      );
      await runExperiment(localAdmin("tester"), { experimentId: created.id }, db.prisma, { queue });
      expect((await db.prisma.experiment.findUniqueOrThrow({ where: { id: created.id } })).status).toBe("pending");

      const url = urlOf(db);
      for (let i = 0; i < 2; i++) workers.push(startTsx("scripts/worker.ts", [], { ...FAST, DATABASE_URL: url }));
      await Promise.all(workers.map((w) => w.waitFor(/Branchpoint worker \d+: 2 at once/)));

      await eventually("every member replay to end", async () => {
        const open = await db.prisma.replay.count({
          where: { experimentId: created.id, status: { in: ["queued", "running"] } },
        });
        return open === 0;
      });
      await kill.done;

      const replays = await db.prisma.replay.findMany({
        where: { experimentId: created.id },
        select: { id: true, status: true, stepCount: true, leaseOwner: true, pending: true },
      });
      expect(replays).toHaveLength(12);
      expect(replays.every((r) => r.leaseOwner === null)).toBe(true);
      // The killed worker's calls were started and their answers never reached it: they are not made
      // again. The held call is one; the worker runs two at once, so its other replay may have had a call
      // in flight too. Each such replay waits for its answer (a person takes it from the tool's records);
      // every other member completed.
      const waiting = replays.filter((r) => r.status !== "completed");
      expect(waiting.length).toBeGreaterThanOrEqual(1);
      expect(waiting.length).toBeLessThanOrEqual(2);
      for (const w of waiting) {
        expect(w.status).toBe("paused");
        expect(w.pending).toMatchObject({
          waitingFor: "fixture",
          tool: "lookup_order",
          miss: { reason: "live_call_in_doubt" },
        });
      }
      expect(replays.filter((r) => r.status === "completed").every((r) => r.stepCount === 9)).toBe(true);

      // No order's live call made twice. Every completed member's call was made once; a call in doubt was
      // made at most once (the held one was; a worker killed between recording a call and sending it never
      // sent it, which is why such a call waits for a person rather than being made again).
      const hitOrders = tool.hits.map((h) => h.order);
      expect(new Set(hitOrders).size).toBe(hitOrders.length);
      expect(hitOrders.every((o) => o !== null && orders.includes(o))).toBe(true);
      expect(tool.hits.length).toBeGreaterThanOrEqual(12 - waiting.length);
      expect(tool.hits.length).toBeLessThanOrEqual(12);
      expect(tool.hits.filter((h) => !h.answered).length).toBeGreaterThanOrEqual(1);
      const hitsBeforeAnswers = tool.hits.length;
      expect(await db.prisma.liveCall.count({ where: { replay: { experimentId: created.id } } })).toBe(12);
      // Each completed branch log holds its live result once; the waiting ones hold none.
      const logs = await db.prisma.replayLogEntry.groupBy({
        by: ["replayId"],
        where: { replay: { experimentId: created.id } },
        _count: { _all: true },
      });
      expect(logs.map((l) => l._count._all)).toEqual(Array.from({ length: 12 - waiting.length }, () => 1));
      for (const w of waiting) expect(logs.map((l) => l.replayId)).not.toContain(w.id);

      // The answers, supplied: the surviving worker finishes them without calling the tool.
      for (const w of waiting)
        await supplyFixture(
          localAdmin("dana"),
          { replayId: w.id, output: { status: "delivered" }, note: "from the order system's audit log" },
          db.prisma,
          { queue },
        );
      await eventually("the waiting replays to complete", async () => {
        const open = await db.prisma.replay.count({
          where: { id: { in: waiting.map((w) => w.id) }, status: { not: "completed" } },
        });
        return open === 0;
      });
      expect(tool.hits).toHaveLength(hitsBeforeAnswers);
      for (const w of waiting) {
        const view = (await loadReplayView(db.prisma, w.id))!;
        expect(view.steps.filter((st) => st.name === "lookup_order").map((st) => st.source)).toEqual(["fixture"]);
      }
      const experiment = await db.prisma.experiment.findUniqueOrThrow({ where: { id: created.id } });
      expect(experiment.status).toBe("completed");
      // The surviving worker is still up and says nothing went wrong.
      const survivors = workers.filter((w) => w.child.exitCode === null && w.child.signalCode === null);
      expect(survivors).toHaveLength(1);
      expect(survivors[0]!.output()).not.toMatch(/Error/);
    } finally {
      for (const w of workers) if (w.child.exitCode === null && w.child.signalCode === null) await w.kill9();
      await queue.stop();
      await tool.close();
    }
  }, 240_000);
});

describe("a worker killed with SIGKILL in the middle of an investigation, on PostgreSQL", () => {
  let db: TestDatabase;
  beforeAll(async () => {
    db = await createTestDatabase("postgres");
    await loadDemoData(db.prisma);
  });
  afterAll(async () => {
    await db?.drop();
  });

  it("a second worker takes it over after the lease runs out and finishes it: finished probes kept, the cut-off probe's replays reused, none duplicated", async () => {
    const workers: Proc[] = [];
    const snapshot: { probes: unknown[]; pending: { key: string; replayIds: string[] } | null } = {
      probes: [],
      pending: null,
    };
    const kill: { done: Promise<void> | null } = { done: null };
    // The agent as it should have behaved: it looks the order up, then declines to refund it.
    const neverRefunds: Script = (request) =>
      lastToolResult(request.messages, "lookup_order") === null
        ? { toolCalls: [{ name: "lookup_order", args: { order_id: "4821" } }] }
        : { content: REFUND_SESSION.refuse };
    const model = await startScriptedModel({
      script: neverRefunds,
      // The first model call of the second probe: its worker dies while it waits for the answer.
      gate: async () => {
        if (kill.done || !investigationId) return;
        const row = await db.prisma.investigation.findUniqueOrThrow({ where: { id: investigationId } });
        if ((row.probes as unknown[]).length === 0) return;
        kill.done = (async () => {
          snapshot.probes = row.probes as unknown[];
          snapshot.pending = row.pendingProbe as typeof snapshot.pending;
          const pid = Number(row.leaseOwner!.split(":")[1]);
          const victim = workers.find((w) => w.child.pid === pid);
          if (!victim) throw new Error(`no worker with pid ${pid} (lease ${row.leaseOwner})`);
          await victim.kill9();
        })();
        await kill.done;
      },
    });
    let investigationId = "";
    const queue = await startJobs(db, { work: false, log: () => undefined });
    try {
      await db.prisma.modelEndpoint.create({
        data: { name: "scripted", baseUrl: model.baseUrl, model: "gpt-4.1-2025-04-14" },
      });
      await db.prisma.allowedHost.create({ data: { host: model.host } });
      const session = await db.prisma.session.findFirstOrThrow({
        where: { agent: { name: "harbor-pine-support" }, title: { contains: "4821" } },
        select: { id: true },
      });
      const before = await db.prisma.replay.count();
      const created = await createInvestigation(
        localAdmin("dana"),
        parseInput(StartInvestigationInput, {
          kind: "blame",
          sessionId: session.id,
          checks: [{ name: "no refund", definition: { kind: "tool_not_called", tool: "refund_payment" } }],
          trials: 2,
          share: 1,
        }),
        db.prisma,
      );
      investigationId = created.id;
      await queue.enqueueInvestigations([{ id: created.id, by: "dana" }]);

      const url = urlOf(db);
      workers.push(startTsx("scripts/worker.ts", [], { ...FAST, DATABASE_URL: url }));
      await workers[0]!.waitFor(/Branchpoint worker \d+: 2 at once/);
      await eventually("the first worker to be killed mid-probe", async () => kill.done !== null);
      await kill.done;
      // Killed with the first probe stored and the second one's replays created.
      expect(snapshot.probes).toHaveLength(1);
      expect(snapshot.pending).toMatchObject({ key: "2" });
      expect(snapshot.pending!.replayIds).toHaveLength(2);
      const stuck = await db.prisma.investigation.findUniqueOrThrow({ where: { id: created.id } });
      expect(stuck.status).toBe("running");

      workers.push(startTsx("scripts/worker.ts", [], { ...FAST, DATABASE_URL: url }));
      // One read per look: two reads could see "queued" and then "running" and take that for finished.
      await eventually("the second worker to finish the investigation", async () => {
        const { status } = await db.prisma.investigation.findUniqueOrThrow({ where: { id: created.id } });
        return status !== "running" && status !== "queued";
      });
      const done = await db.prisma.investigation.findUniqueOrThrow({ where: { id: created.id } });
      // The fields compared, on their own, so that a failure shows what they were.
      const { status, result, attempts, leaseOwner, pendingProbe, error } = done;
      expect({ status, result, attempts, leaseOwner, pendingProbe, error }).toMatchObject({
        status: "completed",
        result: { kind: "decided", modelStep: 2, baseSeq: 5 },
        attempts: 2,
        leaseOwner: null,
        pendingProbe: null,
      });
      const probes = done.probes as { modelStep: number; passes: number; trials: number; replayIds: string[] }[];
      // The same probes as a run nobody interrupted: the first kept as it was, the cut-off one on its own replays.
      expect(probes.map((p) => [p.modelStep, p.passes, p.trials])).toEqual([
        [0, 2, 2],
        [2, 2, 2],
        [3, 0, 2],
      ]);
      expect(probes[0]).toEqual(snapshot.probes[0]);
      expect(probes[1]!.replayIds).toEqual(snapshot.pending!.replayIds);
      // Six replays in all (three probes of two trials), each ended once, with its steps stored once.
      expect(await db.prisma.replay.count()).toBe(before + 6);
      const replays = await db.prisma.replay.findMany({
        where: { id: { in: probes.flatMap((p) => p.replayIds) } },
        select: { id: true, status: true, leaseOwner: true, stepCount: true, _count: { select: { steps: true } } },
      });
      expect(replays).toHaveLength(6);
      for (const r of replays) {
        expect(r.status).toBe("completed");
        expect(r.leaseOwner).toBeNull();
        expect(r._count.steps).toBe(r.stepCount);
      }
      const survivor = workers[1]!;
      expect(survivor.output()).toMatch(/investigation\(s\) whose worker stopped are queued again/);
      expect(survivor.output()).not.toMatch(/Error/);
    } finally {
      for (const w of workers) if (w.child.exitCode === null && w.child.signalCode === null) await w.kill9();
      await queue.stop();
      await model.close();
    }
  }, 180_000);
});

describe("kill -9 on the embedded database, mid-replay and mid-resume", () => {
  let dir = "";
  afterAll(() => {
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it("after a restart the fixture and approval are kept, no live call is made again, and the two cut off wait for their answers", async () => {
    const db = await createTestDatabase("pglite");
    dir = db.location;
    const { orders } = await generateRefundCohort(db.prisma, 2);
    const [xOrder, yOrder] = orders as [string, string];
    const session = async (order: string) =>
      (await db.prisma.session.findFirstOrThrow({ where: { externalId: `cohort:cohort-1:${order}` } })).id;
    let held = 0;
    let child1: Proc | null = null;
    const tool = await countingToolServer({
      // The first run of X holds at get_current_time; Y's resume holds at refund_payment: kill then.
      hold: (hit) => {
        if (child1 === null) return false;
        if (!(hit.tool === "get_current_time" || hit.tool === "refund_payment")) return false;
        if (tool.hits.filter((h) => h.tool === hit.tool).length > 1) return false;
        held += 1;
        return true;
      },
    });
    try {
      await configureLiveTool(db.prisma, "lookup_order", tool.url);
      await configureLiveTool(db.prisma, "get_current_time", tool.url);
      await db.prisma.toolEndpoint.create({ data: { toolName: "refund_payment", url: tool.url, timeoutMs: 30_000 } });
      const X: Policy = {
        ...LIVE_LOOKUP,
        tools: {
          ...LIVE_LOOKUP.tools,
          overrides: { ...LIVE_LOOKUP.tools.overrides, get_current_time: { type: "passthrough" } },
        },
      };
      const Y: Policy = {
        ...LIVE_LOOKUP,
        tools: {
          ...LIVE_LOOKUP.tools,
          overrides: {
            ...LIVE_LOOKUP.tools.overrides,
            get_current_time: { type: "fixture", on_miss: "pause" },
            refund_payment: { type: "passthrough", approval: "per_call" },
          },
        },
      };
      // Y runs here up to its approval: a live lookup, a pause, a fixture, a resume, then the approval waits.
      const y = await startReplay(localAdmin("tester"), { sessionId: await session(yOrder), policy: Y }, db.prisma);
      expect((await db.prisma.replay.findUniqueOrThrow({ where: { id: y.id } })).status).toBe("paused");
      await supplyFixture(
        localAdmin("dana"),
        { replayId: y.id, output: { iso: "2025-03-11T10:02:08-04:00" }, note: "from the ticket" },
        db.prisma,
      );
      expect((await db.prisma.replay.findUniqueOrThrow({ where: { id: y.id } })).status).toBe("awaiting_approval");
      // The approval and X go on the queue, for the server process to run.
      const queue = await startJobs(db, { work: false, log: () => undefined });
      await decideApproval(localAdmin("lee"), { replayId: y.id, decision: "approved", note: "test" }, db.prisma, {
        queue,
      });
      const x = await startReplay(localAdmin("tester"), { sessionId: await session(xOrder), policy: X }, db.prisma, {
        queue,
      });
      await queue.stop();
      await db.close();

      child1 = startTsx("scripts/embedded-child.ts", [dir], FAST);
      await child1.waitFor(/embedded worker ready/);
      await eventually("both live calls to be held", async () => held === 2, 60_000);
      await child1.kill9();

      const child2 = startTsx("scripts/embedded-child.ts", [dir, "--until-idle"], FAST);
      await child2.waitFor(/embedded worker idle/, 90_000);
      expect(await child2.exited).toBe(0);

      const again = await openDatabase({ dir, url: "" });
      try {
        // The two calls cut off by the kill were started and never answered: not made again; each
        // replay waits for that call's answer.
        for (const [id, name] of [
          [x.id, "get_current_time"],
          [y.id, "refund_payment"],
        ] as const) {
          const view = (await loadReplayView(again.prisma, id))!;
          expect(view.replay.status).toBe("paused");
          expect(view.pending).toMatchObject({ tool: name, miss: { reason: "live_call_in_doubt" } });
        }
        expect(tool.hits).toHaveLength(4);
        await supplyFixture(
          localAdmin("dana"),
          { replayId: x.id, output: { iso: "2025-03-11T10:02:08-04:00" }, note: "from the clock's log" },
          again.prisma,
        );
        await supplyFixture(
          localAdmin("dana"),
          { replayId: y.id, output: { refunded: true }, note: "from the payment provider" },
          again.prisma,
        );
        const xv = (await loadReplayView(again.prisma, x.id))!;
        const yv = (await loadReplayView(again.prisma, y.id))!;
        expect(xv.replay.status).toBe("completed");
        expect(yv.replay.status).toBe("completed");
        expect(yv.fixtures.map((f) => f.note)).toEqual(["from the ticket", "from the payment provider"]);
        expect(yv.approvals).toMatchObject([{ decision: "approved", by: "lee" }]);
        expect(xv.steps.filter((s) => s.source === "live").map((s) => s.name)).toEqual(["lookup_order"]);
        expect(xv.steps.filter((s) => s.name === "get_current_time").map((s) => s.source)).toEqual(["fixture"]);
        // Every live call made once: the two lookups answered, the two cut off never repeated.
        expect(tool.hits.map((h) => `${h.tool}:${h.order}:${h.answered}`).sort()).toEqual(
          [
            `lookup_order:${xOrder}:true`,
            `lookup_order:${yOrder}:true`,
            "get_current_time:null:false",
            `refund_payment:${yOrder}:false`,
          ].sort(),
        );
        const ids = await again.prisma.replayLogEntry.findMany({ select: { replayId: true, payload: true } });
        const keys = ids.map((e) => `${e.replayId}:${(e.payload as { id: string }).id}`);
        expect(new Set(keys).size).toBe(keys.length);
        expect(await again.prisma.replay.count({ where: { status: { in: ["queued", "running"] } } })).toBe(0);
      } finally {
        await again.close();
      }
    } finally {
      if (child1) await child1.kill9();
      await tool.close();
    }
  }, 240_000);
});

describe.each(TEST_ENGINES)("jobs on %s", (engine) => {
  let db: TestDatabase;
  let agentVersionId: string;
  let orders: string[];
  const sessionOf = async (order: string) =>
    (await db.prisma.session.findFirstOrThrow({ where: { externalId: `cohort:cohort-1:${order}` } })).id;

  beforeAll(async () => {
    db = await createTestDatabase(engine);
    ({ agentVersionId, orders } = await generateRefundCohort(db.prisma, 4));
  });
  afterAll(async () => {
    await db?.drop();
  });

  it("of many workers claiming one replay at once, exactly one gets it", async () => {
    const { id } = await createReplay(
      localAdmin("t"),
      { sessionId: await sessionOf(orders[0]!), policy: LIVE_LOOKUP },
      db.prisma,
    );
    const other = engine === "postgres" ? await openDatabase({ url: urlOf(db) }) : null;
    try {
      const clients = other ? [db.prisma, other.prisma] : [db.prisma];
      const claims = await Promise.all(
        Array.from({ length: 20 }, (_, k) => claimReplayRun(clients[k % clients.length]!, id, `w${k}`, 30_000)),
      );
      expect(claims.filter((c) => c.kind === "claimed")).toHaveLength(1);
      expect(claims.filter((c) => c.kind === "busy")).toHaveLength(19);
    } finally {
      await other?.close();
    }
  });

  it("a claim with the run's context answers a short base's events as a run reads them; a longer base's are read a window at a time", async () => {
    await loadDemoData(db.prisma);
    const long = (await importLongChat(db.prisma, EVENT_WINDOW)).sessionId;
    const sessions = await db.prisma.session.findMany({ select: { id: true, eventCount: true } });
    const withStarts = await db.prisma.event.count({ where: { startedAt: { not: null }, costUsd: { not: null } } });
    // Demo sessions carry start times and costs, the chat logs prefix-stored model inputs: every kind of column.
    expect(withStarts).toBeGreaterThan(0);
    expect(await db.prisma.event.count({ where: { inputPrefixSeq: { not: null } } })).toBeGreaterThan(0);
    for (const session of sessions) {
      const { id } = await createReplay(localAdmin("t"), { sessionId: session.id, policy: LIVE_LOOKUP }, db.prisma);
      const claim = await claimReplayRun(db.prisma, id, "w-base", 30_000, true);
      if (claim.kind !== "claimed") throw new Error(`replay ${id} was not claimed: ${claim.kind}`);
      const context = toRunContext(claim.also as RunContextRow);
      const read = await sessionEventsForRun(db.prisma, session.id, context.seqs);
      expect(read).toHaveLength(session.eventCount);
      if (session.id === long) expect(claim.events).toBeNull();
      else expect(runEventsOfClaim(claim.events!)).toEqual(read);
    }
  });

  it("a worker whose lease ran out mid-call stores nothing and calls nothing more; the worker that took over does not repeat its call", async () => {
    const tool = await countingToolServer({ hold: () => tool.hits.length === 1 });
    try {
      await configureLiveTool(db.prisma, "lookup_order", tool.url);
      const { id } = await createReplay(
        localAdmin("t"),
        { sessionId: await sessionOf(orders[0]!), policy: LIVE_LOOKUP },
        db.prisma,
      );
      // Worker A is in the middle of the live call when its lease runs out (a heartbeat late under load).
      const a = runQueuedReplay(db.prisma, id, { owner: "A", leaseMs: 600_000 });
      await eventually("A's call to reach the tool", async () => tool.heldCount() === 1);
      await db.prisma.$executeRaw`UPDATE "Replay" SET "leaseUntil" = now() - interval '1 second' WHERE id = ${id}`;
      expect(await requeueAbandonedReplays(db.prisma)).toEqual([id]);

      // Worker B takes it over and reaches the same call: started, no answer yet, so it waits instead of calling.
      expect(await runQueuedReplay(db.prisma, id, { owner: "B", leaseMs: 600_000 })).toBe("ran");
      const paused = await db.prisma.replay.findUniqueOrThrow({ where: { id } });
      expect(paused.status).toBe("paused");
      expect(paused.pending).toMatchObject({ tool: "lookup_order", miss: { reason: "live_call_in_doubt" } });
      expect(tool.hits).toHaveLength(1);

      // A's answer arrives: it is kept in the branch log (the truth about a call that was made), A's run stores nothing else.
      tool.releaseHeld();
      expect(await a).toBe("lease_lost");
      expect(await withTransaction(db.prisma, (tx) => beginLiveCall(tx, id, "live:other", "A"))).toEqual({
        kind: "lease_lost",
      });
      expect((await db.prisma.replay.findUniqueOrThrow({ where: { id } })).status).toBe("paused");

      // Resumed, the branch reads that answer from its log: the tool is still called once in all.
      await supplyFixture(
        localAdmin("t"),
        { replayId: id, output: { status: "delivered" }, note: "from the order system" },
        db.prisma,
      );
      const view = (await loadReplayView(db.prisma, id))!;
      expect(view.replay.status).toBe("completed");
      expect(view.steps.filter((st) => st.name === "lookup_order").map((st) => st.source)).toEqual(["live"]);
      expect(tool.hits).toHaveLength(1);
      expect(tool.hits[0]!.answered).toBe(true);
    } finally {
      await tool.close();
    }
  });

  it("a replay whose runs keep ending without a result stops after the attempt limit, saying so", async () => {
    const { id } = await createReplay(
      localAdmin("t"),
      { sessionId: await sessionOf(orders[1]!), policy: LIVE_LOOKUP },
      db.prisma,
    );
    // Three runs whose workers died: each claim took the lease, none stored anything.
    for (let k = 0; k < 3; k++) {
      const claim = await claimReplayRun(db.prisma, id, `dead${k}`, 30_000);
      expect(claim.kind).toBe("claimed");
      expect(await claimReplayRun(db.prisma, id, `other${k}`, 30_000)).toMatchObject({ kind: "busy" });
      // Its worker died: the lease runs out.
      await db.prisma.$executeRaw`UPDATE "Replay" SET "leaseUntil" = now() - interval '1 second' WHERE id = ${id}`;
    }
    expect(await runQueuedReplay(db.prisma, id, { owner: "w", maxAttempts: 3 })).toBe("gave_up");
    const row = await db.prisma.replay.findUniqueOrThrow({ where: { id } });
    expect(row.status).toBe("failed");
    expect(row.error).toMatchObject({ code: "gave_up" });
    expect((row.error as { message: string }).message).toMatch(/^Stopped after 3 attempts/);
    // A job delivered again for it does nothing.
    expect(await runQueuedReplay(db.prisma, id, { owner: "w2" })).toBe("idle");
  });

  it("cancel: queued members end cancelled at once with nothing run, the experiment ends cancelled", async () => {
    const tool = await countingToolServer();
    try {
      await configureLiveTool(db.prisma, "lookup_order", tool.url);
      const versionId = await saveVersion(db.prisma, `cancel ${engine}`, LIVE_LOOKUP);
      const enqueue = recordingEnqueue();
      const created = await createExperiment(
        localAdmin("t"),
        { name: "c", policyVersionId: versionId, agentVersionId },
        db.prisma,
      );
      await runExperiment(localAdmin("t"), { experimentId: created.id }, db.prisma, enqueue);
      expect(enqueue.calls).toHaveLength(1);
      expect(enqueue.calls[0]).toHaveLength(4);
      expect(await cancelExperimentRows(db.prisma, created.id)).toEqual({ cancelled: 4, stopping: 0 });
      // The jobs still arrive; each finds its replay cancelled and runs nothing.
      await runNow(db.prisma)(enqueue.calls[0]!);
      expect(tool.hits).toHaveLength(0);
      const statuses = await db.prisma.replay.findMany({
        where: { experimentId: created.id },
        select: { status: true },
      });
      expect(statuses.map((s) => s.status)).toEqual(["cancelled", "cancelled", "cancelled", "cancelled"]);
      expect((await db.prisma.experiment.findUniqueOrThrow({ where: { id: created.id } })).status).toBe("cancelled");

      // A single replay: cancelled while queued, it never runs; a finished one cannot be cancelled.
      const queued = await startReplay(
        localAdmin("t"),
        { sessionId: await sessionOf(orders[2]!), policy: LIVE_LOOKUP },
        db.prisma,
        recordingEnqueue(),
      );
      expect(await cancelReplayRow(db.prisma, queued.id)).toBe("cancelled");
      expect(await runQueuedReplay(db.prisma, queued.id, { owner: "w" })).toBe("idle");
      expect(tool.hits).toHaveLength(0);
      const done = await startReplay(
        localAdmin("t"),
        { sessionId: await sessionOf(orders[3]!), policy: LIVE_LOOKUP },
        db.prisma,
      );
      expect(tool.hits).toHaveLength(1);
      expect(await cancelReplayRow(db.prisma, done.id)).toBe("finished");
      expect(await cancelReplayRow(db.prisma, "no-such-replay")).toBe("missing");
    } finally {
      await tool.close();
    }
  });

  it("job operations: a viewer is refused, unknown ids are 404, wrong states 409 naming why; the overview lists failed replays", async () => {
    const viewer = { ...localAdmin("vera"), role: "viewer" as const };
    const failure = async (p: Promise<unknown>) => {
      const error = await p.then(
        () => null,
        (e: unknown) => e,
      );
      expect(error).toBeInstanceOf(AppError);
      return error as AppError;
    };
    const admin = localAdmin("t");
    const versionId = await saveVersion(db.prisma, `ops ${engine}`, LIVE_LOOKUP);
    const created = await createExperiment(
      admin,
      { name: "ops", policyVersionId: versionId, agentVersionId },
      db.prisma,
    );
    const queued = await startReplay(
      admin,
      { sessionId: await sessionOf(orders[0]!), policy: LIVE_LOOKUP },
      db.prisma,
      recordingEnqueue(),
    );
    for (const p of [
      cancelReplay(viewer, { replayId: queued.id }, db.prisma),
      cancelExperiment(viewer, { experimentId: created.id }, db.prisma),
      retryReplay(viewer, { replayId: queued.id }, db.prisma, recordingEnqueue()),
      listJobs(viewer, {}, db.prisma),
    ])
      expect((await failure(p)).code).toBe("forbidden");
    expect((await db.prisma.replay.findUniqueOrThrow({ where: { id: queued.id } })).status).toBe("queued");

    expect((await failure(cancelReplay(admin, { replayId: "nope" }, db.prisma))).message).toBe(
      'No replay with id "nope".',
    );
    expect((await failure(cancelExperiment(admin, { experimentId: "nope" }, db.prisma))).message).toBe(
      'No experiment with id "nope".',
    );
    const enqueue = recordingEnqueue();
    expect((await failure(retryReplay(admin, { replayId: "nope" }, db.prisma, enqueue))).status).toBe(404);
    // Only a failed replay is retried; nothing is enqueued otherwise.
    const notFailed = await failure(retryReplay(admin, { replayId: queued.id }, db.prisma, enqueue));
    expect(notFailed).toMatchObject({
      code: "wrong_state",
      message: "Only a failed replay can be retried; this one is not failed (any more).",
    });
    expect(enqueue.calls).toHaveLength(0);

    expect(await cancelReplay(admin, { replayId: queued.id }, db.prisma)).toEqual({ outcome: "cancelled" });
    expect((await failure(cancelReplay(admin, { replayId: queued.id }, db.prisma))).code).toBe("wrong_state");
    expect(await cancelExperiment(admin, { experimentId: created.id }, db.prisma)).toEqual({
      cancelled: 4,
      stopping: 0,
    });
    expect((await db.prisma.experiment.findUniqueOrThrow({ where: { id: created.id } })).status).toBe("cancelled");
    expect(await failure(cancelExperiment(admin, { experimentId: created.id }, db.prisma))).toMatchObject({
      code: "wrong_state",
      message: "The experiment has already finished; there is nothing to cancel.",
    });

    // A replay that fails (a miss under on_miss: fail) is listed with its reason, and retried once asked.
    const failing = await startReplay(
      admin,
      {
        sessionId: await sessionOf(orders[1]!),
        policy: { ...LIVE_LOOKUP, tools: { default: { type: "history", scope: "baseline", on_miss: "fail" } } },
        edits: [{ seq: 1, op: "replace_tool_args", value: { order_id: "nope" } }],
      },
      db.prisma,
    );
    expect((await db.prisma.replay.findUniqueOrThrow({ where: { id: failing.id } })).status).toBe("failed");
    const jobs = presentJobs(await listJobs(admin, {}, db.prisma));
    expect(jobs.failed.find((j) => j.id === failing.id)).toMatchObject({
      kind: "replay",
      status: "failed",
      worker: null,
    });
    expect(jobs.counts.failed).toBeGreaterThanOrEqual(1);
    expect(await retryReplay(admin, { replayId: failing.id }, db.prisma, enqueue)).toEqual({ replayId: failing.id });
    expect(enqueue.calls).toEqual([[failing.id]]);
    expect((await db.prisma.replay.findUniqueOrThrow({ where: { id: failing.id } })).status).toBe("queued");

    // Investigations are listed up to the limit in each state: newer failures do not hide a running one.
    const sessionId = await sessionOf(orders[0]!);
    const investigation = (status: string) =>
      db.prisma.investigation.create({
        data: { kind: "stale", sessionId, params: {}, estimate: {}, createdBy: "admin", status },
        select: { id: true },
      });
    const running = await investigation("running");
    for (let i = 0; i < 3; i++) await investigation("failed");
    const few = presentJobs(await jobOverview(db.prisma, 2));
    expect(few.running.filter((j) => j.kind === "investigation").map((j) => j.id)).toEqual([running.id]);
    expect(few.failed.filter((j) => j.kind === "investigation")).toHaveLength(2);

    // Smallest-fix searches are listed with their cluster (named after its signature when unnamed) and probes.
    const { agentId } = await db.prisma.session.findUniqueOrThrow({
      where: { id: sessionId },
      select: { agentId: true },
    });
    const cluster = await db.prisma.failureCluster.create({
      data: {
        agentId,
        signatureHash: "jobs-h",
        step: "tool:lookup_order",
        errorType: "NotFound",
        message: "no order <id>",
      },
    });
    const search = await db.prisma.clusterFixSearch.create({
      data: {
        clusterId: cluster.id,
        params: {},
        changes: ["a", "b", "c"],
        status: "running",
        probes: [{}, {}],
        leaseOwner: "worker-9",
        attempts: 1,
      },
    });
    await db.prisma.clusterFixSearch.create({
      data: { clusterId: cluster.id, params: {}, changes: ["a"], status: "done", probes: [{}] },
    });
    const listed = presentJobs(await listJobs(admin, {}, db.prisma));
    const searches = [...listed.queued, ...listed.running, ...listed.failed].filter((j) => j.kind === "fix_search");
    const agent = await db.prisma.agent.findUniqueOrThrow({ where: { id: agentId }, select: { name: true } });
    expect(searches).toEqual([
      {
        id: search.id,
        kind: "fix_search",
        status: "running",
        attempts: 1,
        worker: "worker-9",
        leaseUntil: null,
        progress: { done: 2, total: 9 },
        cancelRequested: false,
        error: null,
        cluster: {
          id: cluster.id,
          label: "lookup_order: NotFound: no order <id>",
          agent: agent.name,
        },
        createdAt: search.createdAt.toISOString(),
      },
    ]);
  });

  it("bad input enqueues nothing and writes nothing: an unknown session, policy version or agent version is a 404", async () => {
    const before = await db.prisma.replay.count();
    const enqueue = recordingEnqueue();
    const refused = async (p: Promise<unknown>, code: string) => {
      const error = await p.then(
        () => null,
        (e: unknown) => e,
      );
      expect(error).toBeInstanceOf(AppError);
      expect((error as AppError).status).toBe(404);
      expect((error as AppError).code).toBe("not_found");
      expect((error as AppError).message).toContain(code);
    };
    await refused(
      startReplay(localAdmin("t"), { sessionId: "nope", policy: LIVE_LOOKUP }, db.prisma, enqueue),
      "session",
    );
    await refused(
      startReplay(
        localAdmin("t"),
        { sessionId: await sessionOf(orders[0]!), policyVersionId: "nope" },
        db.prisma,
        enqueue,
      ),
      "policy version",
    );
    await refused(
      createExperiment(localAdmin("t"), { name: "x", policyVersionId: "nope", agentVersionId }, db.prisma),
      "policy version",
    );
    expect(enqueue.calls).toHaveLength(0);
    expect(await db.prisma.replay.count()).toBe(before);
  });
});

describe("a cancel that lands just before a live call goes out, on PostgreSQL", () => {
  let db: TestDatabase;
  beforeAll(async () => {
    db = await createTestDatabase("postgres");
  });
  afterAll(async () => {
    await db?.drop();
  });

  it("stops it: no call reaches the tool, the replay ends cancelled with the steps before it", async () => {
    const { orders } = await generateRefundCohort(db.prisma, 1);
    const order = orders[0]!;
    const sessionId = (await db.prisma.session.findFirstOrThrow({ where: { externalId: `cohort:cohort-1:${order}` } }))
      .id;
    const tool = await countingToolServer();
    // Another connection records the replay's first live call (`lookup_order`, branch step 1) in a transaction it
    // keeps open: the run, recording that call (the lease check locks the replay's row, which that record's key
    // holds), waits on it after its last step boundary looked the cancel up.
    const blocker = new pg.Client({ connectionString: urlOf(db) });
    await blocker.connect();
    try {
      await configureLiveTool(db.prisma, "lookup_order", tool.url);
      const { id } = await createReplay(localAdmin("t"), { sessionId, policy: LIVE_LOOKUP }, db.prisma);
      const entryId = `live:1:lookup_order:${cacheKey("lookup_order", { order_id: order })}`;
      await blocker.query("BEGIN");
      await blocker.query(
        `INSERT INTO "LiveCall" (id, "replayId", "entryId", owner) VALUES ('lc_blocker', $1, $2, 'x')`,
        [id, entryId],
      );
      const run = runQueuedReplay(db.prisma, id, { owner: "W", leaseMs: 600_000 });
      await eventually("the run to wait at the live call", async () => {
        const rows = await blocker.query<{ n: number }>(
          `SELECT count(*)::int AS n FROM pg_stat_activity
            WHERE datname = current_database() AND wait_event_type = 'Lock' AND pid <> pg_backend_pid()`,
        );
        return rows.rows[0]!.n === 1;
      });
      // The person's cancel lands now, before the call goes out; then the other recording goes away.
      expect(await cancelReplay(localAdmin("t"), { replayId: id }, db.prisma)).toEqual({ outcome: "stopping" });
      await blocker.query("ROLLBACK");
      expect(await run).toBe("ran");

      expect(tool.hits).toHaveLength(0);
      const view = (await loadReplayView(db.prisma, id))!;
      expect(view.replay.status).toBe("cancelled");
      expect(view.replay.error).toMatchObject({
        code: "cancelled",
        message: 'The replay was cancelled before the "lookup_order" call; the step before it is kept.',
      });
      expect(view.steps.map((s) => s.kind)).toEqual(["model_call"]);
      // Nothing says the call was made: a retry would make it, not wait for an answer that never existed.
      expect(await db.prisma.liveCall.count({ where: { replayId: id } })).toBe(0);
      expect(await db.prisma.replayLogEntry.count({ where: { replayId: id } })).toBe(0);
    } finally {
      await blocker.end();
      await tool.close();
    }
  });
});
