import net from "node:net";
import { randomBytes } from "node:crypto";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { healthAnswer as health } from "@/lib/http/health";
import { openDatabase, type Database } from "@/lib/db/client";
import { importAndSave } from "@/lib/server/ingest/imports";
import { ingestOtlpSpans } from "@/lib/server/ingest/traces";
import { POSTGRES_ADMIN_URL, TEST_ENGINES, createTestDatabase, type TestDatabase } from "@/lib/db/testing";
import { errorResponse } from "@/lib/http/api";
import { decodeOtlpJson } from "@/lib/ingest/otlp";
import { nativeCases, nativeDoc } from "./corpus";

/** Rows of every table an import writes: equal before and after a refused import means nothing partial. */
async function rowCounts(db: TestDatabase) {
  const p = db.prisma;
  return {
    agents: await p.agent.count(),
    versions: await p.agentVersion.count(),
    tools: await p.tool.count(),
    sessions: await p.session.count(),
    events: await p.event.count(),
    spans: await p.traceSpan.count(),
  };
}

describe.each(TEST_ENGINES)("hostile imports on %s", (engine) => {
  let db: TestDatabase;
  beforeAll(async () => {
    db = await createTestDatabase(engine);
  });
  afterAll(async () => {
    await db?.drop();
  });

  // Items 3, 6 and 8: each a 4xx-style refusal naming the field (or a repaired
  // acceptance), never a throw (a 500), and nothing partially written.
  for (const c of nativeCases()) {
    it(`native: ${c.name}`, async () => {
      const before = await rowCounts(db);
      const result = await importAndSave(db.prisma, c.body);
      const after = await rowCounts(db);
      if (c.accepted) {
        expect(result.ok).toBe(true);
        expect(after.sessions).toBe(before.sessions + 1);
      } else {
        expect(result.ok).toBe(false);
        if (!result.ok && c.names) expect(JSON.stringify(result.issues)).toContain(c.names);
        expect(after).toEqual(before);
      }
    });
  }

  it("a lone surrogate is stored as U+FFFD and noted on the session", async () => {
    const result = await importAndSave(db.prisma, JSON.stringify(nativeDoc({ args: { note: "cut \ud83d here" } })));
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    const session = await db.prisma.session.findUniqueOrThrow({ where: { id: result.sessions[0]!.id } });
    expect(session.metadata).toEqual({ repairedCharacters: 2 });
    const event = await db.prisma.event.findFirstOrThrow({ where: { sessionId: session.id, kind: "tool_call" } });
    expect(JSON.stringify(event.input)).toContain("cut \uFFFD here");
  });

  it("OTLP: startTimeUnixNano 1e308 and a lone surrogate attribute", async () => {
    const traceId = randomBytes(16).toString("hex");
    const span = (start: unknown, value: string) => ({
      resourceSpans: [
        {
          resource: { attributes: [] },
          scopeSpans: [
            {
              spans: [
                {
                  traceId,
                  spanId: randomBytes(8).toString("hex"),
                  name: "tool",
                  startTimeUnixNano: start,
                  endTimeUnixNano: "1767225600100000000",
                  attributes: [
                    { key: "gen_ai.operation.name", value: { stringValue: "execute_tool" } },
                    { key: "gen_ai.tool.name", value: { stringValue: "t" } },
                    { key: "gen_ai.tool.call.arguments", value: { stringValue: value } },
                  ],
                },
              ],
            },
          ],
        },
      ],
    });
    const huge = decodeOtlpJson(JSON.stringify(span(1e308, "{}")));
    expect(huge.ok).toBe(false);
    if (!huge.ok) expect(huge.issues[0]!.path).toContain("startTimeUnixNano");

    const before = await rowCounts(db);
    const decoded = decodeOtlpJson(JSON.stringify(span("1767225600000000000", '{"q":"\ud800"}')));
    expect(decoded.ok).toBe(true);
    if (!decoded.ok) return;
    const result = await ingestOtlpSpans(db.prisma, decoded.spans, "otlp-json");
    expect(result.ok).toBe(true);
    expect((await rowCounts(db)).spans).toBe(before.spans + 1);
  });

  // Item 5: first imports of one new agent, all at once.
  it("concurrent first imports of a new agent all succeed", async () => {
    const agent = `race-agent-${randomBytes(4).toString("hex")}`;
    const doc = (k: number) =>
      JSON.stringify(nativeDoc({ session: { agent: { name: agent, adapter: "generic" }, title: `race ${k}` } }));
    const results = await Promise.allSettled(Array.from({ length: 24 }, (_, k) => importAndSave(db.prisma, doc(k))));
    const failures = results.filter((r) => r.status === "rejected" || !r.value.ok);
    expect(failures).toEqual([]);
    expect(await db.prisma.agent.count({ where: { name: agent } })).toBe(1);
    expect(await db.prisma.session.count({ where: { agent: { name: agent } } })).toBe(24);
    expect(await db.prisma.tool.count({ where: { agent: { name: agent } } })).toBe(1);
  });
});

/** A TCP relay to the PostgreSQL server that the test can cut: a database outage without touching the shared server. */
async function relay(): Promise<{ port: number; cut(): Promise<void> }> {
  const sockets = new Set<net.Socket>();
  const server = net.createServer((client) => {
    const upstream = net.connect(5432, "127.0.0.1");
    sockets.add(client).add(upstream);
    client.pipe(upstream).pipe(client);
    const drop = () => {
      client.destroy();
      upstream.destroy();
    };
    client.on("error", drop);
    upstream.on("error", drop);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as net.AddressInfo).port;
  return {
    port,
    cut: async () => {
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

// Item 7: a database outage is a 503 with Retry-After, and health says so.
describe("a database outage (PostgreSQL)", () => {
  const name = `branchpoint_outage_${randomBytes(5).toString("hex")}`;
  let database: Database;
  let link: Awaited<ReturnType<typeof relay>>;
  const global = globalThis as unknown as { __branchpointDb?: Promise<Database> };

  beforeAll(async () => {
    const admin = new pg.Client({ connectionString: POSTGRES_ADMIN_URL });
    await admin.connect();
    await admin.query(`CREATE DATABASE ${name}`);
    await admin.end();
    link = await relay();
    const url = new URL(POSTGRES_ADMIN_URL);
    url.port = String(link.port);
    url.pathname = `/${name}`;
    database = await openDatabase({ url: url.toString() });
    global.__branchpointDb = Promise.resolve(database);
  });
  afterAll(async () => {
    global.__branchpointDb = undefined;
    await database?.close().catch(() => undefined);
    const admin = new pg.Client({ connectionString: POSTGRES_ADMIN_URL });
    await admin.connect();
    await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    await admin.end();
  });

  it("health is ok while the database answers, then 503 with Retry-After; a query's error maps to 503", async () => {
    const up = await health();
    expect(up.status).toBe(200);
    expect(await up.json()).toEqual({ ok: true, engine: "postgres", database: "ok" });

    await link.cut();
    const down = await health();
    expect(down.status).toBe(503);
    expect(down.headers.get("retry-after")).toBe("5");
    expect(await down.json()).toEqual({ ok: false, database: "unavailable" });

    const error = await database.prisma.session.count().then(
      () => null,
      (e: unknown) => e,
    );
    expect(error).not.toBeNull();
    const response = errorResponse(error);
    expect(response.status).toBe(503);
    expect(response.headers.get("retry-after")).toBe("5");
    const body = (await response.json()) as { error: { code: string; message: string } };
    expect(body.error.code).toBe("unavailable");
    expect(body.error.message).not.toMatch(/prisma|ECONN|127\.0\.0\.1/i);
  });
});
