import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createApiKey, type Database } from "@/lib/db";
import { countSessions, listSessions } from "@/lib/db/session-list";
import { TEST_ENGINES, createTestDatabase, type TestDatabase } from "@/lib/db/testing";
import { SESSION_SORTS, SessionListQuery, type SessionSort } from "@/lib/session-list/query";
import { GET } from "./route";

// GET /api/v1/sessions: every sort in both directions with ties (by id, in the sort's direction) and
// empty values (last either way), every filter's boundaries, keyset pages across each order, 400s.

/** Six sessions whose values tie and go empty on purpose. Ids sort a < b < … < f. */
const ROWS = [
  {
    id: "a",
    startedAt: "2026-03-01T00:00:00Z",
    durationMs: 1000,
    costUsd: 0.5,
    errorCount: 0,
    eventCount: 4,
    tokens: [100, 0],
    status: "completed",
  },
  {
    id: "b",
    startedAt: "2026-03-01T12:00:00Z",
    durationMs: 2000,
    costUsd: 0.5,
    errorCount: 2,
    eventCount: 10,
    tokens: [200, 50],
    status: "failed",
  },
  {
    id: "c",
    startedAt: "2026-03-02T00:00:00Z",
    durationMs: null,
    costUsd: 0,
    errorCount: 1,
    eventCount: 4,
    tokens: [0, 0],
    status: "failed",
  },
  {
    id: "d",
    startedAt: null,
    durationMs: 500,
    costUsd: 1.25,
    errorCount: 0,
    eventCount: 7,
    tokens: [1000, 250],
    status: "completed",
  },
  {
    id: "e",
    startedAt: null,
    durationMs: null,
    costUsd: 0.5,
    errorCount: 0,
    eventCount: 10,
    tokens: [50, 50],
    status: "incomplete",
  },
  {
    id: "f",
    startedAt: "2026-03-01T00:00:00Z",
    durationMs: 1000,
    costUsd: 2,
    errorCount: 3,
    eventCount: 1,
    tokens: [400, 0],
    status: "failed",
  },
] as const;

/** The whole order of each sort, worked out by hand from ROWS. */
const ORDERS: Record<SessionSort, string> = {
  createdAt: "abcdef",
  "-createdAt": "fedcba",
  startedAt: "afbcde",
  "-startedAt": "cbfaed",
  costUsd: "cabedf",
  "-costUsd": "fdebac",
  durationMs: "dafbce",
  "-durationMs": "bfadec",
  errorCount: "adecbf",
  "-errorCount": "fbceda",
  steps: "facdbe",
  "-steps": "ebdcaf",
};

const global = globalThis as unknown as { __branchpointDb?: Promise<Database> };

