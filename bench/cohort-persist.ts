/**
 * Replay + persist per session against the floor of the same rows' raw insert, measured in one run (part
 * of `bench:cohort`). On each engine, over a cohort of refund sessions:
 *   - replay + persist: what a worker does with a queued replay (lib/server/replays runQueuedReplay: claim,
 *     read the base session and the branch log, run the engine, store the result and its steps), in this
 *     process, one session after another: wall time per session;
 *   - floor: the rows that run stored (each replay's step rows and its result's update of the replay row),
 *     written again for a fresh replay row per session in one driver transaction: one multi-row INSERT of
 *     the steps (jsonb_to_recordset, as the run writes them) and one UPDATE, wall time per session.
 * The floor is the database's own cost of the rows, through the driver (no Prisma, no reads): it does not
 * flatter the ratio. Each is measured `runs` times (fresh replays each time); the spread (min, median, max)
 * and the load average before each run are printed.
 */
import { loadavg } from "node:os";
import { randomUUID } from "node:crypto";
import type { Db } from "../lib/db";
import { savePolicyByName, withTransaction } from "../lib/db/policies";
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
const spread = (xs: number[], digits = 2) =>
  `min ${Math.min(...xs).toFixed(digits)}  median ${median(xs).toFixed(digits)}  max ${Math.max(...xs).toFixed(digits)}`;

/** The stored rows of a finished replay, as the floor writes them again: its steps as JSON records and its result. */
async function storedRows(prisma: Db, replayId: string) {
  const [result] = await prisma.$queryRaw<{ status: string; comparability: string; evidence: string }[]>`
    SELECT status, comparability, evidence::text AS evidence FROM "Replay" WHERE id = ${replayId}`;
  const steps = await prisma.$queryRaw<{ row: string }[]>`
    SELECT row_to_json(s)::text AS row FROM (
      SELECT idx, kind, name, source, "baseSeq", input, output, error, status, "cacheKey", miss, detail,
        "inputPrefixIdx", "inputPrefixCount", "inputDigest"
      FROM "ReplayStep" WHERE "replayId" = ${replayId} ORDER BY idx) s`;
  return { result: result!, steps: steps.map((s) => JSON.parse(s.row) as Record<string, unknown>) };
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
    let stepsPerSession = 0;
    for (let run = 1; run <= runs; run++) {
      const loadBefore = load();
      const replays: string[] = [];
      for (const sessionId of ids)
        replays.push(
          (await createReplay(localAdmin("bench"), { sessionId, policyVersionId: versionId }, db.prisma)).id,
        );
      const r0 = performance.now();
      for (const id of replays) {
        const outcome = await runQueuedReplay(db.prisma, id, { owner: `bench-${run}` });
        if (outcome !== "ran") throw new Error(`replay ${id}: ${outcome}`);
      }
      const replay = (performance.now() - r0) / replays.length;

      // The same rows, written again as raw batched inserts for fresh replay rows (made before the clock starts).
      const rows = await Promise.all(replays.map((id) => storedRows(db.prisma, id)));
      stepsPerSession = rows.reduce((n, r) => n + r.steps.length, 0) / rows.length;
      const targets: string[] = [];
      for (const sessionId of ids)
        targets.push(
          (await createReplay(localAdmin("bench"), { sessionId, policyVersionId: versionId }, db.prisma)).id,
        );
      const f0 = performance.now();
      for (const [k, { result, steps }] of rows.entries()) {
        const replayId = targets[k]!;
        const records = JSON.stringify(steps.map((s) => ({ ...s, id: randomUUID(), replayId })));
        await sqlTransaction(db.prisma, async (sql) => {
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
        });
      }
      const floor = (performance.now() - f0) / rows.length;
      replayMs.push(replay);
      floorMs.push(floor);
      ratios.push(replay / floor);
      console.log(
        `${engine} run ${run}: replay+persist ${replay.toFixed(2)} ms/session, raw batched insert ${floor.toFixed(2)} ms/session, ratio ${(replay / floor).toFixed(2)}× (load before: ${loadBefore})`,
      );
    }
    console.log(
      `${engine}: ${sessions} sessions × ${runs} runs, ${stepsPerSession.toFixed(1)} steps/session\n` +
        `  replay+persist ms/session: ${spread(replayMs)}\n` +
        `  raw batched insert ms/session: ${spread(floorMs)}\n` +
        `  replay+persist / raw insert: ${spread(ratios)}× (target ≤ 3×)  load: ${load()}`,
    );
    return { engine, replayMs, floorMs, ratios };
  } finally {
    await db.drop();
  }
}
