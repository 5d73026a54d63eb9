import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Db } from "@/lib/db";
import { STEP_WINDOW, stepRows } from "@/lib/db/replay-steps";
import { importLongChat, loadReplayView } from "@/lib/db/replays-testing";
import { TEST_ENGINES, createTestDatabase, statementCountingClient, type TestDatabase } from "@/lib/db/testing";
import type { Policy } from "@/lib/replay";
import { localAdmin } from "../principal";
import { StartReplayInput } from "./replay-inputs";
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
          .filter((q) => /^\s*(WITH[\s\S]*\)\s*)?INSERT/i.test(q))
          .map((q) => /INSERT INTO (?:"public"\.)?("?\w+"?)/i.exec(q)?.[1] ?? q.trim().slice(0, 40));
      try {
        const { id } = await create();
        expect(await runQueuedReplay(counted.prisma, id, { owner: "worker-1" })).toBe("ran");
        // The steps, then (after their transaction) the comparison stored for the pages: its header and its pairs,
        // one to one with the steps here, 5,000 a statement.
        expect(inserts()).toEqual([
          ...Array<string>(Math.ceil(STEPS / STEP_WINDOW)).fill('"ReplayStep"'),
          '"ReplayComparison"',
          ...Array<string>(Math.ceil(STEPS / 5000)).fill('"ReplayComparisonPair"'),
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
});