describe.each(TEST_ENGINES)("the session list on %s", (engine) => {
  let db: TestDatabase;
  let key: string;

  beforeAll(async () => {
    db = await createTestDatabase(engine);
    const agent = await db.prisma.agent.create({ data: { name: "list-agent", adapter: "generic" } });
    const other = await db.prisma.agent.create({ data: { name: "other-agent", adapter: "generic" } });
    const version = await db.prisma.agentVersion.create({
      data: { agentId: agent.id, version: "1", capabilities: [] },
    });
    const otherVersion = await db.prisma.agentVersion.create({
      data: { agentId: other.id, version: "1", capabilities: [] },
    });
    await db.prisma.session.createMany({
      data: ROWS.map((r, i) => ({
        id: r.id,
        agentId: r.id === "d" ? other.id : agent.id,
        agentVersionId: r.id === "d" ? otherVersion.id : version.id,
        externalId: r.id,
        title: `Session ${r.id}`,
        format: "native",
        status: r.status,
        startedAt: r.startedAt ? new Date(r.startedAt) : null,
        durationMs: r.durationMs,
        eventCount: r.eventCount,
        modelCallCount: 1,
        toolCallCount: 0,
        errorCount: r.errorCount,
        inputTokens: r.tokens[0],
        outputTokens: r.tokens[1],
        costUsd: r.costUsd,
        toolNames: r.id === "b" ? ["refund"] : [],
        searchText: `session ${r.id} 100%_done`,
        createdAt: new Date(Date.UTC(2026, 3, 1, 0, 0, i)),
      })),
    });
    key = (await createApiKey(db.prisma, "script")).key;
    global.__branchpointDb = Promise.resolve(db);
  }, 120_000);
  afterAll(async () => {
    global.__branchpointDb = undefined;
    await db?.drop();
  });

  const ids = async (query: Record<string, string>) =>
    (await listSessions(db.prisma, SessionListQuery.parse(query))).sessions.map((s) => s.id).join("");

  async function api(query: string, host = "127.0.0.1:3000") {
    const res = await GET(
      new Request(`http://127.0.0.1/api/v1/sessions?${query}`, { headers: { authorization: `Bearer ${key}`, host } }),
      { params: Promise.resolve({}) },
    );
    return { status: res.status, body: (await res.json()) as Record<string, unknown> };
  }

  it("answers only to its own hosts: this route is left out of the proxy, which would have checked", async () => {
    expect(await api("limit=1", "rebound.example")).toEqual({
      status: 403,
      body: {
        error: {
          code: "forbidden",
          message:
            'This server does not answer to the host "rebound.example". Open it at its own address, or add the name to BRANCHPOINT_ALLOWED_HOSTS (or set BRANCHPOINT_PUBLIC_URL).',
          issues: [],
        },
      },
    });
    expect((await api("limit=1")).status).toBe(200);
  });

  it("orders by every sort both ways: ties by id in the sort's direction, empty values last", async () => {
    expect(SESSION_SORTS).toHaveLength(Object.keys(ORDERS).length);
    for (const sort of SESSION_SORTS) expect([sort, await ids({ sort })]).toEqual([sort, ORDERS[sort]]);
    // No sort: newest imported first, as the list always was.
    expect(await ids({})).toBe("fedcba");
  });

  it("pages through every order at every page size, each session once, in order", async () => {
    for (const sort of SESSION_SORTS) {
      for (const limit of [1, 4, 7]) {
        const seen: string[] = [];
        let cursor: string | undefined;
        for (let n = 0; n < 10; n++) {
          const page = await listSessions(db.prisma, SessionListQuery.parse({ sort, limit, cursor }));
          seen.push(...page.sessions.map((s) => s.id));
          if (!page.nextCursor) break;
          // The cursor is the last id of the page, as it always was.
          expect(page.nextCursor).toBe(page.sessions.at(-1)!.id);
          cursor = page.nextCursor;
        }
        expect([sort, limit, seen.join("")]).toEqual([sort, limit, ORDERS[sort]]);
      }
    }
  });

  it("keeps each filter's boundaries: min and max inclusive, `to` exclusive, empty values left out", async () => {
    const cases: [Record<string, string>, string][] = [
      [{ minCostUsd: "0.5" }, "abdef"],
      [{ maxCostUsd: "0.5" }, "abce"],
      [{ minCostUsd: "0.5", maxCostUsd: "0.5" }, "abe"],
      [{ minCostUsd: "2.0001" }, ""],
      [{ minDurationMs: "1000" }, "abf"],
      [{ maxDurationMs: "1000" }, "adf"],
      [{ minTokens: "250" }, "bdf"],
      [{ maxTokens: "100" }, "ace"],
      [{ minErrors: "2" }, "bf"],
      [{ maxErrors: "1" }, "acde"],
      [{ hasErrors: "true" }, "bcf"],
      [{ hasErrors: "false" }, "ade"],
      [{ from: "2026-03-01", to: "2026-03-02" }, "abf"],
      [{ from: "2026-03-01T12:00:00Z" }, "bc"],
      [{ to: "2026-03-01T12:00:00.001Z" }, "abf"],
      [{ status: "failed" }, "bcf"],
      [{ agent: "other-agent" }, "d"],
      [{ tool: "refund" }, "b"],
      [{ q: "SESSION E" }, "e"],
      // "%" and "_" are themselves, not wildcards.
      [{ q: "100%_d" }, "abcdef"],
      [{ q: "1000" }, ""],
      // An empty parameter is no filter (a form sends them so).
      [{ status: "", minCostUsd: "", from: "" }, "abcdef"],
    ];
    for (const [query, expected] of cases) {
      expect([query, await ids({ ...query, sort: "createdAt" })]).toEqual([query, expected]);
      expect(await countSessions(db.prisma, SessionListQuery.parse(query))).toBe(expected.length);
    }
  });

  it("pages a filtered order: failed sessions by cost, one at a time", async () => {
    const seen: string[] = [];
    let cursor = "";
    do {
      const { status, body } = await api(`status=failed&sort=-costUsd&limit=1${cursor ? `&cursor=${cursor}` : ""}`);
      expect(status).toBe(200);
      seen.push(...(body.sessions as { id: string }[]).map((s) => s.id));
      cursor = (body.nextCursor as string | null) ?? "";
    } while (cursor);
    expect(seen.join("")).toBe("fbc");
  });

  it("answers a bad parameter with a 400 naming it, and a cursor that names no session too", async () => {
    const cases: [string, string[]][] = [
      ["sort=cost", ["sort"]],
      ["sort=-steps&minCostUsd=cheap", ["minCostUsd"]],
      ["minDurationMs=-1", ["minDurationMs"]],
      ["minTokens=1.5", ["minTokens"]],
      ["hasErrors=yes", ["hasErrors"]],
      ["from=yesterday", ["from"]],
      ["from=2026-03-02&to=2026-03-02", ["to"]],
      ["minCostUsd=2&maxCostUsd=1", ["maxCostUsd"]],
      ["status=lost", ["status"]],
      ["limit=0", ["limit"]],
      ["cursor=no-such-session", ["cursor"]],
    ];
    for (const [query, paths] of cases) {
      const { status, body } = await api(query);
      const error = body.error as { code: string; issues: { path: string; message: string }[] };
      expect([query, status, error.code, error.issues.map((i) => i.path)]).toEqual([
        query,
        400,
        "invalid_input",
        paths,
      ]);
      expect(error.issues[0]!.message).toContain(paths[0] === "cursor" ? "session" : paths[0]);
    }
  });
});
