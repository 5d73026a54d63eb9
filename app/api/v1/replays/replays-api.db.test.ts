import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createApiKey, type Database } from "@/lib/db";
import { importLongChat } from "@/lib/db/replays-testing";
import { TEST_ENGINES, createTestDatabase, type TestDatabase } from "@/lib/db/testing";
import { startJobs } from "@/lib/jobs/queue";
import type { Policy } from "@/lib/replay";
import { plugJobQueue } from "@/lib/server/job-queue";
import { localAdmin } from "@/lib/server/principal";
import { StartReplayInput } from "@/lib/server/replays/replay-inputs";
import { createReplay } from "@/lib/server/replays/replays";
import { runQueuedReplay } from "@/lib/server/replays/run-queued-replay";
import { GET } from "./[id]/route";
import { POST } from "./route";

// POST /api/v1/replays answers whole with the replay queued, never waiting on the work nor reading after it;
// GET /api/v1/replays/:id?steps=none is the summary a poller reads, without steps.
const TURNS = 300;
const STEPS = TURNS * 2 + 2;

const policy: Policy = {
  model: "recorded-only",
  drift: "continue_to_terminal",
  tools: { default: { type: "history", scope: "baseline", on_miss: "fail" } },
};
const global = globalThis as unknown as { __branchpointDb?: Promise<Database> };

describe.each(TEST_ENGINES)("the replays API on %s", (engine) => {
  let db: TestDatabase;
  let sessionId: string;
  let key: string;
  beforeAll(async () => {
    db = await createTestDatabase(engine);
    sessionId = (await importLongChat(db.prisma, TURNS)).sessionId;
    key = (await createApiKey(db.prisma, "script")).key;
    global.__branchpointDb = Promise.resolve(db);
  }, 300_000);
  afterAll(async () => {
    global.__branchpointDb = undefined;
    await db?.drop();
  });

  const create = () =>
    createReplay(
      localAdmin("tester"),
      StartReplayInput.parse({ sessionId, policy, edits: [{ seq: 1, op: "replace_tool_result", value: "lost" }] }),
      db.prisma,
    );

  it(
    "POST /api/v1/replays answers whole with the replay queued; nothing is read after it",
    { timeout: 300_000 },
    async () => {
      // A queue with no worker: the answer comes back before any work is done.
      const queue = await startJobs(db, { work: false, log: () => undefined });
      plugJobQueue(queue);
      try {
        // An edit of 100 KB: the document is longer than a streamed answer's first chunk.
        const big = "x".repeat(100_000);
        const response = await POST(
          new Request("http://127.0.0.1/api/v1/replays", {
            method: "POST",
            headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
            body: JSON.stringify({ sessionId, policy, edits: [{ seq: 1, op: "replace_tool_result", value: big }] }),
          }),
          { params: Promise.resolve({}) },
        );
        expect(response.status).toBe(201);
        const id = (await db.prisma.replay.findFirstOrThrow({ orderBy: { createdAt: "desc" }, select: { id: true } }))
          .id;
        expect((await db.prisma.replay.findUniqueOrThrow({ where: { id } })).status).toBe("queued");
        // The work runs to its end before the body is read: the answer is the replay as it was answered.
        expect(await runQueuedReplay(db.prisma, id, { owner: "worker-2" })).toBe("ran");
        const body = (await response.json()) as { replay: Record<string, unknown> };
        expect(body.replay).toMatchObject({ id, status: "queued", steps: [], edits: [{ value: big }] });
        expect(typeof (body.replay.evidence as { policyHash?: unknown }).policyHash).toBe("string");
      } finally {
        plugJobQueue(null);
        await queue.stop();
      }
    },
  );

  it(
    "GET /api/v1/replays/:id?steps=none is the summary without steps; the default keeps them",
    { timeout: 300_000 },
    async () => {
      const { id } = await create();
      expect(await runQueuedReplay(db.prisma, id, { owner: "worker-3" })).toBe("ran");
      const get = (query: string) =>
        GET(
          new Request(`http://127.0.0.1/api/v1/replays/${id}${query}`, { headers: { authorization: `Bearer ${key}` } }),
          {
            params: Promise.resolve({ id }),
          },
        );
      const summary = (await (await get("?steps=none")).json()) as { replay: Record<string, unknown> };
      const whole = (await (await get("")).json()) as { replay: Record<string, unknown> };
      expect(whole.replay.steps).toHaveLength(STEPS);
      const { steps: _steps, ...rest } = whole.replay;
      void _steps;
      expect(summary.replay).toEqual({ ...rest, stepCount: STEPS });
      expect(Object.keys(summary.replay)).toEqual(
        Object.keys(whole.replay).map((k) => (k === "steps" ? "stepCount" : k)),
      );
      expect(summary.replay).toMatchObject({ status: "completed", progress: { done: STEPS, total: STEPS } });
      // Not a value the query knows: a 400 naming it.
      const bad = await get("?steps=some");
      expect(bad.status).toBe(400);
      expect(JSON.stringify(await bad.json())).toContain("steps");
    },
  );
});
