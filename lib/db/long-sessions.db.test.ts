import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { canonicalJson, replay, type Policy } from "@/lib/replay";
import { importDocument } from "@/lib/ingest";
import { longChatLog } from "@/lib/ingest/long-chat";
import { compactStoredInputs } from "./compact-stored";
import { importAndSave } from "@/lib/server/ingest/imports";
import { loadReplayComparison } from "./replay-comparison";
import { importLongChat, loadReplayView, storedRun } from "./replays-testing";
import { fullEvent, getSession, sessionEvents, sessionEventsCompact } from "./session-reads";
import { saveImportedSessions } from "./session-save";
import { demoDocuments } from "@/lib/server/sessions/demo-data";
import { TEST_ENGINES, createTestDatabase, type TestDatabase } from "./testing";

const TURNS = 10_000;

describe.each(TEST_ENGINES)("long sessions on %s", (engine) => {
  let db: TestDatabase;
  beforeAll(async () => {
    db = await createTestDatabase(engine);
  });
  afterAll(async () => {
    await db?.drop();
  });

  it(
    `imports a ${TURNS.toLocaleString("en")}-turn chat log, storing each message once`,
    { timeout: 300_000 },
    async () => {
      const result = await importAndSave(db.prisma, JSON.stringify(longChatLog(TURNS)), { format: "openai-chat" });
      if (!result.ok) throw new Error(JSON.stringify(result.issues.slice(0, 3)));
      const id = result.sessions[0]!.id;
      // A model call per turn plus the answer, a tool call per turn, the final output.
      expect(result.sessions[0]!.eventCount).toBe(2 * TURNS + 2);
      const [stored] = await db.prisma.$queryRaw<{ messages: number; pointers: number }[]>`
      SELECT sum(jsonb_array_length(input->'messages'))::int AS messages, count("inputPrefixSeq")::int AS pointers
      FROM "Event" WHERE "sessionId" = ${id} AND kind = 'model_call'`;
      // The system prompt and the user's turn, then an assistant message and a tool result per turn: each once.
      expect(stored).toEqual({ messages: 2 + 2 * TURNS, pointers: TURNS });

      // The steps as stored (a pointer each), then the two this test looks at whole: expanding all 10,001 inputs
      // would build 10,001 lists of up to 20,002 messages, a cost the pages never pay.
      const models = (await sessionEventsCompact(db.prisma, id)).filter((e) => e.kind === "model_call");
      expect(models).toHaveLength(TURNS + 1);
      const whole = async (seq: number) => (await fullEvent(db.prisma, id, seq))!.input;
      const lastInput = (await whole(models.at(-1)!.seq)) as {
        messages: { role: string; tool_call_id?: string }[];
        model: string;
      };
      expect(lastInput.messages).toHaveLength(2 + 2 * TURNS);
      expect(lastInput.model).toBe("gpt-4o");
      expect(lastInput.messages.at(-1)).toMatchObject({ role: "tool" });
      // Each step's input is the one before it plus the assistant message and tool result in between.
      const middle = (await whole(models[TURNS / 2]!.seq)) as { messages: unknown[] };
      expect(middle.messages).toHaveLength(2 + 2 * (TURNS / 2));
      expect(canonicalJson(middle.messages)).toBe(canonicalJson(lastInput.messages.slice(0, 2 + 2 * (TURNS / 2))));

      const delta = (await getSession(db.prisma, id, { inputs: "delta" }))!;
      const step = delta.events.find((e) => e.seq === models[3]!.seq)!;
      expect(step.inputPrefixSeq).toBe(models[2]!.seq);
      expect(step.inputPrefixCount).toBe(2 + 2 * 2);
      expect((step.input as { messages: unknown[] }).messages).toHaveLength(2);
    },
  );

  it("stores a branch's model inputs once too; its steps read back whole and its comparison is exact", async () => {
    const { sessionId } = await importLongChat(db.prisma, 300);
    const base = await sessionEvents(db.prisma, sessionId);
    const policy: Policy = {
      model: "recorded-only",
      drift: "continue_to_terminal",
      tools: { default: { type: "history", scope: "baseline", on_miss: "fail" } },
    };
    const run = await replay({ base, policy });
    const id = await storedRun(db.prisma, sessionId, policy, run);
    const [stored] = await db.prisma.$queryRaw<{ messages: number; pointers: number }[]>`
      SELECT sum(jsonb_array_length(input->'messages'))::int AS messages, count("inputPrefixIdx")::int AS pointers
      FROM "ReplayStep" WHERE "replayId" = ${id} AND kind = 'model_call'`;
    expect(stored).toEqual({ messages: 2 + 2 * 300, pointers: 300 });
    const view = (await loadReplayView(db.prisma, id))!;
    expect(canonicalJson(view.steps)).toBe(canonicalJson(run.steps));
    const lite = (await loadReplayComparison(db.prisma, id))!;
    expect(lite.comparison.firstDivergence).toBeNull();
    expect(lite.comparison.pairs.every((p) => p.type === "equal")).toBe(true);
  });

  it("puts sessions stored whole in the compact form at start, with the same full inputs", async () => {
    const sessions = [];
    for (const { text } of await demoDocuments()) {
      const r = importDocument(text);
      if (r.ok) sessions.push(...r.sessions.map((s) => ({ ...s, externalId: `legacy:${s.externalId}` })));
    }
    const saved = await saveImportedSessions(db.prisma, sessions);
    const before = await Promise.all(saved.map((s) => sessionEvents(db.prisma, s.id)));
    // As an older version stored them: whole inputs, no pointers, no digests.
    for (const [i, s] of saved.entries()) {
      for (const e of sessions[i]!.events.filter((e) => e.kind === "model_call")) {
        await db.prisma.event.update({
          where: { sessionId_seq: { sessionId: s.id, seq: e.seq } },
          data: { input: e.input as object, inputPrefixSeq: null, inputPrefixCount: null, inputDigest: null },
        });
      }
    }
    const whole = await db.prisma.event.count({
      where: { sessionId: { in: saved.map((s) => s.id) }, inputDigest: null, kind: "model_call" },
    });
    expect(whole).toBeGreaterThan(50);

    const migrated = await compactStoredInputs(db.prisma);
    expect(migrated.sessions).toBe(saved.length);
    expect(
      await db.prisma.event.count({
        where: { sessionId: { in: saved.map((s) => s.id) }, inputDigest: null, kind: "model_call" },
      }),
    ).toBe(0);
    expect(
      await db.prisma.event.count({
        where: { sessionId: { in: saved.map((s) => s.id) }, inputPrefixSeq: { not: null } },
      }),
    ).toBeGreaterThan(30);
    const after = await Promise.all(saved.map((s) => sessionEvents(db.prisma, s.id)));
    expect(canonicalJson(after)).toBe(canonicalJson(before));
    // Done once: a second start finds nothing to do.
    expect(await compactStoredInputs(db.prisma)).toEqual({ sessions: 0, replays: 0 });
  });
});
