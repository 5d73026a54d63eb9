/**
 * Replay + persist per session against the floor of the same rows' raw insert, measured in one run (part
 * of `bench:cohort`). On each engine, over a cohort of refund sessions:
 *   - replay + persist: what a worker does with a queued replay (lib/server/replays runQueuedReplay: claim,
 *     read the base session and the branch log, run the engine, store the result and its steps), in this
 *     process, one session after another: wall time per session;
 *   - floor: the rows that run stored (its result's update of the replay row, its step rows, its log entries and
 *     its stored comparison: header and pairs), written again for a fresh replay row per session in one driver
 *     transaction: one UPDATE and one multi-row INSERT per table (JSON records, as the run writes them), wall
 *     time per session.
 * The floor is the database's own cost of the rows, through the driver (no Prisma, no reads): it does not
 * flatter the ratio. Each is measured `runs` times (fresh replays each time); the spread (min, median, max)
 * and the load average before each run are printed. On PGlite the database runs in this process, so the CPU time
 * this process spends (process.cpuUsage, user + system) is the whole cost of each side: its ratio is printed next
 * to the wall-time ratio and holds on a busy machine, where other processes stretch the wall times unevenly.
 * (On PostgreSQL the server's CPU time is not this process's: only the wall-time ratio is printed.)
 */
import { loadavg } from "node:os";
import { randomUUID } from "node:crypto";
import type { Db } from "../lib/db";
import { savePolicyByName } from "../lib/db/policies";
import { withTransaction } from "../lib/db/transactions";
import { Prisma } from "../lib/db/generated/client";
import { sqlTransaction } from "../lib/db/sql";
import { createTestDatabase, type TestEngine } from "../lib/db/testing";
import { generateRefundCohort } from "../lib/jobs/testing";
import type { Policy } from "../lib/replay";
import { localAdmin } from "../lib/server/principal";
import { createReplay } from "../lib/server/replays/replays";
import { runQueuedReplay } from "../lib/server/replays/run-queued-replay";

const load = () =>
  loadavg()
    .map((l) => l.toFixed(2))
    .join(" ");
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
/** CPU milliseconds (user + system) this process has used since `from`. */
const cpuMs = (from: NodeJS.CpuUsage) => {
  const used = process.cpuUsage(from);
  return (used.user + used.system) / 1000;
};
const spread = (xs: number[], digits = 2) =>
  `min ${Math.min(...xs).toFixed(digits)}  median ${median(xs).toFixed(digits)}  max ${Math.max(...xs).toFixed(digits)}`;

/**
 * The stored rows of a finished replay, as the floor writes them again: its steps, log entries and comparison
 * (header and pairs) as JSON records, and its result.
 */
async function storedRows(prisma: Db, replayId: string) {
  const [result] = await prisma.$queryRaw<{ status: string; comparability: string; evidence: string }[]>`
    SELECT status, comparability, evidence::text AS evidence FROM "Replay" WHERE id = ${replayId}`;
  const records = async (query: Prisma.Sql) =>
    (await prisma.$queryRaw<{ row: string }[]>(query)).map((s) => JSON.parse(s.row) as Record<string, unknown>);
  const steps = await records(Prisma.sql`
    SELECT row_to_json(s)::text AS row FROM (
      SELECT idx, kind, name, source, "baseSeq", input, output, error, status, "cacheKey", miss, detail,
        "inputPrefixIdx", "inputPrefixCount", "inputDigest"
      FROM "ReplayStep" WHERE "replayId" = ${replayId} ORDER BY idx) s`);
  const log = await records(
    Prisma.sql`SELECT row_to_json(l)::text AS row FROM "ReplayLogEntry" l WHERE "replayId" = ${replayId} ORDER BY idx`,
  );
  const [header] = await records(
    Prisma.sql`SELECT row_to_json(c)::text AS row FROM "ReplayComparison" c WHERE "replayId" = ${replayId}`,
  );
  const pairs = await records(
    Prisma.sql`SELECT row_to_json(p)::text AS row FROM "ReplayComparisonPair" p WHERE "replayId" = ${replayId}`,
  );
  if (!header) throw new Error(`replay ${replayId}: no stored comparison`);
  return { result: result!, steps, log, header, pairs };
}

/** Writes `rows` again for `replayId` in one driver transaction: the floor. */
async function writeRaw(prisma: Db, replayId: string, rows: Awaited<ReturnType<typeof storedRows>>) {
  const { result, steps, log, header, pairs } = rows;
  const records = JSON.stringify(steps.map((s) => ({ ...s, id: randomUUID(), replayId })));
  await sqlTransaction(prisma, async (sql) => {
    await sql.query`
      UPDATE "Replay" SET status = ${result.status}::text, comparability = ${result.comparability}::text,
        evidence = ${result.evidence}::jsonb, "stepCount" = ${steps.length}::int, "finishedAt" = now()
      WHERE id = ${replayId}::text`;
    await sql.query`
      INSERT INTO "ReplayStep" (id, "replayId", idx, kind, name, source, "baseSeq", input, output, error, status,
        "cacheKey", miss, detail, "inputPrefixIdx", "inputPrefixCount", "inputDigest")
      SELECT id, "replayId", idx, kind, name, source, "baseSeq", input, output, error, status,
        "cacheKey", miss, detail, "inputPrefixIdx", "inputPrefixCount", "inputDigest"
      FROM jsonb_to_recordset(${records}::jsonb) AS x(id text, "replayId" text, idx int, kind text, name text,
        source text, "baseSeq" int, input jsonb, output jsonb, error jsonb, status text, "cacheKey" text,
        miss jsonb, detail jsonb, "inputPrefixIdx" int, "inputPrefixCount" int, "inputDigest" text)`;
    if (log.length > 0)
      await sql.query`
        INSERT INTO "ReplayLogEntry" SELECT * FROM jsonb_populate_recordset(NULL::"ReplayLogEntry",
          ${JSON.stringify(log.map((l) => ({ ...l, id: randomUUID(), replayId })))}::jsonb)`;
    await sql.query`
      INSERT INTO "ReplayComparison" SELECT * FROM jsonb_populate_record(NULL::"ReplayComparison",
        ${JSON.stringify({ ...header, replayId })}::jsonb)`;
    await sql.query`
      INSERT INTO "ReplayComparisonPair" SELECT * FROM jsonb_populate_recordset(NULL::"ReplayComparisonPair",
        ${JSON.stringify(pairs.map((p) => ({ ...p, replayId })))}::jsonb)`;
  });
}

