/**
 * A scheduled Langfuse pull against a real HTTP server on 127.0.0.1 (./testing.ts) whose platform indexes a trace
 * late: the trace shows up in the list only after a run whose window its timestamp falls in. Each next window
 * reaches back (the lookback) before the last one's end, so the next run pulls it, once; the traces the overlap
 * reads again are counted as already there.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { findPull, nextPullWindow, startDueScheduledPulls } from "@/lib/db/connectors";
import { TEST_ENGINES, createTestDatabase, type TestDatabase } from "@/lib/db/testing";
import { BASE_TIME, supportTrace, supportTraces } from "@/lib/ingest/__fixtures__/langfuse";
import { localAdmin, type Principal } from "../principal";
import { createConnector, startPull } from "./connectors";
import { runPull } from "./run-pull";
import { fakeLangfuse, withKeyVariables } from "./testing";

const SECRET_ENV = "LANGFUSE_SCHEDULE_TEST_SECRET_KEY";
const FAST = { backoffMs: 10, maxRetries: 2, timeoutMs: 5_000 };
/** A trace stamped at `at` (ms since the epoch), its observations with it. */
const recent = (id: string, at: number) => supportTrace(id, { offsetMs: at - BASE_TIME });

describe("the next window of a schedule", () => {
  const now = new Date("2026-12-01T12:00:00.000Z");
  it("reaches back the lookback before a completed pull's end, never before its start; a failed one's is read again", () => {
    const filter = {
      tags: ["prod"],
      fromTimestamp: "2026-12-01T10:00:00.000Z",
      toTimestamp: "2026-12-01T11:00:00.000Z",
    };
    expect(nextPullWindow(filter, "completed", 10, now)).toEqual({
      fromTimestamp: "2026-12-01T10:50:00.000Z",
      toTimestamp: now.toISOString(),
    });
    expect(nextPullWindow(filter, "completed", 0, now).fromTimestamp).toBe("2026-12-01T11:00:00.000Z");
    expect(nextPullWindow(filter, "completed", 120, now).fromTimestamp).toBe("2026-12-01T10:00:00.000Z");
    expect(nextPullWindow({ toTimestamp: filter.toTimestamp }, "completed", 10, now).fromTimestamp).toBe(
      "2026-12-01T10:50:00.000Z",
    );
    expect(nextPullWindow(filter, "failed", 10, now)).toEqual({
      fromTimestamp: "2026-12-01T10:00:00.000Z",
      toTimestamp: now.toISOString(),
    });
  });
});

describe.each(TEST_ENGINES)("scheduled Langfuse pulls on %s", (engine) => {
  let db: TestDatabase;
  const admin: Principal = localAdmin("ada");
  let server: Awaited<ReturnType<typeof fakeLangfuse>>;
  const traces: Record<string, unknown>[] = [];
  const t0 = Date.now();

  let clearKeys: (() => void) | undefined;
  beforeAll(async () => {
    clearKeys = withKeyVariables({ [SECRET_ENV]: "sk-lf-sched" });
    db = await createTestDatabase(engine);
    // Two old traces and one five minutes ago, all listed before the first run.
    traces.splice(0, traces.length, ...supportTraces(2, "sched"), recent("sched-recent", t0 - 300_000));
    server = await fakeLangfuse({ traces, publicKey: "pk-lf-sched", secretKey: "sk-lf-sched" });
    await db.prisma.allowedHost.create({ data: { host: "127.0.0.1" } });
  });
  afterAll(async () => {
    await server?.close();
    await db?.drop();
    clearKeys?.();
  });

  /** Makes the schedule's holder due, lets the sweep start its next pull, runs it, and returns it. */
  const nextRun = async (holder: string) => {
    await db.prisma.connectorPull.update({ where: { id: holder }, data: { nextRunAt: new Date(Date.now() - 1000) } });
    const started = await startDueScheduledPulls(db.prisma, { lookbackMinutes: 10 });
    expect(started).toHaveLength(1);
    await runPull(db.prisma, started[0]!, { owner: "w", leaseMs: 30_000, maxAttempts: 3 }, { client: FAST });
    return (await findPull(db.prisma, started[0]!))!;
  };

  it("a trace indexed after a run, stamped inside its window, is pulled by the next run exactly once", async () => {
    const connector = await createConnector(
      admin,
      { name: "lf-sched", baseUrl: server.url, publicKey: "pk-lf-sched", secretKeyEnv: SECRET_ENV },
      db.prisma,
    );
    const first = await startPull(
      admin,
      { connectorId: connector.id, filter: { fromTimestamp: "2026-11-20T00:00:00Z" }, schedule: { everyMinutes: 60 } },
      db.prisma,
      { client: FAST },
    );
    expect(first).toMatchObject({ status: "completed", progress: { traces: 3, imported: 3, duplicates: 0 } });
    const end = Date.parse((first.filter as { toTimestamp: string }).toTimestamp);

    // Langfuse indexes a trace late: stamped two minutes before the first run's end, listed only now.
    traces.push(recent("sched-late", end - 120_000));
    const second = await nextRun(first.id);
    expect(second.filter).toMatchObject({ fromTimestamp: new Date(end - 600_000).toISOString() });
    // The late trace imported; the recent one, read again in the overlap, counted as already there.
    expect([second.status, second.progress]).toMatchObject([
      "completed",
      { traces: 2, imported: 1, duplicates: 1, refused: 0 },
    ]);
    const third = await nextRun(second.id);
    expect([third.status, third.progress]).toMatchObject(["completed", { imported: 0, refused: 0 }]);
    const sessions = await db.prisma.session.findMany({
      where: { format: "langfuse" },
      select: { externalId: true },
      orderBy: { externalId: "asc" },
    });
    expect(sessions.map((s) => s.externalId)).toEqual(["sched-000", "sched-001", "sched-late", "sched-recent"]);
  }, 60_000);
});
