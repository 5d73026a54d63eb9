import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { importAndSave } from "@/lib/server/ingest/imports";
import { importLongChat } from "@/lib/db/replays-testing";
import { getSession, sessionEventRows, sessionHead } from "@/lib/db/session-reads";
import { demoDocuments } from "@/lib/server/sessions/demo-data";
import { TEST_ENGINES, createTestDatabase, type TestDatabase } from "@/lib/db/testing";
import { presentSession, presentSessionJson } from "./present";
import { streamedJson } from "./stream";

type Inputs = "full" | "delta";

/** The document as GET /api/v1/sessions/:id sent it before it streamed: the whole session presented at once. */
async function presentedWhole(db: TestDatabase, id: string, inputs: Inputs): Promise<string> {
  const session = (await getSession(db.prisma, id, { inputs }))!;
  return JSON.stringify({ session: presentSession(session, { inputs }) });
}

/** The streamed document, read through the Response the route returns, windows of `window` rows, chunks of `chunkChars`. */
async function streamed(db: TestDatabase, id: string, inputs: Inputs, window: number, chunkChars = 1000) {
  const head = (await sessionHead(db.prisma, id))!;
  const response = await streamedJson(presentSessionJson(head, sessionEventRows(db.prisma, id, window), { inputs }), {
    where: "a test",
    chunkChars,
  });
  return response;
}

