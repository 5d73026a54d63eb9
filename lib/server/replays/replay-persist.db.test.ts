import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import type { Db } from "@/lib/db";
import { STEP_WINDOW, stepRows } from "@/lib/db/replay-steps";
import { EVENT_WINDOW } from "@/lib/db/session-reads";
import { importLongChat, loadReplayView } from "@/lib/db/replays-testing";
import { TEST_ENGINES, createTestDatabase, statementCountingClient, type TestDatabase } from "@/lib/db/testing";
import type { Policy } from "@/lib/replay";
import { localAdmin } from "../principal";
import { StartReplayInput } from "./replay-inputs";
import { comparisonBuilds, currentComparison } from "./comparison-store";
import { createReplay } from "./replays";
import { runQueuedReplay } from "./run-queued-replay";

// A replay's steps are stored in a few multi-row statements, a window of STEP_WINDOW rows each, not one per step,
// and are the rows the per-row path stored (app/api/v1/replays/replays-api.db.test.ts: the API's side).
const TURNS = 1100;
const STEPS = TURNS * 2 + 2;

const policy: Policy = {
  model: "recorded-only",
  drift: "continue_to_terminal",
  tools: { default: { type: "history", scope: "baseline", on_miss: "fail" } },
};

/** Every column of a replay's stored steps but its id and replay's (the digests the database writes included), in idx order. */
async function storedColumns(db: Db, replayId: string) {
  return db.$queryRaw<Record<string, unknown>[]>`
    SELECT idx, kind, name, source, "baseSeq", input::text AS input, output::text AS output, error::text AS error,
      status, "cacheKey", miss::text AS miss, detail::text AS detail, "inputPrefixIdx", "inputPrefixCount",
      "inputDigest", "outputDigest", "plainInputDigest"
    FROM "ReplayStep" WHERE "replayId" = ${replayId} ORDER BY idx`;
}

