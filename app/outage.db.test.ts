import { randomBytes } from "node:crypto";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { GET as authGet } from "@/app/api/auth/[...all]/route";
import { GET as listSessions } from "@/app/api/v1/sessions/route";
import { GET as shareExport } from "@/app/share/[token]/export/route";
import { POST as traces } from "@/app/v1/traces/route";
import { POST as tracesIngest } from "@/app/v1/traces/ingest/route";
import { openDatabase, type Database } from "@/lib/db/client";
import { POSTGRES_ADMIN_URL } from "@/lib/db/testing";
import { isDatabaseUnavailable } from "@/lib/db/unavailable";
import { publicAction } from "@/lib/http/action";

// A PostgreSQL server that refuses this app's database (ALLOW_CONNECTIONS
// false, its connections ended: SQLSTATE 55000 at connect) must answer 503
// with Retry-After on every kind of route, and recover when it lets them in.

const name = `branchpoint_refuse_${randomBytes(5).toString("hex")}`;
const KEY = "outage-test-key-0123456789";
const global = globalThis as unknown as { __branchpointDb?: Promise<Database> };
let database: Database;

async function admin<T>(run: (c: pg.Client) => Promise<T>): Promise<T> {
  const c = new pg.Client({ connectionString: POSTGRES_ADMIN_URL });
  await c.connect();
  try {
    return await run(c);
  } finally {
    await c.end();
  }
}

async function refuseConnections() {
  await admin(async (c) => {
    await c.query(`ALTER DATABASE ${name} ALLOW_CONNECTIONS false`);
    await c.query(`SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1`, [name]);
  });
}
async function allowConnections() {
  await admin((c) => c.query(`ALTER DATABASE ${name} ALLOW_CONNECTIONS true`));
}

const key = { authorization: `Bearer ${KEY}`, host: "127.0.0.1" };
const noParams = { params: Promise.resolve({}) };
const routes = {
  "an /api/v1 route": () => listSessions(new Request("http://127.0.0.1/api/v1/sessions", { headers: key }), noParams),
  "a share link's route (export)": () =>
    shareExport(new Request("http://127.0.0.1/share/t/export"), { params: Promise.resolve({ token: "A".repeat(22) }) }),
  "OTLP /v1/traces": () =>
    traces(
      new Request("http://127.0.0.1/v1/traces", {
        method: "POST",
        headers: { ...key, "content-type": "application/json" },
        body: JSON.stringify({ resourceSpans: [] }),
      }),
      noParams,
    ),
  "OTLP /v1/traces/ingest": () =>
    tracesIngest(
      new Request("http://127.0.0.1/v1/traces/ingest", {
        method: "POST",
        headers: { ...key, "content-type": "application/json" },
        body: JSON.stringify({ data: [] }),
      }),
      noParams,
    ),
  "Better Auth (/api/auth/get-session)": () =>
    authGet(new Request("http://127.0.0.1:3000/api/auth/get-session", { headers: { cookie: "x=y" } })),
};

describe("a PostgreSQL server refusing connections", () => {
  beforeAll(async () => {
    await admin((c) => c.query(`CREATE DATABASE ${name}`));
    const url = new URL(POSTGRES_ADMIN_URL);
    url.pathname = `/${name}`;
    database = await openDatabase({ url: url.toString() });
    global.__branchpointDb = Promise.resolve(database);
  });
  afterAll(async () => {
    global.__branchpointDb = undefined;
    await database?.close().catch(() => undefined);
    await admin((c) => c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`));
  });

  it("is 'unavailable' only for a refused connection's 55000, not a statement's", async () => {
    await refuseConnections();
    const refused = await database.prisma.user.count().then(
      () => null,
      (e: unknown) => e,
    );
    await allowConnections();
    expect(isDatabaseUnavailable(refused)).toBe(true);
    // "object not in prerequisite state" from a statement (currval before nextval): the request's doing.
    const sequence = await admin(async (c) => {
      await c.query(`CREATE TEMP SEQUENCE outage_probe_seq`);
      return c.query(`SELECT currval('outage_probe_seq')`).then(
        () => null,
        (e: unknown) => e,
      );
    });
    expect((sequence as { code?: string }).code).toBe("55000");
    expect(isDatabaseUnavailable(sequence)).toBe(false);
  });

  it("every kind of route answers 503 with Retry-After, then recovers", async () => {
    const before: Record<string, number> = {};
    for (const [label, call] of Object.entries(routes)) before[label] = (await call()).status;
    // The database answers: the key is looked up and not found (401), the token is unknown (404).
    expect(before).toEqual({
      "an /api/v1 route": 401,
      "a share link's route (export)": 404,
      "OTLP /v1/traces": 401,
      "OTLP /v1/traces/ingest": 401,
      "Better Auth (/api/auth/get-session)": 200,
    });

    await refuseConnections();
    try {
      const down: Record<string, { status: number; retryAfter: string | null }> = {};
      for (const [label, call] of Object.entries(routes)) {
        const response = await call();
        down[label] = { status: response.status, retryAfter: response.headers.get("retry-after") };
      }
      const expected = { status: 503, retryAfter: "5" };
      expect(down).toEqual(Object.fromEntries(Object.keys(routes).map((label) => [label, expected])));

      const api = await routes["an /api/v1 route"]();
      expect(((await api.json()) as { error: { code: string } }).error.code).toBe("unavailable");
      // OTLP keeps its google.rpc.Status body: code 14 is UNAVAILABLE.
      const otlp = await routes["OTLP /v1/traces"]();
      expect(((await otlp.json()) as { code: number }).code).toBe(14);

      const action = await publicAction((_input, prisma) => prisma.user.count())({});
      expect(action.ok ? null : action.error.code).toBe("unavailable");
    } finally {
      await allowConnections();
    }

    const after: Record<string, number> = {};
    for (const [label, call] of Object.entries(routes)) after[label] = (await call()).status;
    expect(after).toEqual(before);
    expect(await publicAction((_input, prisma) => prisma.user.count())({})).toEqual({ ok: true, data: 0 });
  }, 60_000);
});