describe.each(TEST_ENGINES)("streamed session documents on %s", (engine) => {
  let db: TestDatabase;
  const ids: string[] = [];
  let longId = "";
  beforeAll(async () => {
    db = await createTestDatabase(engine);
    for (const { text } of await demoDocuments()) {
      const result = await importAndSave(db.prisma, text);
      if (!result.ok) throw new Error("a demo document did not import");
      ids.push(...result.sessions.map((s) => s.id));
    }
    longId = (await importLongChat(db.prisma, 300)).sessionId;
  }, 180_000);
  afterAll(async () => {
    await db?.drop();
  });

  it("sends every demo session byte for byte as the whole presenter did, full and delta", async () => {
    expect(ids.length).toBeGreaterThan(3);
    for (const id of ids)
      for (const inputs of ["full", "delta"] as const) {
        // A window of 3 rows: every session crosses windows, model calls extend calls of an earlier window.
        const response = await streamed(db, id, inputs, 3);
        expect(response.status).toBe(200);
        expect(response.headers.get("content-type")).toBe("application/json");
        expect(await response.text()).toBe(await presentedWhole(db, id, inputs));
      }
  });

  it("sends a 300-turn session byte for byte as the whole presenter did, in many chunks", async () => {
    for (const inputs of ["full", "delta"] as const) {
      const response = await streamed(db, longId, inputs, 64, 4096);
      const reader = response.body!.getReader();
      const decoder = new TextDecoder();
      let text = "";
      let chunks = 0;
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        chunks++;
        text += decoder.decode(value, { stream: true });
      }
      text += decoder.decode();
      expect(text).toBe(await presentedWhole(db, longId, inputs));
      expect(chunks).toBeGreaterThan(20);
      const parsed = JSON.parse(text) as { session: { events: { input: { messages?: unknown[] } }[] } };
      expect(parsed.session.events).toHaveLength(2 * 300 + 2);
    }
  });

  it("a session without events is an empty list", async () => {
    const demo = await db.prisma.session.findUniqueOrThrow({ where: { id: ids[0]! } });
    const copy = await db.prisma.session.create({
      data: {
        agentId: demo.agentId,
        agentVersionId: demo.agentVersionId,
        title: "empty \ud800 and \u2028",
        format: "native",
        status: "incomplete",
        eventCount: 0,
        modelCallCount: 0,
        toolCallCount: 0,
        errorCount: 0,
        toolNames: [],
        // An own "__proto__" key and a huge number, as JSON.parse makes them.
        metadata: JSON.parse('{"__proto__":{"x":1},"n":1e300}') as object,
      },
    });
    for (const inputs of ["full", "delta"] as const) {
      const text = await (await streamed(db, copy.id, inputs, 3)).text();
      expect(text).toBe(await presentedWhole(db, copy.id, inputs));
      expect((JSON.parse(text) as { session: { events: unknown[] } }).session.events).toEqual([]);
    }
  });

  it("reads every row once, in order, across gaps in the seqs", async () => {
    const demo = await db.prisma.session.findUniqueOrThrow({ where: { id: ids[0]! } });
    const sparse = await db.prisma.session.create({
      data: {
        agentId: demo.agentId,
        agentVersionId: demo.agentVersionId,
        format: "native",
        status: "completed",
        eventCount: 9,
        modelCallCount: 0,
        toolCallCount: 0,
        errorCount: 0,
        toolNames: [],
      },
    });
    const seqs = [2, 3, 4, 5, 9, 1000, 1_000_000_000, 2 ** 31 - 2, 2 ** 31 - 1];
    await db.prisma.event.createMany({
      data: seqs.map((seq) => ({ sessionId: sparse.id, seq, kind: "user_message", name: "user", status: "completed" })),
    });
    for (const window of [1, 3, 4, 200]) {
      const read: number[] = [];
      for await (const row of sessionEventRows(db.prisma, sparse.id, window)) read.push(row.seq);
      expect(read).toEqual(seqs);
    }
    expect(await (await streamed(db, sparse.id, "full", 3)).text()).toBe(await presentedWhole(db, sparse.id, "full"));
  });

  it("a session rewritten while it is sent is cut, not closed as if whole", async () => {
    const { sessionId: id, events: count } = await importLongChat(db.prisma, 60);
    const response = await streamed(db, id, "delta", 16, 2048);
    const reader = response.body!.getReader();
    const decoder = new TextDecoder();
    let text = decoder.decode((await reader.read()).value, { stream: true });
    // A rebuild under the read: the last ten events go (their session row still says `count`).
    await db.prisma.event.deleteMany({ where: { sessionId: id, seq: { gte: count - 10 } } });
    const rest = async () => {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) return;
        text += decoder.decode(value, { stream: true });
      }
    };
    await expect(rest()).rejects.toThrow(`changed while it was sent: ${count - 10} events read, ${count} expected`);
    expect(() => JSON.parse(text) as unknown).toThrow();
  });

  it("a failure in the first chunk rejects before answering; one after it cuts the body", async () => {
    const models = await db.prisma.event.findMany({
      where: { sessionId: longId, kind: "model_call", inputPrefixSeq: { not: null } },
      orderBy: { seq: "asc" },
      select: { seq: true, inputPrefixSeq: true },
    });
    // A late model call made to extend a call that is not the one before it: the stored form is broken there.
    const late = models.at(-10)!;
    await db.prisma.event.update({
      where: { sessionId_seq: { sessionId: longId, seq: late.seq } },
      data: { inputPrefixSeq: models[0]!.seq },
    });
    try {
      const response = await streamed(db, longId, "full", 64, 4096);
      expect(response.status).toBe(200);
      const reader = response.body!.getReader();
      let text = "";
      const decoder = new TextDecoder();
      const read = async () => {
        for (;;) {
          const { done, value } = await reader.read();
          if (done) return;
          text += decoder.decode(value, { stream: true });
        }
      };
      await expect(read()).rejects.toThrow(`step ${late.seq} extends step ${models[0]!.seq}`);
      expect(text.length).toBeGreaterThan(4096);
      expect(() => JSON.parse(text) as unknown).toThrow();
      // The delta form does not rebuild inputs: it is sent whole, as stored.
      expect(await (await streamed(db, longId, "delta", 64, 4096)).text()).toBe(
        await presentedWhole(db, longId, "delta"),
      );
      // Broken in the first chunk: no answer is made (the route answers with its JSON error instead).
      await expect(streamed(db, longId, "full", 64, 1 << 30)).rejects.toThrow(`step ${late.seq} extends`);
    } finally {
      await db.prisma.event.update({
        where: { sessionId_seq: { sessionId: longId, seq: late.seq } },
        data: { inputPrefixSeq: late.inputPrefixSeq },
      });
    }
  });
});
