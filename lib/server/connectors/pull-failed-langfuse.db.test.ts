/**
 * The issue's "done when", for Langfuse through the local fake (./testing.ts): an analyst pulls last week's failed
 * runs of one agent (the fake serves failed and passing traces of two agents, in and out of the week), in a job
 * with progress, and replays one as a branch. The pulled session holds the same steps as the same trace imported
 * as a file, and its branch under the recorded policy is exact, step for step from the recording.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { TEST_ENGINES, createTestDatabase, type TestDatabase } from "@/lib/db/testing";
import { importDocument } from "@/lib/ingest";
import { supportTrace } from "@/lib/ingest/__fixtures__/langfuse";
import type { SessionEvent } from "@/lib/replay";
import { localAdmin, type Principal } from "../principal";
import { replayOf, user } from "../testing";
import { createConnector, startPull, StartPullInput } from "./connectors";
import { fakeLangfuse, storedSessions, withKeyVariables } from "./testing";

const SECRET_ENV = "LANGFUSE_FAILED_TEST_SECRET_KEY";
const DAY = 86_400_000;

/** Traces of two agents over nine days (BASE_TIME is 2026-11-20T10:00Z): failed and passing, in and out of the week. */
function corpus() {
  const run = (id: string, day: number, fails: boolean, name = "support-agent") => ({
    ...supportTrace(id, { offsetMs: day * DAY, order: String(7000 + day), fails }),
    name,
  });
  return [
    run("old-failed", -8, true),
    run("support-failed-1", -5, true),
    run("support-passed-1", -4, false),
    run("billing-failed", -3, true, "billing-agent"),
    run("support-failed-2", -2, true),
    run("billing-passed", -2, false, "billing-agent"),
    run("support-passed-2", -1, false),
  ];
}
const WEEK = { fromTimestamp: "2026-11-13T10:00:00Z", toTimestamp: "2026-11-20T10:00:00Z" };

/** What a step is, as the import stored it: everything but where it is stored. */
const steps = (events: readonly SessionEvent[]) =>
  events.map((e) => ({
    seq: e.seq,
    kind: e.kind,
    name: e.name,
    parentSeq: e.parentSeq,
    status: e.status,
    error: e.error,
    input: e.input,
    output: e.output,
  }));