export async function measurePersist(engine: TestEngine, sessions: number, runs: number, policy: Policy) {
  const db = await createTestDatabase(engine);
  try {
    const { agentVersionId } = await generateRefundCohort(db.prisma, sessions);
    const { versionId } = await withTransaction(db.prisma, (tx) =>
      savePolicyByName(tx, { name: "bench-persist", agentId: null, document: policy }),
    );
    const ids = (
      await db.prisma.session.findMany({ where: { agentVersionId }, select: { id: true }, orderBy: { id: "asc" } })
    ).map((s) => s.id);
    const replayMs: number[] = [];
    const floorMs: number[] = [];
    const ratios: number[] = [];
    const replayCpu: number[] = [];
    const floorCpu: number[] = [];
    const cpuRatios: number[] = [];
    const inProcess = engine === "pglite";
    let stepsPerSession = 0;
    let rowsPerSession = 0;
    for (let run = 1; run <= runs; run++) {
      const loadBefore = load();
      const replays: string[] = [];
      for (const sessionId of ids)
        replays.push(
          (await createReplay(localAdmin("bench"), { sessionId, policyVersionId: versionId }, db.prisma)).id,
        );
      const r0 = performance.now();
      const rc0 = process.cpuUsage();
      for (const id of replays) {
        const outcome = await runQueuedReplay(db.prisma, id, { owner: `bench-${run}` });
        if (outcome !== "ran") throw new Error(`replay ${id}: ${outcome}`);
      }
      const replayCpuMs = cpuMs(rc0) / replays.length;
      const replay = (performance.now() - r0) / replays.length;

      // The same rows, written again as raw batched inserts for fresh replay rows (made before the clock starts).
      const rows = await Promise.all(replays.map((id) => storedRows(db.prisma, id)));
      stepsPerSession = rows.reduce((n, r) => n + r.steps.length, 0) / rows.length;
      rowsPerSession = rows.reduce((n, r) => n + 2 + r.steps.length + r.log.length + r.pairs.length, 0) / rows.length;
      const targets: string[] = [];
      for (const sessionId of ids)
        targets.push(
          (await createReplay(localAdmin("bench"), { sessionId, policyVersionId: versionId }, db.prisma)).id,
        );
      const f0 = performance.now();
      const fc0 = process.cpuUsage();
      for (const [k, stored] of rows.entries()) await writeRaw(db.prisma, targets[k]!, stored);
      const floorCpuMs = cpuMs(fc0) / rows.length;
      const floor = (performance.now() - f0) / rows.length;
      replayMs.push(replay);
      floorMs.push(floor);
      ratios.push(replay / floor);
      replayCpu.push(replayCpuMs);
      floorCpu.push(floorCpuMs);
      cpuRatios.push(replayCpuMs / floorCpuMs);
      const cpu = inProcess
        ? `; CPU ${replayCpuMs.toFixed(2)} vs ${floorCpuMs.toFixed(2)} ms/session, ratio ${(replayCpuMs / floorCpuMs).toFixed(2)}×`
        : "";
      console.log(
        `${engine} run ${run}: replay+persist ${replay.toFixed(2)} ms/session, raw batched insert ${floor.toFixed(2)} ms/session, ratio ${(replay / floor).toFixed(2)}×${cpu} (load before: ${loadBefore})`,
      );
    }
    console.log(
      `${engine}: ${sessions} sessions × ${runs} runs, ${stepsPerSession.toFixed(1)} steps and ${rowsPerSession.toFixed(1)} rows written/session\n` +
        `  replay+persist ms/session: ${spread(replayMs)}\n` +
        `  raw batched insert ms/session: ${spread(floorMs)}\n` +
        `  replay+persist / raw insert: ${spread(ratios)}× (target ≤ 3×)  load: ${load()}` +
        (inProcess
          ? `\n  CPU ms/session (this process, the database in it): replay+persist ${spread(replayCpu)}; raw insert ${spread(floorCpu)}\n` +
            `  CPU replay+persist / raw insert: ${spread(cpuRatios)}× (target ≤ 3×)`
          : ""),
    );
    return { engine, replayMs, floorMs, ratios, ...(inProcess ? { replayCpu, floorCpu, cpuRatios } : {}) };
  } finally {
    await db.drop();
  }
}
