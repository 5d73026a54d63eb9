/**
 * Cohort benchmark on PostgreSQL (127.0.0.1:5432, a database of its own,
 * dropped at the end): an experiment over N sessions generated from the demo
 * refund session with varied arguments, run by `npm run worker` processes.
 * Prints, all measured in this one run:
 *   - engine only: the replay engine over the same sessions, in this process
 *     (events loaded beforehand), the floor of what a worker must do;
 *   - 1 worker process vs 2 worker processes (concurrency 1 each): wall time
 *     from enqueue to the last member done, sessions/s, and their ratio; and by
 *     work per CPU-second of each process (its user + system time over the
 *     experiment, from /proc): sessions ÷ the busiest process's CPU-seconds, 2 vs 1,
 *     which a busy machine does not decide as it does wall time;
 *   - replay + persist per session (1 worker) vs engine-only per session (target ≤ 3×);
 *   - enqueue overhead: create + enqueue one replay through the service, p50/p95
 *     (in process; the HTTP layer is not included).
 * First, on PGlite and on PostgreSQL: replay + persist per session against the raw batched insert of the
 * same rows, their ratio (target ≤ 3×), with the spread of `--runs` runs and the load average
 * (bench/cohort-persist.ts; `--persist-only` stops after it).
 * Run: npm run bench:cohort [-- --sessions 1000 --enqueues 300 --two-first --persist-sessions 200 --runs 3 --persist-only --engine pglite|postgres]
 */
import { execSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { createTestDatabase } from "../lib/db/testing";
import { savePolicyByName } from "../lib/db/policies";
import { withTransaction } from "../lib/db/transactions";
import { toSessionEvent } from "../lib/db/session-reads";
import { startJobs } from "../lib/jobs/queue";
import { eventually, generateRefundCohort, startTsx } from "../lib/jobs/testing";
import { replay, toolLevelPreset, type Policy } from "../lib/replay";
import { createExperiment, runExperiment } from "../lib/server/experiments/experiments";
import { localAdmin } from "../lib/server/principal";
import { startReplay } from "../lib/server/replays/replays";
import { measurePersist } from "./cohort-persist";

function arg(name: string, fallback: number): number {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? Number(process.argv[i + 1]) : fallback;
}
const SESSIONS = arg("sessions", 1000);
const ENQUEUES = arg("enqueues", 300);
const RECORDED: Policy = {
  model: "recorded-only",
  drift: "continue_to_terminal",
  tools: toolLevelPreset("recorded-only"),
};

/** Clock ticks per second of /proc's CPU times. */
const TICKS = Number(execSync("getconf CLK_TCK").toString().trim()) || 100;

/** CPU seconds a process has used so far, user and system (/proc/<pid>/stat: Linux only). */
function cpuSeconds(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  // After the command's closing parenthesis: field 3 (state) on; utime and stime are fields 14 and 15.
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return (Number(fields[11]) + Number(fields[12])) / TICKS;
}

const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))]!;
};

