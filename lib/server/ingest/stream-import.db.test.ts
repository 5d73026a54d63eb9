import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { rowText } from "@/lib/db/event-rows";
import { TEST_ENGINES, createTestDatabase, type TestDatabase } from "@/lib/db/testing";
import { longChatLog } from "@/lib/ingest/long-chat";
import { importAndSave } from "./imports";
import { bytesSource, importStream, type ByteSource } from "./stream-import";

// Imports read as a stream and written in windows, in one transaction: a 10,000-turn chat log stored exactly as
// the whole-document import stores it, nothing written when the last record is bad, memory that does not follow
// the file's size, and the import routes' limit.
const TURNS = 10_000;
const WHOLE_LIMIT = 20 * 1024 * 1024;

setFlagsFromString("--expose-gc");
const collect = runInNewContext("gc") as () => void;

/** A chat log of `turns` tool turns whose tool results are `resultBytes` long, generated as it is read (twice). */
function generatedLog(turns: number, resultBytes: number): ByteSource {
  const encoder = new TextEncoder();
  const pad = "r".repeat(resultBytes);
  const size = [...chunks()].reduce((n, c) => n + c.byteLength, 0);
  function* chunks(): Generator<Uint8Array> {
    yield encoder.encode(
      `{"model":"gpt-4o","messages":[{"role":"system","content":"Be brief."},{"role":"user","content":"Look it all up."}`,
    );
    let batch = "";
    for (let t = 0; t < turns; t++) {
      const id = `call_${t}`;
      batch += `,${JSON.stringify({ role: "assistant", content: null, tool_calls: [{ id, type: "function", function: { name: "lookup", arguments: JSON.stringify({ n: t }) } }] })}`;
      batch += `,${JSON.stringify({ role: "tool", tool_call_id: id, content: `${t}:${pad}` })}`;
      if (batch.length > 1 << 20) {
        yield encoder.encode(batch);
        batch = "";
      }
    }
    yield encoder.encode(`${batch},{"role":"assistant","content":"Done."}]}`);
  }
  return {
    size,
    async *chunks() {
      yield* chunks();
    },
  };
}

async function counts(db: TestDatabase) {
  return { sessions: await db.prisma.session.count(), events: await db.prisma.event.count() };
}

