/**
 * The "done when" run of durable jobs, on PostgreSQL (127.0.0.1:5432, a
 * database of its own, dropped at the end): generates an N-session cohort
 * (default 1,000) from the demo refund session, runs one experiment over it
 * with two `npm run worker` processes whose `lookup_order` calls go live to a
 * local tool server that counts them, SIGKILLs one worker mid-way and starts
 * another, waits until every member has ended, and checks:
 *   - every member replay ended exactly once (one replay per session, none left
 *     queued or running, each completed one's steps stored once);
 *   - each live call was made at most once, and once for every completed member
 *     (the tool server's count, per order);
 *   - nothing lost: a call the killed worker had in flight is never repeated;
 *     its replay waits for the answer, which this script supplies from the
 *     tool server's own record (as a person would from the tool's records),
 *     after which every member completes and the experiment is completed.
 * Prints sessions/s and the checks; exits 1 when a check fails.
 * Run: npm run cohort:kill [-- --sessions 1000 --concurrency 2]
 */
import { execSync } from "node:child_process";
import { createTestDatabase } from "../lib/db/testing";
import { savePolicyByName } from "../lib/db/policies";
import { withTransaction } from "../lib/db/transactions";
import { startJobs } from "../lib/jobs/queue";
import {
  LIVE_LOOKUP,
  configureLiveTool,
  countingToolServer,
  eventually,
  generateRefundCohort,
  startTsx,
  type Proc,
} from "../lib/jobs/testing";
import { createExperiment, runExperiment } from "../lib/server/experiments/experiments";
import { localAdmin } from "../lib/server/principal";
import { supplyFixture } from "../lib/server/replays/replay-resume";

function arg(name: string, fallback: number): number {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? Number(process.argv[i + 1]) : fallback;
}
const SESSIONS = arg("sessions", 1000);
const CONCURRENCY = String(arg("concurrency", 2));
const ENV = { BRANCHPOINT_LEASE_SECONDS: "5", BRANCHPOINT_WORKER_CONCURRENCY: CONCURRENCY };

async function startWorker(url: string, workers: Proc[]) {
  const worker = startTsx("scripts/worker.ts", [], { ...ENV, DATABASE_URL: url });
  workers.push(worker);
  await worker.waitFor(/Branchpoint worker \d+: \d+ at once/, 120_000);
}

const checks: { ok: boolean; what: string }[] = [];
function check(ok: boolean, what: string) {
  checks.push({ ok, what });
  console.log(`${ok ? "ok  " : "FAIL"} ${what}`);
}

