import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import type { Db } from "@/lib/db";
import { STEP_WINDOW, stepRows } from "@/lib/db/replay-steps";
import { EVENT_WINDOW } from "@/lib/db/session-reads";
import { importLongChat, loadReplayView } from "@/lib/db/replays-testing";
import { TEST_ENGINES, createTestDatabase, statementCountingClient, type TestDatabase } from "@/lib/db/testing";
import type { Policy } from "@/lib/replay";
import { localAdmin } from "../principal";
import { StartReplayInput } from "./replay-inputs";
import { storedComparisonHeader, storedPairs } from "@/lib/db/stored-comparison";
import { buildStoredComparison, comparisonBuilds, currentComparison } from "./comparison-store";
import { createReplay } from "./replays";
import { runQueuedReplay } from "./run-queued-replay";

// A replay's steps are stored in a few multi-row statements, a window of STEP_WINDOW rows each, not one per step,
// and are the rows the per-row path stored (app/api/v1/replays/replays-api.db.test.ts: the API's side).
const TURNS = 1100;
const STEPS = TURNS * 2 + 2;
/** A session whose run's steps are one window. */
const SHORT_TURNS = 20;
const SHORT_STEPS = SHORT_TURNS * 2 + 2;

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
  // Or a database function called in the select list.
  const called = /^SELECT (\w+)\(/i.exec(text)?.[1];
  return table ? `${verb} ${table}` : called ? `${verb} ${called}` : verb;
}