describe.each(TEST_ENGINES)("imports read as a stream on %s", (engine) => {
  let db: TestDatabase;
  beforeAll(async () => {
    db = await createTestDatabase(engine);
  }, 120_000);
  afterAll(async () => {
    await db?.drop();
  });

  it(
    `imports a ${TURNS.toLocaleString("en")}-turn chat log in windows: each message once, each where it belongs`,
    { timeout: 300_000 },
    async () => {
      const log = longChatLog(TURNS);
      const progress: number[] = [];
      const result = await importStream(db.prisma, bytesSource(JSON.stringify(log)), {
        wholeLimit: WHOLE_LIMIT,
        onProgress: ({ events }) => progress.push(events),
      });
      if (!result.ok) throw new Error(JSON.stringify(result.issues.slice(0, 3)));
      expect(result.format).toBe("openai-chat");
      const { id, eventCount } = result.sessions[0]!;
      // A model call and a tool call per turn, the last model call, the final output.
      expect(eventCount).toBe(2 * TURNS + 2);
      // Written in windows of 1,000 events, the last window the rest.
      expect(progress).toEqual([...Array.from({ length: 20 }, (_, i) => (i + 1) * 1000), 2 * TURNS + 2]);
      const [stored] = await db.prisma.$queryRaw<{ messages: number; pointers: number; events: number }[]>`
      SELECT sum(jsonb_array_length(input->'messages')) FILTER (WHERE kind = 'model_call')::int AS messages,
        count("inputPrefixSeq")::int AS pointers, count(*)::int AS events
      FROM "Event" WHERE "sessionId" = ${id}`;
      expect(stored).toEqual({ messages: 2 + 2 * TURNS, pointers: TURNS, events: 2 * TURNS + 2 });
      const session = await db.prisma.session.findUniqueOrThrow({ where: { id } });
      expect(session).toMatchObject({
        eventCount: 2 * TURNS + 2,
        modelCallCount: TURNS + 1,
        toolCallCount: TURNS,
        status: "completed",
        toolNames: ["get_order_details"],
        title: "Hello, I ordered several things last month and I want to know where each of the…",
      });
      // Turn 5,000: its tool call holds the call's arguments and the result as the log wrote it; the model call
      // after it stores only the two messages it adds, pointing at the call before.
      const at = (seq: number) =>
        db.prisma.event.findUniqueOrThrow({ where: { sessionId_seq: { sessionId: id, seq } } });
      const tool = await at(2 * 5000 + 1);
      const messages = log.messages as { content: string; tool_calls?: { id: string }[] }[];
      expect(tool).toMatchObject({
        kind: "tool_call",
        name: "get_order_details",
        status: "completed",
        parentSeq: 2 * 5000,
        output: messages[2 + 2 * 5000 + 1]!.content,
        occurrence: 0,
      });
      expect((tool.input as { callId: string }).callId).toBe(messages[2 + 2 * 5000]!.tool_calls![0]!.id);
      const next = await at(2 * 5001);
      expect(next).toMatchObject({ kind: "model_call", inputPrefixSeq: 2 * 5000, inputPrefixCount: 2 + 2 * 5000 });
      expect((next.input as { messages: { role: string }[] }).messages.map((m) => m.role)).toEqual([
        "assistant",
        "tool",
      ]);
      expect(await at(2 * TURNS + 1)).toMatchObject({
        kind: "final_output",
        output: `I checked all ${TURNS} orders: every one is accounted for.`,
      });
    },
  );

  it("stores every row as the whole-document import does", { timeout: 120_000 }, async () => {
    const body = JSON.stringify({ ...longChatLog(300), temperature: 0.2, metadata: { agent: "shop-bot" } });
    const whole = await importAndSave(db.prisma, body, {});
    const streamed = await importStream(db.prisma, bytesSource(body), { wholeLimit: WHOLE_LIMIT });
    if (!whole.ok || !streamed.ok) throw new Error("an import failed");
    const rows = async (sessionId: string) =>
      (await db.prisma.event.findMany({ where: { sessionId }, orderBy: { seq: "asc" } })).map(rowText);
    const [a, b] = [await rows(whole.sessions[0]!.id), await rows(streamed.sessions[0]!.id)];
    expect(b).toHaveLength(602);
    expect(b).toEqual(a);
    const fields = async (sessionId: string) => {
      const {
        id: _id,
        createdAt: _c,
        ...rest
      } = await db.prisma.session.findUniqueOrThrow({ where: { id: sessionId } });
      return rest;
    };
    expect(await fields(streamed.sessions[0]!.id)).toEqual(await fields(whole.sessions[0]!.id));
  });

  it(
    "writes nothing when the last message is bad, after windows of events were written",
    { timeout: 300_000 },
    async () => {
      const before = await counts(db);
      const log = longChatLog(3000);
      log.messages.push({ role: "robot", content: "the last line" });
      const result = await importStream(db.prisma, bytesSource(JSON.stringify(log)), { wholeLimit: WHOLE_LIMIT });
      expect(result).toMatchObject({ ok: false, format: "openai-chat" });
      if (result.ok) return;
      expect(result.issues).toHaveLength(1);
      expect(result.issues[0]!.path).toBe(`messages[${2 + 2 * 3000 + 1}].role`);
      expect(await counts(db)).toEqual(before);

      // The same log as JSON Lines of messages, its last line cut short: refused before anything is written.
      const lines = longChatLog(3000).messages.map((m) => JSON.stringify(m));
      lines.push('{"role": "assistant", "content": "cut sho');
      const cut = await importStream(db.prisma, bytesSource(lines.join("\n")), { wholeLimit: WHOLE_LIMIT });
      expect(cut).toEqual({
        ok: false,
        format: null,
        summary: `Malformed JSON Lines: 1 line is not valid JSON, the first at line ${lines.length}.`,
        issues: [{ path: `line ${lines.length}`, message: "malformed JSON at column 42: unterminated string" }],
      });
      expect(await counts(db)).toEqual(before);
    },
  );

  it(
    "refuses bad input in the middle with its place, writing nothing; repairs lone surrogates; keeps __proto__ as a key",
    { timeout: 300_000 },
    async () => {
      const before = await counts(db);
      const withMessage = (index: number, raw: string) => {
        const parts = longChatLog(3000).messages.map((m) => JSON.stringify(m));
        parts[index] = raw;
        return `{"model":"gpt-4o","messages":[\n${parts.join(",\n")}\n]}`;
      };
      // Past the whole-document limit, as the large files this is for (under it, the whole-document import answers
      // a malformed file itself, in its own words).
      const refused = async (text: string) => {
        const r = await importStream(db.prisma, bytesSource(text), { wholeLimit: 1000 });
        expect(r.ok).toBe(false);
        expect(await counts(db)).toEqual(before);
        return r as Extract<typeof r, { ok: false }>;
      };
      // Message 5,000 sits on line 5,002 (the document's first line, then one message a line).
      // (The object left open takes in the next line: its JSON stops being JSON there.)
      expect((await refused(withMessage(5000, '{"role": "tool", "content": "x"'))).summary).toBe(
        'Malformed JSON at line 5003, column 1: expected a property name in double quotes, found "{".',
      );
      expect(
        (await refused(withMessage(5000, `{"role": "tool", "content": ${"[".repeat(600)}${"]".repeat(600)}}`))).summary,
      ).toMatch(
        /^Malformed JSON at line 5002, column \d+: the JSON nests objects and arrays more than 512 levels deep/,
      );
      expect(
        (await refused(withMessage(5001, '{"role": "tool", "tool_call_id": "x", "content": [{"n": 1e999}]}'))).summary,
      ).toBe(
        "Malformed JSON at line 5003, column 57: the number 1e999 is too large to store (the largest is about 1.8e308).",
      );

      // A lone surrogate is stored as U+FFFD and counted; a key named __proto__ stays a key of the tool's result.
      const callId = (longChatLog(3000).messages[5000] as { tool_calls: { id: string }[] }).tool_calls[0]!.id;
      const odd = withMessage(
        5001,
        `{"role":"tool","tool_call_id":"${callId}","content":[{"type":"text","text":"cut \\ud83d here","__proto__":{"polluted":true}}]}`,
      );
      const ok = await importStream(db.prisma, bytesSource(odd), { wholeLimit: WHOLE_LIMIT });
      if (!ok.ok) throw new Error(JSON.stringify(ok.issues));
      const id = ok.sessions[0]!.id;
      const session = await db.prisma.session.findUniqueOrThrow({ where: { id } });
      expect(session.metadata).toEqual({ repairedCharacters: 1 });
      const event = await db.prisma.event.findFirstOrThrow({ where: { sessionId: id, kind: "tool_call", seq: 4999 } });
      const [part] = event.output as Record<string, unknown>[];
      expect(part!.text).toBe("cut \uFFFD here");
      expect(Object.hasOwn(part!, "__proto__")).toBe(true);
      expect(Object.getOwnPropertyDescriptor(part, "__proto__")!.value).toEqual({ polluted: true });
      expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    },
  );

  // On the embedded database only: there the database's own memory is this process's too, so the bound is the
  // tighter one (PostgreSQL's is another process's); the import's code is the same on both.
  it.runIf(engine === "pglite")(
    "imports a ~50 MB chat log with memory that does not follow its size",
    { timeout: 600_000 },
    async () => {
      const source = generatedLog(5000, 10_000);
      expect(source.size).toBeGreaterThan(50_000_000);
      collect();
      const start = process.memoryUsage();
      const peak = { rss: 0, heap: 0 };
      // After each window, with garbage collected: what the import holds, not what it has let go of.
      const sample = () => {
        collect();
        const m = process.memoryUsage();
        peak.rss = Math.max(peak.rss, m.rss - start.rss);
        peak.heap = Math.max(peak.heap, m.heapUsed + m.arrayBuffers - (start.heapUsed + start.arrayBuffers));
      };
      const result = await importStream(db.prisma, source, { wholeLimit: WHOLE_LIMIT, onProgress: sample });
      if (!result.ok) throw new Error(JSON.stringify(result.issues.slice(0, 3)));
      expect(result.sessions[0]!.eventCount).toBe(2 * 5000 + 2);
      const MB = 1024 * 1024;
      console.log(
        `${engine}: ${(source.size / MB).toFixed(0)} MB imported; held after a window at most: heap and buffers ${(peak.heap / MB).toFixed(0)} MB, RSS ${(peak.rss / MB).toFixed(0)} MB`,
      );
      // Generous bounds (a window of 1,000 events is ~10 MB here): the file itself is 50 MB.
      expect(peak.heap / MB).toBeLessThan(50);
      expect(peak.rss / MB).toBeLessThan(200);
    },
  );
});