async function main() {
  console.log(`load before: ${execSync("uptime").toString().trim()}`);
  const db = await createTestDatabase("postgres");
  const url = `postgres://postgres@127.0.0.1:5432/${db.pgConfig!.database}`;
  const tool = await countingToolServer({ delayMs: 5 });
  const workers: Proc[] = [];
  try {
    const g0 = performance.now();
    const { agentVersionId, orders } = await generateRefundCohort(db.prisma, SESSIONS);
    console.log(`generated ${SESSIONS} sessions in ${((performance.now() - g0) / 1000).toFixed(1)} s`);
    await configureLiveTool(db.prisma, "lookup_order", tool.url);
    const versionId = (
      await withTransaction(db.prisma, (tx) =>
        savePolicyByName(tx, { name: "live lookups", agentId: null, document: LIVE_LOOKUP }),
      )
    ).versionId;
    const queue = await startJobs(db, { work: false, log: () => undefined });
    const admin = localAdmin("cohort-kill");
    const created = await createExperiment(
      admin,
      { name: "kill -9 mid-way", policyVersionId: versionId, agentVersionId },
      db.prisma,
    );
    // One after the other: each applies pending migrations at start under PostgreSQL's advisory lock.
    for (let i = 0; i < 2; i++) await startWorker(url, workers);

    const open = () =>
      db.prisma.replay.count({ where: { experimentId: created.id, status: { in: ["queued", "running"] } } });
    const start = performance.now();
    await runExperiment(admin, { experimentId: created.id }, db.prisma, { queue });
    await eventually("half the members to end", async () => (await open()) <= SESSIONS / 2, 30 * 60_000);
    const victim = workers[0]!;
    const running = await db.prisma.replay.count({
      where: { experimentId: created.id, status: "running", leaseOwner: { contains: `:${victim.child.pid}:` } },
    });
    await victim.kill9();
    console.log(
      `killed worker ${victim.child.pid} (SIGKILL) with ${running} member(s) running on it, ${await open()} of ${SESSIONS} open; starting another`,
    );
    await startWorker(url, workers);
    await eventually("every member to end", async () => (await open()) === 0, 30 * 60_000);
    const ms = performance.now() - start;

    const members = await db.prisma.replay.findMany({
      where: { experimentId: created.id },
      select: {
        id: true,
        status: true,
        sessionId: true,
        stepCount: true,
        pending: true,
        leaseOwner: true,
        _count: { select: { steps: true } },
      },
    });
    const waiting = members.filter((m) => m.status === "paused");
    console.log(
      `all ${SESSIONS} members ended in ${(ms / 1000).toFixed(1)} s: ${(SESSIONS / (ms / 1000)).toFixed(1)} sessions/s (2 worker processes × ${CONCURRENCY}, one killed and replaced)`,
    );
    check(members.length === SESSIONS, `one member replay per session: ${members.length} of ${SESSIONS}`);
    check(new Set(members.map((m) => m.sessionId)).size === SESSIONS, "no session has two member replays");
    check(
      members.every((m) => m.status === "completed" || m.status === "paused"),
      `every member ended: ${members.filter((m) => m.status === "completed").length} completed, ${waiting.length} waiting for the answer of a call the killed worker had in flight`,
    );
    check(
      waiting.every((m) => (m.pending as { miss?: { reason?: string } } | null)?.miss?.reason === "live_call_in_doubt"),
      "each waiting member waits on a live call in doubt (not repeated), nothing else",
    );
    check(
      members.every((m) => m.leaseOwner === null),
      "no lease left behind",
    );
    const completed = members.filter((m) => m.status === "completed");
    check(
      completed.every((m) => m._count.steps === m.stepCount && m.stepCount === 9),
      "each completed member stored its 9 steps once",
    );
    const perOrder = new Map<string, number>();
    for (const h of tool.hits) perOrder.set(h.order ?? "?", (perOrder.get(h.order ?? "?") ?? 0) + 1);
    check(
      [...perOrder.values()].every((n) => n === 1) && [...perOrder.keys()].every((o) => orders.includes(o)),
      `no live call made twice: ${tool.hits.length} calls for ${perOrder.size} distinct orders`,
    );
    check(
      tool.hits.length >= SESSIONS - waiting.length && tool.hits.length <= SESSIONS,
      `every completed member's live call made once (${tool.hits.length} calls, ${SESSIONS - waiting.length} completed)`,
    );
    const liveCalls = await db.prisma.liveCall.count({ where: { replay: { experimentId: created.id } } });
    check(liveCalls === SESSIONS, `one write-ahead live-call record per member: ${liveCalls}`);
    const entries = await db.prisma.replayLogEntry.findMany({
      where: { replay: { experimentId: created.id } },
      select: { replayId: true, payload: true },
    });
    const keys = entries.map((e) => `${e.replayId}:${(e.payload as { id: string }).id}`);
    check(new Set(keys).size === keys.length, `no branch-log entry stored twice (${keys.length} entries)`);

    // The calls in doubt: answered from the tool's own record (what it sent, when it got the call), then resumed.
    const hitsBefore = tool.hits.length;
    for (const w of waiting) {
      const session = await db.prisma.session.findUniqueOrThrow({
        where: { id: w.sessionId },
        select: { externalId: true },
      });
      const order = session.externalId!.split(":").at(-1)!;
      const received = tool.hits.some((h) => h.order === order);
      await supplyFixture(
        admin,
        {
          replayId: w.id,
          output: { order_id: order, status: "delivered", live: true },
          note: received ? "from the tool's log: it received and answered this call" : "the tool never received it",
        },
        db.prisma,
        { queue },
      );
    }
    await eventually("the waiting members to complete", async () => (await open()) === 0, 5 * 60_000);
    const final = await db.prisma.replay.groupBy({
      by: ["status"],
      where: { experimentId: created.id },
      _count: { _all: true },
    });
    const experiment = await db.prisma.experiment.findUniqueOrThrow({ where: { id: created.id } });
    check(
      final.length === 1 && final[0]!.status === "completed" && final[0]!._count._all === SESSIONS,
      `after the answers: ${final.map((f) => `${f._count._all} ${f.status}`).join(", ")}; experiment ${experiment.status}`,
    );
    check(experiment.status === "completed", "experiment completed");
    check(tool.hits.length === hitsBefore, "resuming the waiting members called the tool again 0 times");
    await queue.stop();
  } finally {
    for (const w of workers) if (w.child.exitCode === null && w.child.signalCode === null) await w.kill9();
    await tool.close();
    await db.drop();
    console.log(`load after: ${execSync("uptime").toString().trim()}`);
  }
  const failed = checks.filter((c) => !c.ok).length;
  console.log(failed === 0 ? `all ${checks.length} checks passed` : `${failed} of ${checks.length} checks FAILED`);
  return failed;
}

main().then(
  (failed) => process.exit(failed === 0 ? 0 : 1),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
