/**
 * Langfuse pulls against a real HTTP server on 127.0.0.1 that serves Langfuse's documented API shapes
 * (./testing.ts): the trace list paged and filtered, a 429 with Retry-After, a page that fails once, a slow
 * page, a trace whose observations come from the observations API. On both engines: a pull imports exactly the
 * expected sessions, a re-pull finds them again, a pull interrupted after any trace and resumed gives the same
 * sessions as one that ran through, and hostile traces are refused one by one while the pull goes on.
 */
import fc from "fast-check";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { findPull } from "@/lib/db/connectors";
import { TEST_ENGINES, createTestDatabase, type TestDatabase } from "@/lib/db/testing";
import { STATUS } from "@/lib/errors";
import { listedTrace, supportTrace, supportTraces } from "@/lib/ingest/__fixtures__/langfuse";
import { localAdmin, type Principal } from "../principal";
import { refusal } from "../testing";
import { cancelPull, createConnector, getPull, listConnectors, startPull, StartPullInput } from "./connectors";
import { runPull, type PullDeps } from "./run-pull";
import {
  crashAndResume,
  stepRows,
  fakeLangfuse,
  storedSessions,
  type Hit,
  type Override,
  withKeyVariables,
} from "./testing";

const SECRET_ENV = "LANGFUSE_PULL_TEST_SECRET_KEY";
const PUBLIC_KEY = "pk-lf-test";
const SECRET = "sk-lf-test";

/** Seven matching traces (tags prod), two that the filter leaves out (a dev one, one after toTimestamp). */
function corpus() {
  const traces = supportTraces(7);
  const dev = { ...supportTrace("lf-dev", { offsetMs: 30_000 }), tags: ["dev"] };
  const late = supportTrace("lf-late", { offsetMs: 3_600_000 });
  return [...traces, dev, late];
}
const FILTER = { tags: ["prod"], fromTimestamp: "2026-11-20T00:00:00Z", toTimestamp: "2026-11-20T10:30:00Z" };
const IDS = Array.from({ length: 7 }, (_, k) => `lf-trace-00${k}`);
const FAST: PullDeps["client"] = { backoffMs: 10, maxRetries: 4, timeoutMs: 5_000 };

