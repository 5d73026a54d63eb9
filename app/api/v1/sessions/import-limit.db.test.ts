import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { createApiKey, type Database } from "@/lib/db";
import { TEST_ENGINES, createTestDatabase, type TestDatabase } from "@/lib/db/testing";
import { resetEnvCache } from "@/lib/env";
import { longChatLog } from "@/lib/ingest/long-chat";
import { POST } from "./route";

// POST /api/v1/sessions takes files up to BRANCHPOINT_MAX_IMPORT_BYTES, counting a chunked body as it arrives.
const global = globalThis as unknown as { __branchpointDb?: Promise<Database> };

async function counts(db: TestDatabase) {
  return { sessions: await db.prisma.session.count(), events: await db.prisma.event.count() };
}

describe.each(TEST_ENGINES)("the import limit on %s", (engine) => {
  let db: TestDatabase;
  let key: string;
  beforeAll(async () => {
    db = await createTestDatabase(engine);
    key = (await createApiKey(db.prisma, "import-limit")).key;
    global.__branchpointDb = Promise.resolve(db);
  }, 120_000);
  afterAll(async () => {
    global.__branchpointDb = undefined;
    await db?.drop();
  });
  afterEach(() => {
    vi.unstubAllEnvs();
    resetEnvCache();
  });

  it(
    "answers a body over BRANCHPOINT_MAX_IMPORT_BYTES with 413 naming the limit, and imports a chunked body under it",
    { timeout: 120_000 },
    async () => {
      const before = await counts(db);
      const lines = Array.from({ length: 20 }, (_, i) => JSON.stringify({ ...longChatLog(5), id: `chunked-${i}` }));
      const body = lines.join("\n");
      vi.stubEnv("BRANCHPOINT_MAX_IMPORT_BYTES", String(body.length - 1));
      resetEnvCache();
      const post = (text: string) => {
        const bytes = new TextEncoder().encode(text);
        // Chunked: no Content-Length, the route counts what arrives.
        const stream = new ReadableStream<Uint8Array>({
          start(controller) {
            for (let at = 0; at < bytes.length; at += 1000) controller.enqueue(bytes.subarray(at, at + 1000));
            controller.close();
          },
        });
        return POST(
          new Request("http://127.0.0.1/api/v1/sessions", {
            method: "POST",
            headers: { authorization: `Bearer ${key}`, "content-type": "application/x-ndjson", host: "127.0.0.1" },
            body: stream,
            duplex: "half",
          } as RequestInit),
          { params: Promise.resolve({}) },
        );
      };
      const over = await post(body);
      expect(over.status).toBe(413);
      expect(await over.json()).toEqual({
        error: {
          code: "payload_too_large",
          message: `The body is over the limit of ${body.length - 1} bytes for imported files (BRANCHPOINT_MAX_IMPORT_BYTES).`,
          issues: [],
        },
      });
      expect(await counts(db)).toEqual(before);
      vi.stubEnv("BRANCHPOINT_MAX_IMPORT_BYTES", String(body.length));
      resetEnvCache();
      const under = await post(body);
      expect(under.status).toBe(201);
      const answer = (await under.json()) as { format: string; sessions: { eventCount: number }[] };
      expect(answer.format).toBe("openai-chat");
      expect(answer.sessions.map((s) => s.eventCount)).toEqual(Array(20).fill(12));
      expect(await counts(db)).toEqual({ sessions: before.sessions + 20, events: before.events + 240 });
    },
  );
});
