import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { compactInputs } from "@/lib/sessions/inputs";
import { canonicalJson, replay, type Policy } from "@/lib/replay";
import { importLongChat, loadReplayView, storedRun } from "./replays-testing";
import { sessionEvents, sessionEventsCompact } from "./session-reads";
import { TEST_ENGINES, createTestDatabase, type TestDatabase } from "./testing";

const TURNS = 300;

describe.each(TEST_ENGINES)("a replay of a long session in the stored form on %s", (engine) => {
  let db: TestDatabase;
  beforeAll(async () => {
    db = await createTestDatabase(engine);
  });
  afterAll(async () => {
    await db?.drop();
  });

  it("reads the stored form, stores its steps as they come, and reads back what a replay of whole inputs gives", async () => {
    const { sessionId } = await importLongChat(db.prisma, TURNS);
    const stored = await sessionEventsCompact(db.prisma, sessionId);
    const whole = await sessionEvents(db.prisma, sessionId);
    // Each model call after the first names the one before it and holds the messages it adds.
    const models = stored.filter((e) => e.kind === "model_call");
    expect(models.filter((e) => e.inputPrefix).length).toBe(TURNS);
    expect(models.reduce((n, e) => n + (e.input as { messages: unknown[] }).messages.length, 0)).toBe(2 + 2 * TURNS);

    const policy: Policy = {
      model: "recorded-only",
      drift: "continue_to_terminal",
      tools: { default: { type: "history", scope: "baseline", on_miss: "fail" } },
    };
    // The first tool result edited: every later model input differs from the record.
    const firstTool = whole.find((e) => e.kind === "tool_call")!;
    const edits = [{ seq: firstTool.seq, op: "replace_tool_result" as const, value: { edited: true } }];
    const compact = await replay({ base: stored, policy, edits, inputs: "compact" });
    const full = await replay({ base: whole, policy, edits });
    expect(compact.evidence.inputDrift).toHaveLength(TURNS);
    expect(compact.evidence).toEqual(full.evidence);

    const id = await storedRun(db.prisma, sessionId, policy, compact);
    const [rows] = await db.prisma.$queryRaw<{ messages: number; pointers: number }[]>`
      SELECT sum(jsonb_array_length(input->'messages'))::int AS messages, count("inputPrefixIdx")::int AS pointers
      FROM "ReplayStep" WHERE "replayId" = ${id} AND kind = 'model_call'`;
    expect(rows).toEqual({ messages: 2 + 2 * TURNS, pointers: TURNS });
    const digests = await db.prisma.replayStep.findMany({
      where: { replayId: id, kind: "model_call" },
      orderBy: { idx: "asc" },
      select: { inputDigest: true },
    });
    expect(digests.map((d) => d.inputDigest)).toEqual(
      compactInputs(full.steps)
        .filter((_, i) => full.steps[i]!.kind === "model_call")
        .map((c) => c.digest),
    );
    const view = (await loadReplayView(db.prisma, id))!;
    expect(canonicalJson(view.steps)).toBe(canonicalJson(full.steps));
  }, 120_000);
});