describe.each(TEST_ENGINES)("persisting a replay on %s", (engine) => {
  let db: TestDatabase;
  let sessionId: string;
  let shortSessionId: string;
  beforeAll(async () => {
    db = await createTestDatabase(engine);
    sessionId = (await importLongChat(db.prisma, TURNS)).sessionId;
    shortSessionId = (await importLongChat(db.prisma, SHORT_TURNS)).sessionId;
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

  const createShort = (edits: unknown[]) =>
    createReplay(localAdmin("tester"), StartReplayInput.parse({ sessionId: shortSessionId, policy, edits }), db.prisma);

  /** A replay's stored comparison: its header (as read) and all its pairs, in order. */
  async function storedComparison(replayId: string) {
    const header = await storedComparisonHeader(db.prisma, replayId);
    if (!header) throw new Error(`replay ${replayId} has no stored comparison`);
    return { header, pairs: await storedPairs(db.prisma, replayId, { by: "position", from: 0, to: header.pairCount }) };
  }

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
        // The steps (the first window in the statement that stores the result); the comparison stored for the
        // pages is written by a database function (below).
        expect(inserts()).toEqual(Array<string>(Math.ceil(STEPS / STEP_WINDOW)).fill('"ReplayStep"'));
        // Every statement of the run: the claim, which reads the run's context too (its tools, whether it has
        // checks or a log, the base's first and last seq), the base a window of EVENT_WINDOW seqs at a time (no read of
        // where its seqs start or whether any lies past the last), and one transaction storing the result with the
        // first window of steps (one statement), the other windows, and the comparison (under a savepoint, taken
        // before its first read: see the test after next), built from one read of both runs' rows and the
        // replay's stamp; its header with the first 5,000 of its pairs in one call (one to one with the steps here),
        // the rest 5,000 a call; nothing to delete (no comparison was stored). No read or write per step.
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
          // The first divergence's two steps, which its summary is worded from (lib/db/replay-comparison.ts).
          "SELECT Event",
          "SELECT ReplayStep",
          ...Array<string>(Math.ceil(STEPS / 5000)).fill("SELECT replay_comparison_write"),
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
    "a short run stores its result and steps and gets its comparison's inputs in one statement, and its comparison in one call with no savepoint",
    { timeout: 300_000 },
    async () => {
      const counted = statementCountingClient(db);
      try {
        // As recorded: nothing diverges, so no step is read for the first divergence's words.
        const { id } = await createShort([]);
        expect(await runQueuedReplay(counted.prisma, id, { owner: "worker-4" })).toBe("ran");
        // Another, whose edit makes a first divergence: its two steps are read, under a savepoint taken first.
        const edited = await createShort([{ seq: 1, op: "replace_tool_result", value: "lost" }]);
        expect(await runQueuedReplay(counted.prisma, edited.id, { owner: "worker-4" })).toBe("ran");
        const timed = /^\s*SELECT \(r\."cancelRequested"|SET "progressDone"|SET "leaseUntil"/;
        // The claim answers the base's events too (a session within one window of reads).
        const run = ["SELECT claim_replay_run", "UPDATE Replay"];
        expect(counted.statements.filter((q) => !timed.test(q)).map(statementHead)).toEqual([
          ...run,
          "SELECT replay_comparison_write",
          "COMMIT",
          ...run,
          "SAVEPOINT",
          "SELECT Event",
          "SELECT ReplayStep",
          "SELECT replay_comparison_write",
          "COMMIT",
        ]);
        for (const replayId of [id, edited.id]) {
          expect(await db.prisma.replayStep.count({ where: { replayId } })).toBe(SHORT_STEPS);
          // The comparison built from what the steps' statement answered is the one built from the rows read back.
          const stored = await storedComparison(replayId);
          expect(stored.header.branchCount).toBe(SHORT_STEPS);
          expect(stored.pairs).toHaveLength(stored.header.pairCount);
          await buildStoredComparison(db.prisma, replayId);
          expect(await storedComparison(replayId)).toEqual(stored);
        }
        expect((await storedComparison(edited.id)).header.firstDivergence?.summary).toBeTruthy();
      } finally {
        await counted.close();
      }
    },
  );

  /** Runs `fn` while the database refuses every comparison pair (a trigger), as a database failing that write would. */
  async function refusingPairs<T>(fn: () => Promise<T>): Promise<T> {
    await db.prisma.$executeRawUnsafe(
      `CREATE FUNCTION refuse_pairs() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION 'refused: the pairs'; END $$`,
    );
    await db.prisma.$executeRawUnsafe(
      `CREATE TRIGGER refuse_pairs BEFORE INSERT ON "ReplayComparisonPair" FOR EACH STATEMENT EXECUTE FUNCTION refuse_pairs()`,
    );
    try {
      return await fn();
    } finally {
      await db.prisma.$executeRawUnsafe(`DROP TRIGGER refuse_pairs ON "ReplayComparisonPair"`);
      await db.prisma.$executeRawUnsafe(`DROP FUNCTION refuse_pairs()`);
    }
  }

  it.each([
    { run: "a long run, whose comparison's reads are under a savepoint", long: true },
    { run: "a short run, whose comparison's write undoes itself with no savepoint", long: false },
  ])(
    "a comparison the database refuses is undone alone, in $run: the run's result and steps are stored, the first read builds it",
    { timeout: 300_000 },
    async ({ long }) => {
      const { id } = long ? await create() : await createShort([]);
      const steps = long ? STEPS : SHORT_STEPS;
      const before = comparisonBuilds();
      const logged = vi.spyOn(console, "error").mockImplementation(() => {});
      try {
        expect(await refusingPairs(() => runQueuedReplay(db.prisma, id, { owner: "worker-2" }))).toBe("ran");
        expect(logged).toHaveBeenCalledTimes(1);
        expect(String(logged.mock.calls[0]![1])).toContain("refused: the pairs");
      } finally {
        logged.mockRestore();
      }
      const row = await db.prisma.replay.findUniqueOrThrow({ where: { id } });
      expect(row).toMatchObject({ status: "completed", stepCount: steps, leaseOwner: null });
      expect(await db.prisma.replayStep.count({ where: { replayId: id } })).toBe(steps);
      // Its header, written in the call that failed on the pairs, is not stored either.
      expect(await db.prisma.replayComparison.count({ where: { replayId: id } })).toBe(0);
      expect(comparisonBuilds()).toBe(before + 1);
      const current = await currentComparison(db.prisma, id);
      expect(comparisonBuilds()).toBe(before + 2);
      expect(current.pairCount).toBe(await db.prisma.replayComparisonPair.count({ where: { replayId: id } }));
      expect(current.branchCount).toBe(steps);
    },
  );
});