describe.each(TEST_ENGINES)("Langfuse pulls on %s", (engine) => {
  let db: TestDatabase;
  const admin: Principal = localAdmin("ada");
  const analyst: Principal = { kind: "user", userId: null, name: "ann", role: "analyst", readOnly: false };
  let intercept: ((hit: Hit) => Override | undefined) | undefined;
  let server: Awaited<ReturnType<typeof fakeLangfuse>>;
  let connectorId: string;

  let clearKeys: (() => void) | undefined;
  beforeAll(async () => {
    clearKeys = withKeyVariables({ [SECRET_ENV]: SECRET });
    db = await createTestDatabase(engine);
    server = await fakeLangfuse({
      traces: corpus(),
      publicKey: PUBLIC_KEY,
      secretKey: SECRET,
      intercept: (hit) => intercept?.(hit),
      observationsByIdOnly: new Set(["lf-trace-004"]),
    });
    await db.prisma.allowedHost.create({ data: { host: "127.0.0.1" } });
  });
  afterAll(async () => {
    await server?.close();
    await db?.drop();
    clearKeys?.();
  });
  beforeEach(() => {
    intercept = undefined;
    server.hits.length = 0;
  });

  const connectorInput = (over: Record<string, unknown> = {}) => ({
    name: "langfuse-eu",
    baseUrl: server.url,
    publicKey: PUBLIC_KEY,
    secretKeyEnv: SECRET_ENV,
    ...over,
  });
  /** The Langfuse sessions stored, oldest trace first, each with its events as the app reads them. */
  const langfuseSessions = () => storedSessions(db.prisma, "langfuse");

  it("adds a connector only for an allowed host and a key variable that may be sent; an analyst may not add one", async () => {
    const elsewhere = await refusal(
      createConnector(admin, connectorInput({ baseUrl: "https://cloud.langfuse.com" }), db.prisma),
    );
    expect([STATUS[elsewhere.code], elsewhere.message]).toEqual([
      400,
      'The connector "langfuse-eu" cannot be added: Host "cloud.langfuse.com" is not on the executor allow-list (Settings → Executors). Add its host under Settings → Executors first.',
    ]);
    const ownSetting = await refusal(
      createConnector(admin, connectorInput({ secretKeyEnv: "DATABASE_URL" }), db.prisma),
    );
    expect(ownSetting.issues).toEqual([
      {
        path: "secretKeyEnv",
        message:
          "DATABASE_URL is one of Branchpoint's own settings; name the variable that holds the platform's secret key.",
      },
    ]);
    const analystTry = await refusal(createConnector(analyst, connectorInput(), db.prisma));
    expect(STATUS[analystTry.code]).toBe(403);
    expect(await db.prisma.connector.count()).toBe(0);

    const created = await createConnector(admin, connectorInput(), db.prisma);
    connectorId = created.id;
    expect(await listConnectors(analyst, {}, db.prisma)).toEqual([
      {
        id: created.id,
        name: "langfuse-eu",
        kind: "langfuse",
        baseUrl: server.url,
        publicKey: PUBLIC_KEY,
        project: null,
        secretKeyEnv: SECRET_ENV,
        secretSet: true,
        hostAllowed: true,
        createdAt: created.createdAt,
      },
    ]);
    const audit = await db.prisma.auditEvent.findMany({ where: { action: "connector.changed" } });
    expect(audit.map((a) => [a.actorName, a.target])).toEqual([["ada", "langfuse-eu"]]);
    // The secret's value is stored nowhere.
    expect(JSON.stringify(await db.prisma.connector.findMany())).not.toContain(SECRET);
  });

  it("pulls exactly the matching traces through a 429, a failing page and a slow page, with steps, ids, usage, cost and errors", async () => {
    const waits: number[] = [];
    intercept = (hit) => {
      if (hit.kind === "list" && hit.page === 1) return { delayMs: 400 };
      if (hit.kind === "list" && hit.page === 2 && hit.count === 1)
        return { status: 429, headers: { "retry-after": "1" }, body: '{"message":"rate limit exceeded"}' };
      if (hit.kind === "list" && hit.page === 3 && hit.count === 1) return { status: 502, body: "bad gateway" };
      return undefined;
    };
    const pull = await startPull(analyst, { connectorId, filter: FILTER }, db.prisma, { pageSize: 3, client: FAST });
    expect(pull).toMatchObject({
      status: "completed",
      error: null,
      cursor: { page: 3, lastTraceId: "lf-trace-006" },
      progress: {
        pages: 3,
        totalPages: 3,
        totalItems: 7,
        traces: 7,
        imported: 7,
        duplicates: 0,
        refused: 0,
        retries: 2,
      },
      refusals: [],
      filter: FILTER,
    });
    // The 429 asked for a second: the page was asked again no sooner (the backoff alone is 10 ms).
    const page2 = server.hits.filter((h) => h.kind === "list" && h.page === 2);
    waits.push(page2[1]!.at - page2[0]!.at);
    expect(waits[0]).toBeGreaterThanOrEqual(990);
    // Each trace was fetched once; the one listed with observation ids had them fetched from the observations API.
    const details = server.hits.filter((h) => h.kind === "trace").map((h) => h.traceId);
    expect(details).toEqual(IDS);
    expect(server.hits.filter((h) => h.kind === "observations").map((h) => h.traceId)).toEqual(["lf-trace-004"]);

    const sessions = await langfuseSessions();
    expect(sessions.map((s) => [s.externalId, s.errorCount, s.eventCount])).toEqual(
      IDS.map((id, k) => [id, k % 3 === 0 ? 1 : 0, 6]),
    );
    const first = sessions[0]!;
    expect([first.inputTokens, first.outputTokens]).toEqual([560, 75]);
    expect(first.costUsd).toBeCloseTo(0.0021, 12);
    expect(stepRows(first.events)).toEqual([
      [0, "model_call", "gpt-4o-2024-08-06", null, null, "completed", null],
      [1, "tool_call", "lookup_order", "call_lf-trace-000_1", 0, "completed", null],
      [2, "model_call", "gpt-4o-2024-08-06", null, null, "completed", null],
      [
        3,
        "tool_call",
        "refund_payment",
        "call_lf-trace-000_2",
        2,
        "failed",
        { type: "ToolError", message: "payment gateway timeout" },
      ],
      [4, "model_call", "gpt-4o-2024-08-06", null, null, "completed", null],
      [5, "final_output", "final_output", null, 4, "completed", null],
    ]);
    expect(first.events.map((e) => e.usage)).toEqual([
      { inputTokens: 120, outputTokens: 20, costUsd: 0.0005 },
      null,
      { inputTokens: 180, outputTokens: 30, costUsd: 0.0007 },
      null,
      { inputTokens: 260, outputTokens: 25, costUsd: 0.0009 },
      null,
    ]);
    expect((first.metadata as { connector: string; langfuse: Record<string, unknown> }).connector).toBe("langfuse-eu");
    expect((first.metadata as { langfuse: Record<string, unknown> }).langfuse).toMatchObject({
      sessionId: "sess-42",
      userId: "user-7",
      tags: ["prod", "refunds"],
      name: "support-agent",
    });
    // The trace fetched through the observations API maps as the others do.
    expect(sessions[4]!.events.map((e) => e.kind)).toEqual(sessions[1]!.events.map((e) => e.kind));

    // A re-pull finds every session again and writes none.
    const again = await startPull(analyst, { connectorId, filter: FILTER }, db.prisma, { pageSize: 3, client: FAST });
    expect(again.progress).toMatchObject({ traces: 7, imported: 0, duplicates: 7, refused: 0 });
    expect(await db.prisma.session.count({ where: { format: "langfuse" } })).toBe(7);
    expect(await getPull(analyst, { connectorId, pullId: pull.id }, db.prisma)).toMatchObject({
      id: pull.id,
      status: "completed",
    });
  });

  it("a pull interrupted after any trace and resumed gives the same sessions as one that ran through", async () => {
    const digest = async () => (await langfuseSessions()).map((s) => ({ ...s, metadata: undefined }));
    await db.prisma.session.deleteMany({ where: { format: "langfuse" } });
    await startPull(analyst, { connectorId, filter: FILTER }, db.prisma, { pageSize: 3, client: FAST });
    const reference = await digest();
    expect(reference.map((s) => s.externalId)).toEqual(IDS);

    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 1, max: 6 }), async (k) => {
        await db.prisma.session.deleteMany({ where: { format: "langfuse" } });
        server.hits.length = 0;
        const { stopped, done } = await crashAndResume(db.prisma, { connectorId, filter: FILTER }, k, {
          pageSize: 3,
          client: FAST,
        });
        expect([stopped.status, stopped.cursor]).toEqual([
          "running",
          { page: Math.ceil(k / 3), lastTraceId: IDS[k - 1] },
        ]);
        expect([done.status, done.progress]).toEqual([
          "completed",
          {
            pages: 3,
            totalPages: 3,
            totalItems: 7,
            traces: 7,
            imported: 7,
            duplicates: 0,
            refused: 0,
            skipped: 0,
            retries: 0,
          },
        ]);
        expect(await digest()).toEqual(reference);
        // No trace was fetched twice, none skipped.
        expect(server.hits.filter((h) => h.kind === "trace").map((h) => h.traceId)).toEqual(IDS);
      }),
      { numRuns: 6, examples: [[3], [6]] },
    );
  }, 300_000);

  it("refuses hostile traces one by one, with their reasons, and the pull goes on", async () => {
    await db.prisma.session.deleteMany({ where: { format: "langfuse" } });
    const base = (id: string) => JSON.stringify(supportTrace(id));
    const bodies: Record<string, string> = {
      // A __proto__ key stays data; a lone surrogate is repaired.
      "lf-trace-000": base("lf-trace-000").replace(
        '"metadata":{"region":"eu"}',
        '"metadata":{"__proto__":{"polluted":true},"region":"eu\\udc00"}',
      ),
      "lf-trace-001": base("lf-trace-001").replace(
        '"input":{"question"',
        `"input":${"[".repeat(600)}${"]".repeat(600)},"x":{"question"`,
      ),
      "lf-trace-002": base("lf-trace-002").replace('"input":120', `"input":9${"9".repeat(400)}`),
      "lf-trace-003": base("lf-trace-003").replace('"input":120', '"input":1e15'),
      "lf-trace-005": base("lf-trace-005").replace(/"type":"GENERATION"/g, '"type":null'),
      // Over the 20 MB an answer may have.
      "lf-trace-006": base("lf-trace-006").replace('"region":"eu"', `"region":"${"x".repeat(21 * 1024 * 1024)}"`),
    };
    intercept = (hit) => (hit.kind === "trace" && bodies[hit.traceId!] ? { body: bodies[hit.traceId!] } : undefined);
    const pull = await startPull(analyst, { connectorId, filter: FILTER }, db.prisma, { pageSize: 3, client: FAST });
    expect(pull).toMatchObject({
      status: "completed",
      progress: { traces: 7, imported: 2, duplicates: 0, refused: 5 },
    });
    const refusals = pull.refusals as { traceId: string; issues: { path: string; message: string }[] }[];
    expect(
      refusals.map((r) => [r.traceId, r.issues[0]!.path, r.issues[0]!.message.replace(/ \(got .*\)$/, "")]),
    ).toEqual([
      ["lf-trace-001", "", expect.stringMatching(/^the trace cannot be read: .*nest/)],
      [
        "lf-trace-002",
        "",
        expect.stringMatching(
          /^the trace cannot be read: at line 1, column \d+: the number 9{40}… is too large to store/,
        ),
      ],
      ["lf-trace-003", "events[0].usage.inputTokens", "must be between 0 and 2147483647"],
      ["lf-trace-005", "observations[1].type", "an observation needs its type (GENERATION, SPAN, EVENT…)"],
      ["lf-trace-006", "", "the answer is over 20971520 bytes: too large to import"],
    ]);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    const sessions = await langfuseSessions();
    expect(sessions.map((s) => s.externalId)).toEqual(["lf-trace-000", "lf-trace-004"]);
    const meta = sessions[0]!.metadata as {
      repairedCharacters: number;
      langfuse: { metadata: Record<string, unknown> };
    };
    // No object's prototype changed; the __proto__ member was data to the mapper (the database write leaves it out).
    expect([
      meta.repairedCharacters,
      meta.langfuse.metadata.region,
      Object.getPrototypeOf(meta.langfuse.metadata) === Object.prototype,
      ({} as Record<string, unknown>).polluted,
    ]).toEqual([1, "eu\uFFFD", true, undefined]);
  });

  it("fails with the reason when Langfuse refuses the keys or keeps failing, and stops when cancelled", async () => {
    intercept = (hit) => (hit.kind === "list" ? { status: 401, body: '{"message":"Invalid credentials"}' } : undefined);
    const denied = await startPull(analyst, { connectorId, filter: FILTER }, db.prisma, { pageSize: 3, client: FAST });
    expect([denied.status, denied.error]).toEqual([
      "failed",
      {
        code: "run_failed",
        message:
          'Langfuse answered 401 for the trace list (check the connector\'s public key and the secret key in its environment variable): {"message":"Invalid credentials"}',
      },
    ]);
    intercept = (hit) => (hit.kind === "list" && hit.page === 2 ? { status: 503, body: "down" } : undefined);
    const down = await startPull(analyst, { connectorId, filter: FILTER }, db.prisma, { pageSize: 3, client: FAST });
    expect([down.status, down.error?.message, down.cursor, (down.progress as { retries: number }).retries]).toEqual([
      "failed",
      "Langfuse answered 503 (unavailable) to /api/public/traces 5 times; the pull stops here and can be started again.",
      { page: 2, lastTraceId: null },
      4,
    ]);

    intercept = undefined;
    let cancelled: string | null = null;
    const pull = await db.prisma.connectorPull.create({ data: { connectorId, filter: { ...FILTER }, progress: {} } });
    await runPull(
      db.prisma,
      pull.id,
      { owner: "w", leaseMs: 30_000, maxAttempts: 3 },
      {
        pageSize: 3,
        client: FAST,
        afterTrace: async ({ traces }) => {
          if (traces === 2) cancelled = (await cancelPull(analyst, { connectorId, pullId: pull.id }, db.prisma)).status;
        },
      },
    );
    const stopped = (await findPull(db.prisma, pull.id))!;
    expect([cancelled, stopped.status, (stopped.progress as { traces: number }).traces]).toEqual([
      "running",
      "cancelled",
      2,
    ]);
    const again = await refusal(cancelPull(analyst, { connectorId, pullId: pull.id }, db.prisma));
    expect([STATUS[again.code], again.message]).toEqual([
      409,
      "The pull has already ended (cancelled); there is nothing to cancel.",
    ]);
  });

  it("pulls given trace ids (no list read), each id once, keeping the failed ones when asked; refuses bad ids", async () => {
    await db.prisma.session.deleteMany({ where: { format: "langfuse" } });
    const traceIds = ["lf-trace-005", "lf-trace-000", "lf-trace-003", "lf-trace-005", "lf-missing"];
    const pull = await startPull(analyst, { connectorId, filter: { traceIds, error: true } }, db.prisma, {
      pageSize: 3,
      client: FAST,
    });
    expect([pull.status, pull.filter, pull.progress, pull.refusals]).toEqual([
      "completed",
      { traceIds: ["lf-trace-005", "lf-trace-000", "lf-trace-003", "lf-missing"], error: true },
      {
        pages: 2,
        totalPages: 2,
        totalItems: 4,
        traces: 4,
        imported: 2,
        duplicates: 0,
        refused: 1,
        skipped: 1,
        retries: 0,
      },
      [
        {
          traceId: "lf-missing",
          issues: [{ path: "", message: "Langfuse has no such trace (deleted since it was listed?)" }],
        },
      ],
    ]);
    expect(server.hits.map((h) => [h.kind, h.traceId])).toEqual([
      ["trace", "lf-trace-005"],
      ["trace", "lf-trace-000"],
      ["trace", "lf-trace-003"],
      ["trace", "lf-missing"],
    ]);
    expect((await langfuseSessions()).map((s) => s.externalId)).toEqual(["lf-trace-000", "lf-trace-003"]);

    const bad = (traceIds: string[]) =>
      StartPullInput.safeParse({ filter: { traceIds } }).error?.issues.map((i) => [i.path.join("."), i.message]);
    expect([bad(Array.from({ length: 501 }, (_, k) => `t${k}`)), bad(["x".repeat(201)]), bad([])]).toEqual([
      [["filter.traceIds", "A pull takes at most 500 trace ids."]],
      [["filter.traceIds.0", "A trace id has at most 200 characters."]],
      [["filter.traceIds", "Give at least one trace id."]],
    ]);
    const mixed = await refusal(
      startPull(analyst, { connectorId, filter: { traceIds: ["lf-trace-000"], tags: ["prod"] } }, db.prisma),
    );
    expect([STATUS[mixed.code], mixed.issues]).toEqual([
      400,
      [{ path: "filter.tags", message: "not read with traceIds" }],
    ]);
  });

  it("waits what a 503's Retry-After asks, and stops an endless run of pages with the reason", async () => {
    let down = true;
    intercept = (hit) => {
      if (hit.kind !== "list" || !down) return undefined;
      down = false;
      return { status: 503, headers: { "retry-after": "1" }, body: "maintenance" };
    };
    const waited = await startPull(analyst, { connectorId, filter: FILTER }, db.prisma, { pageSize: 3, client: FAST });
    const lists = server.hits.filter((h) => h.kind === "list" && h.page === 1);
    expect([waited.status, (waited.progress as { retries: number }).retries, lists.length]).toEqual([
      "completed",
      1,
      2,
    ]);
    // The backoff alone would have waited 10 ms.
    expect(lists[1]!.at - lists[0]!.at).toBeGreaterThanOrEqual(1000);

    server.hits.length = 0;
    const endless = JSON.stringify({
      data: [listedTrace(supportTrace("lf-trace-000"))],
      meta: { page: 1, limit: 1, totalItems: 1_000_000, totalPages: 1_000_000 },
    });
    intercept = (hit) => (hit.kind === "list" ? { body: endless } : undefined);
    const stopped = await startPull(analyst, { connectorId, filter: FILTER }, db.prisma, {
      pageSize: 1,
      client: FAST,
      maxPages: 3,
    });
    expect([
      stopped.status,
      stopped.error,
      stopped.cursor,
      server.hits.filter((h) => h.kind === "list").length,
    ]).toEqual([
      "failed",
      {
        code: "run_failed",
        message:
          "Langfuse kept answering with a next page after 3 pages of the trace list; the pull stops here. Narrow the filter (a shorter time range) and pull again.",
      },
      { page: 3, lastTraceId: "lf-trace-000" },
      3,
    ]);
  });
});