async function main() {
  console.log(`load before: ${execSync("uptime").toString().trim()}`);
  const only = process.argv.indexOf("--engine");
  for (const engine of ["pglite", "postgres"] as const)
    if (only < 0 || process.argv[only + 1] === engine)
      await measurePersist(engine, arg("persist-sessions", 200), arg("runs", 3), RECORDED);
  if (process.argv.includes("--persist-only")) return;
  const db = await createTestDatabase("postgres");
  const url = `postgres://postgres@127.0.0.1:5432/${db.pgConfig!.database}`;
  try {
    const t0 = performance.now();
    const { agentVersionId } = await generateRefundCohort(db.prisma, SESSIONS);
    console.log(`generated ${SESSIONS} sessions in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
    const versionId = (
      await withTransaction(db.prisma, (tx) =>
        savePolicyByName(tx, { name: "bench", agentId: null, document: RECORDED }),
      )
    ).versionId;

    // Engine only, over the same sessions.
    const sessions = await db.prisma.session.findMany({
      where: { agentVersionId },
      select: { id: true, events: { orderBy: { seq: "asc" } } },
    });
    const bases = sessions.map((s) => s.events.map(toSessionEvent));
    const e0 = performance.now();
    for (const base of bases) await replay({ base, policy: RECORDED, now: () => new Date().toISOString() });
    const engineMs = performance.now() - e0;

    const queue = await startJobs(db, { work: false, log: () => undefined });
    const runWith = async (workers: number) => {
      const created = await createExperiment(
        localAdmin("bench"),
        { name: `${workers} worker(s)`, policyVersionId: versionId, agentVersionId },
        db.prisma,
      );
      const procs = Array.from({ length: workers }, () =>
        startTsx("scripts/worker.ts", [], { DATABASE_URL: url, BRANCHPOINT_WORKER_CONCURRENCY: "1" }),
      );
      try {
        await Promise.all(procs.map((p) => p.waitFor(/Branchpoint worker \d+: 1 at once/)));
        const cpuBefore = procs.map((p) => cpuSeconds(p.child.pid!));
        const start = performance.now();
        await runExperiment(localAdmin("bench"), { experimentId: created.id }, db.prisma, { queue });
        await eventually(
          `${workers}-worker experiment to finish`,
          async () =>
            (await db.prisma.experiment.findUniqueOrThrow({ where: { id: created.id } })).status === "completed",
          30 * 60_000,
        );
        const ms = performance.now() - start;
        // Each worker's CPU over the experiment (the database server's is not counted: it is shared).
        const cpu = procs.map((p, i) => cpuSeconds(p.child.pid!) - cpuBefore[i]!);
        const bad = await db.prisma.replay.count({ where: { experimentId: created.id, status: { not: "completed" } } });
        if (bad > 0) throw new Error(`${bad} member replays did not complete`);
        return { ms, cpu };
      } finally {
        for (const p of procs) await p.kill9();
      }
    };
    // `--two-first` runs the 2-worker experiment first, to see whether the order (a warmer database) matters.
    const twoFirst = process.argv.includes("--two-first");
    const two0 = twoFirst ? await runWith(2) : null;
    const oneRun = await runWith(1);
    const twoRun = two0 ?? (await runWith(2));
    const [one, two] = [oneRun.ms, twoRun.ms];

    const latencies: number[] = [];
    const someSession = sessions[0]!.id;
    for (let k = 0; k < ENQUEUES; k++) {
      const s0 = performance.now();
      await startReplay(localAdmin("bench"), { sessionId: someSession, policyVersionId: versionId }, db.prisma, {
        queue,
      });
      latencies.push(performance.now() - s0);
    }
    await queue.stop();

    const rate = (ms: number) => (SESSIONS / (ms / 1000)).toFixed(1);
    console.log(`sessions: ${SESSIONS}`);
    console.log(
      `engine only:         ${(engineMs / 1000).toFixed(2)} s  ${(engineMs / SESSIONS).toFixed(2)} ms/session`,
    );
    console.log(
      `1 worker process:    ${(one / 1000).toFixed(2)} s  ${rate(one)} sessions/s  ${(one / SESSIONS).toFixed(2)} ms/session`,
    );
    console.log(`2 worker processes:  ${(two / 1000).toFixed(2)} s  ${rate(two)} sessions/s`);
    console.log(
      `speed-up 2 vs 1:     ${(one / two).toFixed(2)}× (wall time: decided by whatever else the machine runs)`,
    );
    // Work per CPU-second of each process: the time each would take on a core of its own, so that a busy
    // machine does not decide the figure. Two workers sharing the work evenly each spend half the CPU.
    const perCpu = (cpu: number) => (SESSIONS / cpu).toFixed(1);
    const busiest = Math.max(...twoRun.cpu);
    console.log(
      `1 worker process:    ${oneRun.cpu[0]!.toFixed(2)} CPU-s, ${perCpu(oneRun.cpu[0]!)} sessions per CPU-second`,
    );
    console.log(
      `2 worker processes:  ${twoRun.cpu.map((c) => c.toFixed(2)).join(" + ")} CPU-s, ${perCpu(busiest)} sessions per CPU-second of the busiest`,
    );
    console.log(
      `speed-up 2 vs 1 per CPU-second of each process: ${(oneRun.cpu[0]! / busiest).toFixed(2)}× (target ≥ 1.70; the database server's CPU not counted)`,
    );
    console.log(`replay+persist / engine-only per session: ${(one / engineMs).toFixed(2)}× (target ≤ 3×)`);
    console.log(
      `enqueue (create + enqueue, ${ENQUEUES} in process): p50 ${pct(latencies, 50).toFixed(1)} ms, p95 ${pct(latencies, 95).toFixed(1)} ms`,
    );
  } finally {
    await db.drop();
    console.log(`load after: ${execSync("uptime").toString().trim()}`);
  }
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
