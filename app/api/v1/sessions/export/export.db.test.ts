import { readFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createApiKey, getSession, toSessionEvent, type Database } from "@/lib/db";
import { TEST_ENGINES, createTestDatabase, type TestDatabase } from "@/lib/db/testing";
import { listSessions } from "@/lib/db/session-list";
import { NativeSession } from "@/lib/ingest/native";
import { SessionListQuery } from "@/lib/session-list/query";
import { localAdmin } from "@/lib/server/principal";
import { importSessions } from "@/lib/server/sessions/sessions";
import { demoDatabase } from "@/lib/server/testing";
import { GET } from "./route";

// GET /api/v1/sessions/export: the list's filters and order, one native document per line, and every line imports
// again as the same session (events, inputs whole, verdicts) into another store.

const FOREIGN = [
  "lib/ingest/otlp/__fixtures__/ai7-genai-stream.json",
  "lib/ingest/otlp/__fixtures__/openinference-handwritten.json",
  "lib/ingest/__fixtures__/openai-agents-chat.json",
];

const global = globalThis as unknown as { __branchpointDb?: Promise<Database> };

describe.each(TEST_ENGINES)("exporting sessions as JSON Lines on %s", (engine) => {
  let db: TestDatabase;
  let key: string;

  beforeAll(async () => {
    db = await demoDatabase(engine);
    // Beside the demo's native and τ-bench sessions: sessions assembled from OTLP spans and an Agents SDK export.
    for (const file of FOREIGN) {
      const imported = await importSessions(localAdmin("tester"), { body: readFileSync(file, "utf8") }, db.prisma);
      expect(imported.ok, file).toBe(true);
    }
    key = (await createApiKey(db.prisma, "script")).key;
    global.__branchpointDb = Promise.resolve(db);
  }, 120_000);
  afterAll(async () => {
    global.__branchpointDb = undefined;
    await db?.drop();
  });

  async function exported(query: string) {
    const res = await GET(
      new Request(`http://127.0.0.1/api/v1/sessions/export?${query}`, {
        headers: { authorization: `Bearer ${key}`, host: "127.0.0.1:3000" },
      }),
      { params: Promise.resolve({}) },
    );
    return { res, text: await res.text() };
  }

  /** The titles the session list shows for `query` (newest imported first by default), as the export orders them. */
  const listed = async (query: Record<string, string> = {}) =>
    (await listSessions(db.prisma, SessionListQuery.parse({ ...query, limit: "200" }))).sessions.map((s) => s.title);

  it("writes every session, newest first, each line a valid native document, and imports them all again as they were", async () => {
    const { res, text } = await exported("");
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("application/x-ndjson; charset=utf-8");
    expect(res.headers.get("content-disposition")).toMatch(
      /^attachment; filename="branchpoint-sessions-\d{4}-\d\d-\d\d\.jsonl"$/,
    );
    const titles = await listed();
    expect(res.headers.get("x-branchpoint-sessions")).toBe(String(titles.length));
    expect(res.headers.get("x-branchpoint-matching")).toBe(String(titles.length));
    expect(text.endsWith("\n")).toBe(true);
    const lines = text.slice(0, -1).split("\n");
    const documents = lines.map((line) => JSON.parse(line) as { title: string });
    expect(documents.map((d) => d.title)).toEqual(titles);
    for (const document of documents) {
      const parsed = NativeSession.safeParse(document);
      expect(parsed.success ? [] : parsed.error.issues, document.title).toEqual([]);
    }

    // Into an empty store: one import of the whole file, and each session reads back as it was.
    const other = await createTestDatabase(engine);
    try {
      const imported = await importSessions(
        localAdmin("tester"),
        { body: text, filename: "export.jsonl" },
        other.prisma,
      );
      if (!imported.ok) throw new Error("the export did not import");
      expect(imported.sessions.length).toBe(lines.length);
      // The file's sessions in its order, each beside the one it was exported from (titles repeat across sources).
      const originals = (await listSessions(db.prisma, SessionListQuery.parse({ limit: "200" }))).sessions;
      expect(originals.length).toBe(lines.length);
      for (const [i, { id, title }] of originals.entries()) {
        const again = imported.sessions[i]!;
        const [a, b] = [await getSession(db.prisma, id), await getSession(other.prisma, again.id)];
        const same = (s: NonNullable<typeof a>) => ({
          title: s.title,
          externalId: s.externalId,
          agent: [s.agent.name, s.agent.adapter],
          version: [s.agentVersion.version, s.agentVersion.capabilities],
          startedAt: s.startedAt,
          endedAt: s.endedAt,
          metadata: s.metadata,
          status: s.status,
          outcome: s.outcome,
          outcomeSeq: s.outcomeSeq,
          counts: [s.eventCount, s.modelCallCount, s.toolCallCount, s.errorCount],
          events: s.events.map(toSessionEvent),
        });
        expect(same(b!), title ?? id).toEqual(same(a!));
      }
    } finally {
      await other.drop();
    }
  }, 120_000);

  it("exports what the filters match, in the order asked, at most `max`, and says how many matched", async () => {
    const failed = await listed({ status: "failed" });
    expect(failed.length).toBeGreaterThan(1);
    const all = await exported("status=failed&sort=createdAt");
    const titles = (t: string) =>
      t
        .trim()
        .split("\n")
        .map((line) => (JSON.parse(line) as { title: string }).title);
    expect(titles(all.text)).toEqual([...failed].reverse());
    const two = await exported("status=failed&max=2");
    expect(two.res.headers.get("x-branchpoint-sessions")).toBe("2");
    expect(two.res.headers.get("x-branchpoint-matching")).toBe(String(failed.length));
    expect(titles(two.text)).toEqual(failed.slice(0, 2));
    // Nothing matches: an empty file, said in the headers.
    const none = await exported("q=no-session-says-this");
    expect([none.res.status, none.text, none.res.headers.get("x-branchpoint-sessions")]).toEqual([200, "", "0"]);
  }, 60_000);

  it("refuses a bad query with what was wrong, before writing anything", async () => {
    for (const [query, path, message] of [
      ["max=0", "max", "max must be 1 or more."],
      ["max=10001", "max", "max is at most 10000."],
      ["minErrors=3&maxErrors=1", "maxErrors", "maxErrors must be at least minErrors."],
      ["sort=__proto__", "sort", undefined],
    ] as const) {
      const { res, text } = await exported(query);
      expect(res.status, query).toBe(400);
      const body = JSON.parse(text) as { error: { code: string; issues: { path: string; message: string }[] } };
      expect(body.error.code).toBe("invalid_input");
      expect(body.error.issues[0]?.path).toBe(path);
      if (message) expect(body.error.issues[0]?.message).toBe(message);
    }
  });
});
