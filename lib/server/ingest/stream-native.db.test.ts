import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { TEST_ENGINES, createTestDatabase, storedSessionsWhole, type TestDatabase } from "@/lib/db/testing";
import { longNativeText } from "@/lib/ingest/long-native";
import { importAndSave } from "./imports";
import { bytesSource, importStream } from "./stream-import";

// One native session document read as a stream (its events a window at a time): stored exactly as the whole
// import stores it, its fields found wherever they sit, bad input anywhere refused by name with nothing written.
const WHOLE_LIMIT = 20 * 1024 * 1024;
/** Below any document here: the streamed answer, never the whole import's. */
const NO_WHOLE = 1000;

async function counts(db: TestDatabase) {
  return { sessions: await db.prisma.session.count(), events: await db.prisma.event.count() };
}

/** Everything stored of a session but its id and creation time. */
async function stored(db: TestDatabase, id: string) {
  const [session] = await storedSessionsWhole(db.prisma, [id]);
  return session;
}

describe.each(TEST_ENGINES)("a native session read as a stream on %s", (engine) => {
  let db: TestDatabase;
  beforeAll(async () => {
    db = await createTestDatabase(engine);
  }, 120_000);
  afterAll(async () => {
    await db?.drop();
  });

  it("stores every field as the whole import does: seqs given or not, errors, usage, parentSeq, a lone surrogate", async () => {
    for (const seqs of [true, false]) {
      // A lone surrogate in a tool result that the next model calls' inputs repeat: counted once, where it first
      // appears (the stored form), by both imports.
      const text = longNativeText(60, { seqs }).replace('"note":"9:0:', '"note":"9:0:\\ud83d');
      const whole = await importAndSave(db.prisma, text, {});
      const progress: number[] = [];
      const streamed = await importStream(db.prisma, bytesSource(text), {
        wholeLimit: NO_WHOLE,
        onProgress: ({ events }) => progress.push(events),
      });
      if (!whole.ok || !streamed.ok) throw new Error(JSON.stringify([whole, streamed]).slice(0, 2000));
      expect(streamed.format).toBe("native");
      const [a, b] = [await stored(db, whole.sessions[0]!.id), await stored(db, streamed.sessions[0]!.id)];
      // 1 user turn, 61 model calls, 60 + 9 tool calls (10 failed), 2 more user turns, the final output.
      expect(b!.events).toHaveLength(134);
      expect(progress).toEqual([134]);
      expect(b).toMatchObject({
        format: "native",
        title: "A support run of 60 turns",
        toolNames: ["lookup", "refund"],
        errorCount: 10,
        metadata: { outcome: "success", turns: 60, repairedCharacters: 1 },
        endedAt: new Date(Date.UTC(2026, 0, 5, 9) + 10 + 61 * 1000),
      });
      expect(b!.events.filter((e) => e.inputPrefixSeq !== null).length).toBeGreaterThan(30);
      expect(b).toEqual(a);
      const tools = await db.prisma.tool.findMany({ where: { agentId: b!.agentId }, orderBy: { name: "asc" } });
      expect(tools.map((t) => [t.name, t.sideEffect])).toEqual([
        ["lookup", "read"],
        ["refund", "unknown"],
      ]);
    }
  });

  it("refuses a bad event after windows were written, naming it, and writes nothing", async () => {
    const before = await counts(db);
    // 500 turns: over 1,000 events, so the first window of 1,000 is written before the bad one is read.
    const good = longNativeText(500);
    const bad = good.replace('"callId":"call_480"', '"callId":480');
    const { events } = JSON.parse(bad) as { events: { input?: { callId?: unknown } }[] };
    const index = events.findIndex((e) => e.input?.callId === 480);
    expect(index).toBeGreaterThan(1000);
    const result = await importStream(db.prisma, bytesSource(bad), { wholeLimit: NO_WHOLE });
    expect(result).toEqual({
      ok: false,
      format: "native",
      issues: [{ path: `events[${index}].input.callId`, message: "Invalid input: expected string, received number" }],
    });
    expect(await counts(db)).toEqual(before);

    // The rules between events, as the whole import words them: a tool call whose parent is not a model call.
    const doc = JSON.parse(good) as { events: { kind: string; parentSeq?: number }[] };
    const tool = doc.events.findIndex((e) => e.kind === "tool_call");
    doc.events[tool]!.parentSeq = 0;
    const orphan = await importStream(db.prisma, bytesSource(JSON.stringify(doc)), { wholeLimit: NO_WHOLE });
    expect(orphan).toEqual({
      ok: false,
      format: "native",
      issues: [
        { path: `events[${tool}].parentSeq`, message: "parentSeq 0 is a user_message; it must be a model_call" },
      ],
    });
    expect(await counts(db)).toEqual(before);
  });

  it("needs a large file's seqs in list order; a small one out of order is imported whole", async () => {
    const before = await counts(db);
    const doc = JSON.parse(longNativeText(20)) as { events: { seq: number }[] };
    // The final output listed first: a valid document (the whole import sorts by seq).
    doc.events.unshift(doc.events.pop()!);
    const text = JSON.stringify(doc);
    const large = await importStream(db.prisma, bytesSource(text), { wholeLimit: NO_WHOLE });
    expect(large.ok).toBe(false);
    if (large.ok) return;
    expect(large.issues[0]).toEqual({
      path: "events[0].seq",
      message: `seq ${doc.events.length - 1} is not this event's place in the list (0): a large file is read as a stream, so its events must be listed in seq order (0, 1, 2…)`,
    });
    expect(await counts(db)).toEqual(before);
    const small = await importStream(db.prisma, bytesSource(text), { wholeLimit: WHOLE_LIMIT });
    if (!small.ok) throw new Error(JSON.stringify(small.issues));
    expect(small.sessions[0]!.eventCount).toBe(doc.events.length);

    // The fields besides the events are held whole: over the whole-document limit, a 413 before anything is written.
    const padded = JSON.stringify({ ...doc, metadata: { pad: "x".repeat(5000) } });
    const refusal = await importStream(db.prisma, bytesSource(padded), { wholeLimit: 4000 }).catch((e: unknown) => e);
    expect(refusal).toMatchObject({ code: "payload_too_large" });
    expect((refusal as Error).message).toMatch(
      /^The session's fields besides its events \(title, metadata, tools…\) are 5\d{3} characters/,
    );
    expect(await counts(db)).toEqual({ sessions: before.sessions + 1, events: before.events + doc.events.length });
  });
});