/** A statement as its verb and first table (a driver's implicit COMMIT as COMMIT). */
function statementHead(query: string): string {
  const text = query.replace(/\s+/g, " ").trim();
  if (/^-- Implicit "COMMIT"/.test(text)) return "COMMIT";
  const verb = /^(?:WITH \w+ AS \( )?(\w+)/i.exec(text)![1]!.toUpperCase();
  // A table, or a database function read FROM (its name unquoted).
  const table = /(?:FROM|INTO|UPDATE) (?:"public"\.)?"?(\w+)"?/i.exec(text)?.[1];
  return table ? `${verb} ${table}` : verb;
}

describe.each(TEST_ENGINES)("persisting a replay on %s", (engine) => {
  let db: TestDatabase;
  let sessionId: string;
  beforeAll(async () => {
    db = await createTestDatabase(engine);
    sessionId = (await importLongChat(db.prisma, TURNS)).sessionId;
  }, 300_000);
  afterAll(async () => {
    await db?.drop();
  });

  const create = () =>
    createReplay(
      localAdmin("tester"),
      StartReplayInput.parse({ sessionId, policy, edits: [{ seq: 1, op: "replace_tool_result", value: "lost" }] }),
      db.prisma,
    );

  it(
    `stores ${STEPS} steps in ${Math.ceil(STEPS / STEP_WINDOW)} INSERTs, the rows createMany stored one by one, and its comparison in a few`,
    { timeout: 300_000 },
    async () => {
      // A second client over the same database, which reports every statement it sends.
      const counted = statementCountingClient(db);
      const inserts = () =>
        counted.statements
          .filter((q) => /INSERT INTO/i.test(q))
          .map((q) => /INSERT INTO (?:"public"\.)?("?\w+"?)/i.exec(q)?.[1] ?? q.trim().slice(0, 40));
      try {
        const { id } = await create();
        const events = (await db.prisma.session.findUniqueOrThrow({ where: { id: sessionId } })).eventCount;
        expect(await runQueuedReplay(counted.prisma, id, { owner: "worker-1" })).toBe("ran");
        // The steps (the first window in the statement that stores the result), then (in their transaction) the
        // comparison stored for the pages: its header with the first
        // 5,000 of its pairs in one statement (one to one with the steps here), the rest 5,000 a statement.
        expect(inserts()).toEqual([
          ...Array<string>(Math.ceil(STEPS / STEP_WINDOW)).fill('"ReplayStep"'),
          '"ReplayComparison"',
          ...Array<string>(Math.ceil(STEPS / 5000) - 1).fill('"ReplayComparisonPair"'),
        ]);
        // Every statement of the run: the claim, which reads the run's context too (its tools, whether it has
        // checks or a log, the base's first and last seq), the base a window of EVENT_WINDOW seqs at a time (no read of
        // where its seqs start or whether any lies past the last), and one transaction storing the result with the
        // first window of steps (one statement), the other windows, and the comparison (under a savepoint: see the next test), built from one read of both runs' rows
        // and the replay's stamp; nothing to delete (no comparison was stored). No read or write per step.
        // Left out: what the worker sends at times, not per step (a cancel check every quarter second, progress
        // every half second, the lease's heartbeat).
        const timed = /^\s*SELECT \(r\."cancelRequested"|SET "progressDone"|SET "leaseUntil"/;
        expect(counted.statements.filter((q) => !timed.test(q)).map(statementHead)).toEqual([
          "SELECT claim_replay_run",
          ...Array<string>(Math.ceil(events / EVENT_WINDOW)).fill("SELECT Event"),
          "UPDATE Replay",
          ...Array<string>(Math.ceil(STEPS / STEP_WINDOW) - 1).fill("INSERT ReplayStep"),
          "SAVEPOINT",
          "SELECT replay_comparison_inputs",
          // The digests of the model calls the edit's branch does not vouch for (lib/db/replay-comparison.ts).
          "SELECT Event",
          "SELECT ReplayStep",
          "INSERT ReplayComparison",
          ...Array<string>(Math.ceil(STEPS / 5000) - 1).fill("INSERT ReplayComparisonPair"),
          "COMMIT",
        ]);
        const row = await db.prisma.replay.findUniqueOrThrow({ where: { id } });
        expect(row.status).toBe("completed");
        expect(row.stepCount).toBe(STEPS);

        // The same steps stored as the per-row path stored them (Prisma's createMany of stepRows) on another replay.
        const steps = (await loadReplayView(db.prisma, id))!.steps;
        const other = await create();
        await db.prisma.replayStep.createMany({ data: stepRows(other.id, steps) });
        const batched = await storedColumns(db.prisma, id);
        expect(batched).toHaveLength(STEPS);
        expect(batched).toEqual(await storedColumns(db.prisma, other.id));
        // Read back as the app reads them: the same view.
        expect((await loadReplayView(db.prisma, other.id))!.steps).toEqual(steps);
      } finally {
        await counted.close();
      }
    },
  );

  it(
    "on the app's own client the result, steps and comparison are stored on the driver's transaction, not Prisma's",
    { timeout: 300_000 },
    async () => {
      const { id } = await create();
      const before = comparisonBuilds();
      const interactive = vi.spyOn(db.prisma, "$transaction");
      try {
        expect(await runQueuedReplay(db.prisma, id, { owner: "worker-3" })).toBe("ran");
        expect(interactive).toHaveBeenCalledTimes(0);
      } finally {
        interactive.mockRestore();
      }
      expect(await db.prisma.replayStep.count({ where: { replayId: id } })).toBe(STEPS);
      // Built once, in the run, and stored with its pairs: the first read finds it current.
      expect(comparisonBuilds()).toBe(before + 1);
      const stored = await db.prisma.replayComparison.findUniqueOrThrow({ where: { replayId: id } });
      expect(stored.branchCount).toBe(STEPS);
      expect(await db.prisma.replayComparisonPair.count({ where: { replayId: id } })).toBe(stored.pairCount);
      expect((await currentComparison(db.prisma, id)).pairCount).toBe(stored.pairCount);
      expect(comparisonBuilds()).toBe(before + 1);
    },
  );

  it(
    "a comparison that cannot be stored is undone alone: the run's result and steps are stored, the first read builds it",
    { timeout: 300_000 },
    async () => {
      const failing = db.prisma.$extends({
        query: {
          $allOperations: ({ operation, args, query }) =>
            operation === "$executeRaw" && JSON.stringify(args).includes('INSERT INTO \\"ReplayComparisonPair\\"')
              ? Promise.reject(new Error("simulated: the database refused the pairs"))
              : query(args),
        },
      }) as unknown as Db;
      const { id } = await create();
      const before = comparisonBuilds();
      expect(await runQueuedReplay(failing, id, { owner: "worker-2" })).toBe("ran");
      const row = await db.prisma.replay.findUniqueOrThrow({ where: { id } });
      expect(row).toMatchObject({ status: "completed", stepCount: STEPS, leaseOwner: null });
      expect(await db.prisma.replayStep.count({ where: { replayId: id } })).toBe(STEPS);
      // Its header, written in the statement that failed on the pairs, is not stored either.
      expect(await db.prisma.replayComparison.count({ where: { replayId: id } })).toBe(0);
      expect(comparisonBuilds()).toBe(before + 1);
      const current = await currentComparison(db.prisma, id);
      expect(comparisonBuilds()).toBe(before + 2);
      expect(current.pairCount).toBe(await db.prisma.replayComparisonPair.count({ where: { replayId: id } }));
      expect(current.branchCount).toBe(STEPS);
    },
  );
});
