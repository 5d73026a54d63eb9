import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createApiKey, type Database } from "@/lib/db";
import { TEST_ENGINES, createTestDatabase, type TestDatabase } from "@/lib/db/testing";
import { getAgentOverview, OverviewQuery } from "@/lib/server/agents/overview";
import { GET } from "./route";

// GET /api/v1/agents/:id/overview: per UTC day and version, exact runs, failures, cost, p50/p95 and tokens;
// the range's days both included (the instant after `to`'s last millisecond left out); hostile parameters 400.

type Row = {
  id: string;
  version: "1.0" | "2.0";
  startedAt: string | null;
  createdAt?: string;
  durationMs: number | null;
  status?: string;
  outcome?: string;
  costUsd?: number;
  tokens?: [number, number];
  isReplay?: boolean;
};

const ROWS: Row[] = [
  // 1.0 on 2026-03-01: 4 runs, p50 250 and p95 385 (300 + 0.85 × 100), one failed by status, one by outcome.
  { id: "a1", version: "1.0", startedAt: "2026-03-01T00:00:00.000Z", durationMs: 100, costUsd: 0.1, tokens: [10, 5] },
  {
    id: "a2",
    version: "1.0",
    startedAt: "2026-03-01T08:00:00Z",
    durationMs: 200,
    costUsd: 0.2,
    tokens: [10, 5],
    status: "failed",
  },
  {
    id: "a3",
    version: "1.0",
    startedAt: "2026-03-01T12:00:00Z",
    durationMs: 300,
    costUsd: 0.3,
    tokens: [10, 5],
    outcome: "failed",
  },
  {
    id: "a4",
    version: "1.0",
    startedAt: "2026-03-01T23:59:59.999Z",
    durationMs: 400,
    tokens: [10, 5],
    outcome: "passed",
  },
  // 2.0 on 2026-03-01: no start time, so its day is its import day; no duration, so no percentiles.
  {
    id: "b1",
    version: "2.0",
    startedAt: null,
    createdAt: "2026-03-01T10:00:00Z",
    durationMs: null,
    costUsd: 0.05,
    tokens: [7, 3],
  },
  // 2.0 on 2026-03-02: p50 2000, p95 2900 (1000 + 0.95 × 2000); imported weeks later (the start time decides).
  {
    id: "c1",
    version: "2.0",
    startedAt: "2026-03-02T09:00:00Z",
    createdAt: "2026-04-01T00:00:00Z",
    durationMs: 1000,
    costUsd: 0.25,
    tokens: [100, 50],
  },
  {
    id: "c2",
    version: "2.0",
    startedAt: "2026-03-02T10:00:00Z",
    durationMs: 3000,
    costUsd: 0.5,
    tokens: [200, 60],
    status: "failed",
    outcome: "failed",
  },
  // 1.0 on 2026-03-03.
  { id: "d1", version: "1.0", startedAt: "2026-03-03T23:00:00Z", durationMs: 500, costUsd: 0.1, tokens: [1, 1] },
  // Just outside 2026-03-01…03, and a replay inside it (never counted).
  { id: "e1", version: "1.0", startedAt: "2026-02-28T23:59:59.999Z", durationMs: 50, costUsd: 9, tokens: [9, 9] },
  { id: "e2", version: "2.0", startedAt: "2026-03-04T00:00:00.000Z", durationMs: 60, costUsd: 9, tokens: [9, 9] },
  { id: "r1", version: "1.0", startedAt: "2026-03-01T09:00:00Z", durationMs: 9999, costUsd: 9, isReplay: true },
];

const V1_DAY1 = {
  day: "2026-03-01",
  version: "1.0",
  runs: 4,
  failed: 2,
  costUsd: 0.6,
  p50Ms: 250,
  p95Ms: 385,
  inputTokens: 40,
  outputTokens: 20,
};
const V2_DAY1 = {
  day: "2026-03-01",
  version: "2.0",
  runs: 1,
  failed: 0,
  costUsd: 0.05,
  p50Ms: null,
  p95Ms: null,
  inputTokens: 7,
  outputTokens: 3,
};
const V2_DAY2 = {
  day: "2026-03-02",
  version: "2.0",
  runs: 2,
  failed: 1,
  costUsd: 0.75,
  p50Ms: 2000,
  p95Ms: 2900,
  inputTokens: 300,
  outputTokens: 110,
};
const V1_DAY3 = {
  day: "2026-03-03",
  version: "1.0",
  runs: 1,
  failed: 0,
  costUsd: 0.1,
  p50Ms: 500,
  p95Ms: 500,
  inputTokens: 1,
  outputTokens: 1,
};

const global = globalThis as unknown as { __branchpointDb?: Promise<Database> };

