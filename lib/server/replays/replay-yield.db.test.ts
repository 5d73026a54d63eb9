import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { importAndSave } from "@/lib/server/ingest/imports";
import { withTransaction } from "@/lib/db/transactions";
import { insertStepRows, stepRows } from "@/lib/db/replay-steps";
import { replayStepWindow } from "@/lib/db/replay-window";
import { loadReplayView } from "@/lib/db/replays-testing";
import { TEST_ENGINES, createTestDatabase, type TestDatabase } from "@/lib/db/testing";
import { longChatLog } from "@/lib/ingest/long-chat";
import type { Policy } from "@/lib/replay";
import { localAdmin } from "../principal";
import { StartReplayInput } from "./replay-inputs";
import { createReplay, startReplay } from "./replays";
import { runQueuedReplay } from "./run-queued-replay";

// A long replay runs in the web server's own process; on the embedded database (one connection) the health check
// and page reads share that connection with it. They must get through while it runs, not after it.
const TURNS = 500;

const policy: Policy = {
  model: "recorded-only",
  drift: "continue_to_terminal",
  tools: { default: { type: "history", scope: "baseline", on_miss: "fail" } },
};

describe.each(TEST_ENGINES)("a long replay on %s", (engine) => {
  let db: TestDatabase;
  let sessionId: string;
  beforeAll(async () => {
    db = await createTestDatabase(engine);
    const imported = await importAndSave(db.prisma, JSON.stringify(longChatLog(TURNS)), { format: "openai-chat" });
    if (!imported.ok) throw new Error("import failed");
    sessionId = imported.sessions[0]!.id;
  }, 300_000);
  afterAll(async () => {
    await db?.drop();
  });

  const start = () =>
    startReplay(
      localAdmin("tester"),
      StartReplayInput.parse({
        sessionId,
        policy,
        edits: [{ seq: 1, op: "replace_tool_result", value: { status: "lost" } }],
      }),
      db.prisma,
    );

  it("lets health checks through while it runs", { timeout: 300_000 }, async () => {
    let running = true;
    const t0 = performance.now();
    let elapsedMs = 0;
    const replaying = start().finally(() => {
      running = false;
      elapsedMs = performance.now() - t0;
    });
    // The health check's own query, sent every 20 ms from a timer (as a request would arrive), counted when it
    // answers before the replay has finished. Without pauses the run lets no timer in until it ends: 0.
    let during = 0;
    const probing = (async () => {
      while (running) {
        await new Promise((r) => setTimeout(r, 20));
        await db.prisma.$queryRaw`SELECT 1`;
        if (running) during++;
      }
    })();
    const started = await replaying;
    await probing;
    const row = await db.prisma.replay.findUniqueOrThrow({ where: { id: started.id } });
    expect(row.status).toBe("completed");
    expect(row.stepCount).toBe(TURNS * 2 + 2);
    expect(await db.prisma.replayStep.count({ where: { replayId: started.id } })).toBe(TURNS * 2 + 2);
    // At least one answer, and about one per 100 ms the run took (a probe is a 20 ms wait and a query), up to five:
    // a warm, fast run of 364 ms let 4 through, which is the run yielding as it should.
    expect(during).toBeGreaterThanOrEqual(Math.max(1, Math.min(5, Math.floor(elapsedMs / 100))));
  });

  it(
    "stores a run's steps in its one transaction: a run stopped before its commit leaves none of them, and the next run stores its own",
    { timeout: 300_000 },
    async () => {
      const done = await start();
      const before = await db.prisma.replay.findUniqueOrThrow({ where: { id: done.id } });
      const window = await replayStepWindow(db.prisma, done.id, 0, 5);
      expect(window).toHaveLength(5);
      // Other steps than stored, written as a run's final transaction writes them, 100 rows per statement.
      const steps = (await loadReplayView(db.prisma, done.id))!.steps;
      const changed = steps.map((s) => ({ ...s, name: `${s.name}-changed` }));
      const stopped = (replayId: string, rows = stepRows(replayId, changed)) =>
        withTransaction(db.prisma, async (tx) => {
          await tx.replayStep.deleteMany({ where: { replayId } });
          expect(await insertStepRows(tx, rows, { rows: 100 })).toBe(Math.ceil(rows.length / 100));
          throw new Error("stopped before its commit");
        });
      await expect(stopped(done.id)).rejects.toThrow("stopped before its commit");
      // A statement refused after earlier windows went in (a duplicate idx in the sixth window): none of them stays.
      const duplicate = stepRows(done.id, changed).map((r, i) => (i === 550 ? { ...r, idx: 549 } : r));
      await expect(
        withTransaction(db.prisma, async (tx) => {
          await tx.replayStep.deleteMany({ where: { replayId: done.id } });
          await insertStepRows(tx, duplicate, { rows: 100 });
        }),
      ).rejects.toThrow();
      // Readers see the stored steps, unchanged, under the same version.
      expect(await replayStepWindow(db.prisma, done.id, 0, 5)).toEqual(window);
      const after = await db.prisma.replay.findUniqueOrThrow({ where: { id: done.id } });
      expect(after.stepsVersion).toBe(before.stepsVersion);
      expect(await db.prisma.replayStep.count({ where: { replayId: done.id } })).toBe(TURNS * 2 + 2);

      // A queued replay whose first run stopped before its commit: nothing shows, and its next run stores its own steps.
      const queued = await createReplay(
        localAdmin("tester"),
        StartReplayInput.parse({
          sessionId,
          policy,
          edits: [{ seq: 1, op: "replace_tool_result", value: { status: "lost" } }],
        }),
        db.prisma,
      );
      await expect(stopped(queued.id)).rejects.toThrow("stopped before its commit");
      expect(await replayStepWindow(db.prisma, queued.id, 0, 5)).toEqual([]);
      expect(await runQueuedReplay(db.prisma, queued.id, { owner: "worker-2" })).toBe("ran");
      expect(await replayStepWindow(db.prisma, queued.id, 0, 5)).toEqual(window);
      expect(await db.prisma.replayStep.count({ where: { replayId: queued.id } })).toBe(TURNS * 2 + 2);
    },
  );
});