describe.each(TEST_ENGINES)(
  "last week's failed runs of one agent, pulled from Langfuse and replayed, on %s",
  (engine) => {
    let db: TestDatabase;
    let server: Awaited<ReturnType<typeof fakeLangfuse>>;
    const admin: Principal = localAdmin("ada");
    const analyst = user("u-ann", "ann");

    let clearKeys: (() => void) | undefined;
    beforeAll(async () => {
      clearKeys = withKeyVariables({ [SECRET_ENV]: "sk-lf-week" });
      db = await createTestDatabase(engine);
      server = await fakeLangfuse({ traces: corpus(), publicKey: "pk-lf-week", secretKey: "sk-lf-week" });
      await db.prisma.allowedHost.create({ data: { host: "127.0.0.1" } });
    });
    afterAll(async () => {
      await server?.close();
      await db?.drop();
      clearKeys?.();
    });

    it("imports exactly the failed ones, as complete as a file import, and one replays exactly as a branch", async () => {
      const connector = await createConnector(
        admin,
        { name: "langfuse-week", baseUrl: server.url, publicKey: "pk-lf-week", secretKeyEnv: SECRET_ENV },
        db.prisma,
      );
      const pull = await startPull(
        analyst,
        { connectorId: connector.id, filter: { ...WEEK, name: "support-agent", error: true } },
        db.prisma,
        { pageSize: 2 },
      );
      expect([pull.status, pull.error, pull.progress]).toEqual([
        "completed",
        null,
        {
          pages: 2,
          totalPages: 2,
          totalItems: 4,
          traces: 4,
          imported: 2,
          duplicates: 0,
          refused: 0,
          skipped: 2,
          retries: 0,
        },
      ]);
      // The list was asked by agent and week (Langfuse's list has no failed-only parameter): four traces read.
      expect(server.hits.map((h) => [h.kind, h.page ?? h.traceId])).toEqual([
        ["list", 1],
        ["trace", "support-failed-1"],
        ["trace", "support-passed-1"],
        ["list", 2],
        ["trace", "support-failed-2"],
        ["trace", "support-passed-2"],
      ]);

      const stored = await storedSessions(db.prisma, "langfuse");
      expect(stored.map((s) => [s.externalId, s.errorCount])).toEqual([
        ["support-failed-1", 1],
        ["support-failed-2", 1],
      ]);

      // The same run imported as a file gives the same steps.
      const file = importDocument(
        JSON.stringify(corpus().find((t) => (t as { id?: string }).id === "support-failed-2")),
      );
      if (!file.ok) throw new Error(JSON.stringify(file.issues));
      const pulled = stored[1]!;
      expect(steps(pulled.events)).toEqual(steps(file.sessions[0]!.events));
      expect(pulled.events.map((e) => [e.kind, e.name, e.status])).toEqual([
        ["model_call", "gpt-4o-2024-08-06", "completed"],
        ["tool_call", "lookup_order", "completed"],
        ["model_call", "gpt-4o-2024-08-06", "completed"],
        ["tool_call", "refund_payment", "failed"],
        ["model_call", "gpt-4o-2024-08-06", "completed"],
        ["final_output", "final_output", "completed"],
      ]);

      const session = await db.prisma.session.findFirstOrThrow({ where: { externalId: "support-failed-2" } });
      const replayId = await replayOf(db.prisma, analyst, session.id);
      const replay = await db.prisma.replay.findUniqueOrThrow({
        where: { id: replayId },
        select: { status: true, comparability: true },
      });
      expect(replay).toEqual({ status: "completed", comparability: "exact" });
      const branch = await db.prisma.replayStep.findMany({
        where: { replayId },
        orderBy: { idx: "asc" },
        select: { kind: true, name: true, source: true, baseSeq: true, status: true },
      });
      expect(branch).toEqual(
        pulled.events.map((e) => ({
          kind: e.kind,
          name: e.name,
          source: "recorded",
          baseSeq: e.seq,
          status: e.status,
        })),
      );
    });

    it("pulls by a score Langfuse's list cannot filter by: each trace read, kept by its scores; a bad score is a 400", async () => {
      const connectorId = (await db.prisma.connector.findFirstOrThrow({ where: { name: "langfuse-week" } })).id;
      // As the API and the form read it.
      const bad = StartPullInput.safeParse({ filter: { ...WEEK, score: { name: "resolved", op: ">", value: "yes" } } });
      expect(bad.error?.issues.map((i) => [i.path.join("."), i.message])).toEqual([
        ["filter.score", "A text or true/false score compares by = or != only."],
      ]);
      server.hits.length = 0;
      const pull = await startPull(
        analyst,
        { connectorId, filter: { ...WEEK, score: { name: "resolved", op: "<", value: 1 } } },
        db.prisma,
        { pageSize: 10 },
      );
      // The week's six traces read; the three resolved (score 1) left out; two of the three found again.
      expect([pull.status, pull.progress]).toMatchObject([
        "completed",
        { traces: 6, imported: 1, duplicates: 2, skipped: 3, refused: 0 },
      ]);
      expect(server.hits.filter((h) => h.kind === "trace")).toHaveLength(6);
      expect((await storedSessions(db.prisma, "langfuse")).map((s) => s.externalId)).toEqual([
        "billing-failed",
        "support-failed-1",
        "support-failed-2",
      ]);
      const none = await startPull(
        analyst,
        { connectorId, filter: { ...WEEK, score: { name: "helpful", op: ">=", value: 0 } } },
        db.prisma,
      );
      expect(none.progress).toMatchObject({ traces: 6, imported: 0, duplicates: 0, skipped: 6 });
    });
  },
);