describe.each(TEST_ENGINES)("an agent's overview on %s", (engine) => {
  let db: TestDatabase;
  let key: string;
  let agentId: string;

  beforeAll(async () => {
    db = await createTestDatabase(engine);
    const agent = await db.prisma.agent.create({ data: { name: "overview-agent", adapter: "generic" } });
    const other = await db.prisma.agent.create({ data: { name: "other-agent", adapter: "generic" } });
    agentId = agent.id;
    const versions = {
      "1.0": await db.prisma.agentVersion.create({ data: { agentId, version: "1.0", capabilities: [] } }),
      "2.0": await db.prisma.agentVersion.create({ data: { agentId, version: "2.0", capabilities: [] } }),
    };
    const otherVersion = await db.prisma.agentVersion.create({
      data: { agentId: other.id, version: "1.0", capabilities: [] },
    });
    const base = { format: "native", eventCount: 1, modelCallCount: 1, toolCallCount: 0, errorCount: 0 };
    await db.prisma.session.createMany({
      data: [
        ...ROWS.map((r) => ({
          ...base,
          id: r.id,
          agentId,
          agentVersionId: versions[r.version].id,
          externalId: r.id,
          status: r.status ?? "completed",
          outcome: r.outcome ?? null,
          startedAt: r.startedAt ? new Date(r.startedAt) : null,
          createdAt: new Date(r.createdAt ?? "2026-03-05T00:00:00Z"),
          durationMs: r.durationMs,
          costUsd: r.costUsd ?? 0,
          inputTokens: r.tokens?.[0] ?? 0,
          outputTokens: r.tokens?.[1] ?? 0,
          isReplay: r.isReplay ?? false,
        })),
        // Another agent's run on the same day.
        {
          ...base,
          id: "x1",
          agentId: other.id,
          agentVersionId: otherVersion.id,
          externalId: "x1",
          status: "failed",
          startedAt: new Date("2026-03-01T12:00:00Z"),
          durationMs: 7,
          costUsd: 1,
        },
      ],
    });
    key = (await createApiKey(db.prisma, "script")).key;
    global.__branchpointDb = Promise.resolve(db);
  }, 120_000);
  afterAll(async () => {
    global.__branchpointDb = undefined;
    await db?.drop();
  });

  async function api(query: string, id = agentId, auth = true) {
    const res = await GET(
      new Request(`http://127.0.0.1/api/v1/agents/${encodeURIComponent(id)}/overview?${query}`, {
        headers: auth ? { authorization: `Bearer ${key}` } : {},
      }),
      { params: Promise.resolve({ id }) },
    );
    return { status: res.status, body: (await res.json()) as Record<string, unknown> & { days?: unknown[] } };
  }

  it("gives each day and version its exact figures, worked out in the database", async () => {
    const { status, body } = await api("from=2026-03-01&to=2026-03-03");
    expect(status).toBe(200);
    expect(body).toEqual({
      agent: { id: agentId, name: "overview-agent" },
      from: "2026-03-01",
      to: "2026-03-03",
      version: null,
      versions: ["1.0", "2.0"],
      days: [V1_DAY1, V2_DAY1, V2_DAY2, V1_DAY3],
    });
  });

  it("includes both days of the range, to their first and last millisecond, and nothing beyond", async () => {
    expect((await api("from=2026-03-02&to=2026-03-03")).body.days).toEqual([V2_DAY2, V1_DAY3]);
    expect((await api("from=2026-03-01&to=2026-03-01")).body.days).toEqual([V1_DAY1, V2_DAY1]);
    const wide = (await api("from=2026-02-28&to=2026-03-04")).body.days as { day: string; runs: number }[];
    expect(wide.map((d) => `${d.day}:${d.runs}`)).toEqual([
      "2026-02-28:1",
      "2026-03-01:4",
      "2026-03-01:1",
      "2026-03-02:2",
      "2026-03-03:1",
      "2026-03-04:1",
    ]);
    expect((await api("from=2026-03-05&to=2026-03-31")).body.days).toEqual([]);
  });

  it("keeps one version when asked, and treats empty parameters as not given", async () => {
    expect((await api("from=2026-03-01&to=2026-03-03&version=1.0")).body.days).toEqual([V1_DAY1, V1_DAY3]);
    expect((await api("from=2026-03-01&to=2026-03-03&version=9.9")).body.days).toEqual([]);
    const blank = await api("from=&to=&version=");
    expect([blank.status, blank.body.version]).toEqual([200, null]);
  });

  it("reads the last 30 days, today included, unless asked", async () => {
    const now = new Date("2026-03-30T15:00:00Z");
    const principal = { kind: "api_key", role: "admin" } as never;
    const o = await getAgentOverview(principal, { agentId }, db.prisma, now);
    expect([o.from, o.to, o.days.length]).toEqual(["2026-03-01", "2026-03-30", 5]);
  });

  it("answers 400 naming the parameter, 404 for an unknown agent, 401 without a key", async () => {
    const bad: [string, string][] = [
      ["from=2026-02-30", "from"],
      ["from=yesterday", "from"],
      ["to=2026-3-1", "to"],
      ["from=2026-03-05&to=2026-03-01", "to"],
      ["from=2025-01-01&to=2026-03-01", "from"],
      [`version=${"v".repeat(201)}`, "version"],
      ["from=99999-01-01", "from"],
    ];
    for (const [query, path] of bad) {
      const { status, body } = await api(query);
      const issues = (body.error as { issues: { path: string }[] }).issues.map((i) => i.path);
      expect([query, status, issues]).toEqual([query, 400, [path]]);
    }
    // Broken UTF-8 in the URL arrives as replacement characters: no such version. A lone surrogate from a caller
    // in process is refused by name.
    expect((await api("version=%ED%A0%80")).body.days).toEqual([]);
    expect(OverviewQuery.safeParse({ version: "a\uD800" }).error?.issues.map((i) => i.path)).toEqual([["version"]]);
    // Unknown keys (a prototype's name among them) are ignored.
    expect((await api("__proto__=x&constructor=y&from=2026-03-03&to=2026-03-03")).body.days).toEqual([V1_DAY3]);
    expect((await api("", "no-such-agent")).status).toBe(404);
    expect((await api("", "x".repeat(5000))).status).toBe(404);
    expect((await api("", agentId, false)).status).toBe(401);
  });
});
