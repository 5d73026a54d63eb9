/**
 * LangSmith pulls against a real HTTP server on 127.0.0.1 that serves the runs API's shapes
 * (./langsmith-testing.ts): a project's root runs paged by cursor and filtered, a 429 with Retry-After, a page
 * that fails once, a slow page. On both engines: a pull imports exactly the expected sessions, a re-pull finds
 * them again, a pull interrupted after any trace and resumed gives the same sessions as one that ran through, and
 * hostile traces are refused one by one, nothing of them written, while the pull goes on.
 */
import fc from "fast-check";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { TEST_ENGINES, createTestDatabase, type TestDatabase } from "@/lib/db/testing";
import { STATUS } from "@/lib/errors";
import { PROJECT_ID, supportRuns, supportRunTraces } from "@/lib/ingest/__fixtures__/langsmith";
import { localAdmin, type Principal } from "../principal";
import { refusal } from "../testing";
import { createConnector, listConnectors, startPull } from "./connectors";
import { fakeLangSmith } from "./langsmith-testing";
import type { PullDeps } from "./run-pull";
import { crashAndResume, stepRows, storedSessions, type Hit, type Override, withKeyVariables } from "./testing";

const KEY_ENV = "LANGSMITH_PULL_TEST_API_KEY";
const API_KEY = "lsv2_pt_test";

/** Seven prod traces, a dev one and one after toTimestamp (both left out by the filter). */
function corpus() {
  const dev = supportRuns("ls-dev", { offsetMs: 30_000, tags: ["dev"] });
  const late = supportRuns("ls-late", { offsetMs: 3_600_000 });
  return [...supportRunTraces(7), dev, late];
}
const FILTER = { tags: ["prod"], fromTimestamp: "2026-11-20T00:00:00Z", toTimestamp: "2026-11-20T10:30:00Z" };
const IDS = Array.from({ length: 7 }, (_, k) => `ls-trace-00${k}`);
const FAST: PullDeps["client"] = { backoffMs: 10, maxRetries: 4, timeoutMs: 5_000 };

describe.each(TEST_ENGINES)("LangSmith pulls on %s", (engine) => {
  let db: TestDatabase;
  const admin: Principal = localAdmin("ada");
  const analyst: Principal = { kind: "user", userId: null, name: "ann", role: "analyst", readOnly: false };
  let intercept: ((hit: Hit) => Override | undefined) | undefined;
  let server: Awaited<ReturnType<typeof fakeLangSmith>>;
  let connectorId: string;

  let clearKeys: (() => void) | undefined;
  beforeAll(async () => {
    clearKeys = withKeyVariables({ [KEY_ENV]: API_KEY });
    db = await createTestDatabase(engine);
    server = await fakeLangSmith({
      traces: corpus(),
      apiKey: API_KEY,
      project: PROJECT_ID,
      intercept: (hit) => intercept?.(hit),
    });
    await db.prisma.allowedHost.create({ data: { host: "127.0.0.1" } });
    const created = await createConnector(
      admin,
      { kind: "langsmith", name: "langsmith-prod", baseUrl: server.url, project: PROJECT_ID, secretKeyEnv: KEY_ENV },
      db.prisma,
    );
    connectorId = created.id;
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

  const sessions = () => storedSessions(db.prisma, "langsmith");

  it("adds a LangSmith connector naming its project, and refuses filters LangSmith does not read", async () => {
    expect(await listConnectors(analyst, {}, db.prisma)).toEqual([
      expect.objectContaining({
        kind: "langsmith",
        publicKey: null,
        project: PROJECT_ID,
        secretSet: true,
        hostAllowed: true,
      }),
    ]);
    const noProject = await refusal(
      createConnector(admin, { kind: "langsmith", name: "x", baseUrl: server.url, secretKeyEnv: KEY_ENV }, db.prisma),
    );
    expect(noProject.issues).toEqual([
      { path: "project", message: "Invalid input: expected string, received undefined" },
    ]);
    const otherKind = await refusal(
      createConnector(admin, { kind: "helicone", name: "x", baseUrl: server.url, secretKeyEnv: KEY_ENV }, db.prisma),
    );
    expect(otherKind.issues).toEqual([
      { path: "kind", message: 'kind must be one of "langfuse", "langsmith", "phoenix", "braintrust".' },
    ]);
    const badFilter = await refusal(startPull(analyst, { connectorId, filter: { userId: "u1" } }, db.prisma));
    expect([STATUS[badFilter.code], badFilter.message, badFilter.issues]).toEqual([
      400,
      "A LangSmith pull cannot filter by userId; it filters by fromTimestamp, toTimestamp, tags, name, error, query, traceIds.",
      [{ path: "filter.userId", message: "not a filter LangSmith reads" }],
    ]);
    expect(await db.prisma.connectorPull.count()).toBe(0);
  });

  it("pulls exactly the matching traces through a 429, a failing page and a slow page, with steps, ids, usage, cost and errors", async () => {
    intercept = (hit) => {
      if (hit.kind === "roots" && hit.page === 1) return { delayMs: 400 };
      if (hit.kind === "roots" && hit.page === 2 && hit.count === 1)
        return { status: 429, headers: { "retry-after": "1" }, body: '{"detail":"Too many requests"}' };
      if (hit.kind === "roots" && hit.page === 3 && hit.count === 1) return { status: 502, body: "bad gateway" };
      return undefined;
    };
    const pull = await startPull(analyst, { connectorId, filter: FILTER }, db.prisma, { pageSize: 3, client: FAST });
    expect(pull).toMatchObject({
      status: "completed",
      error: null,
      cursor: { page: 3, token: expect.any(String) as string, lastTraceId: "ls-trace-006" },
      progress: { pages: 3, traces: 7, imported: 7, duplicates: 0, refused: 0, retries: 2 },
      refusals: [],
    });
    const page2 = server.hits.filter((h) => h.kind === "roots" && h.page === 2);
    expect(page2[1]!.at - page2[0]!.at).toBeGreaterThanOrEqual(990);
    expect(server.hits.filter((h) => h.kind === "trace").map((h) => h.traceId)).toEqual(IDS);

    const stored = await sessions();
    expect(stored.map((s) => [s.externalId, s.errorCount, s.eventCount])).toEqual(
      IDS.map((id, k) => [id, k % 2 === 0 ? 1 : 0, 5]),
    );
    const first = stored[0]!;
    expect([first.inputTokens, first.outputTokens]).toEqual([239, 29]);
    expect(first.costUsd).toBeCloseTo(0.0003705, 12);
    expect(stepRows(first.events)).toEqual([
      [0, "model_call", "gpt-4o", null, null, "completed", null],
      [1, "tool_call", "lookup_order", "call_ls-trace-000_1", 0, "completed", null],
      [2, "model_call", "gpt-4o-mini", null, null, "completed", null],
      [
        3,
        "tool_call",
        "refund_payment",
        "call_ls-trace-000_2",
        2,
        "failed",
        { type: "ToolError", message: "TimeoutError('payments gateway timed out after 30s')" },
      ],
      [4, "final_output", "final_output", null, 2, "completed", null],
    ]);
    expect(first.metadata).toMatchObject({
      connector: "langsmith-prod",
      langsmith: {
        traceId: "ls-trace-000",
        projectId: PROJECT_ID,
        tags: ["prod"],
        error: "GraphRecursionError('Recursion limit of 25 reached')",
      },
    });

    const again = await startPull(analyst, { connectorId, filter: FILTER }, db.prisma, { pageSize: 3, client: FAST });
    expect(again.progress).toMatchObject({ traces: 7, imported: 0, duplicates: 7, refused: 0 });
    expect(await db.prisma.session.count({ where: { format: "langsmith" } })).toBe(7);

    // Only the runs that raised: LangSmith's own error filter.
    const failed = await startPull(analyst, { connectorId, filter: { ...FILTER, error: true } }, db.prisma, {
      pageSize: 3,
      client: FAST,
    });
    expect(failed.progress).toMatchObject({ traces: 3, duplicates: 3 });
  });

  it("a pull interrupted after any trace and resumed gives the same sessions as one that ran through", async () => {
    const digest = async () => (await sessions()).map((s) => ({ ...s, metadata: undefined }));
    await db.prisma.session.deleteMany({ where: { format: "langsmith" } });
    await startPull(analyst, { connectorId, filter: FILTER }, db.prisma, { pageSize: 3, client: FAST });
    const reference = await digest();
    expect(reference.map((s) => s.externalId)).toEqual(IDS);

    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 1, max: 6 }), async (k) => {
        await db.prisma.session.deleteMany({ where: { format: "langsmith" } });
        server.hits.length = 0;
        const { stopped, done } = await crashAndResume(db.prisma, { connectorId, filter: FILTER }, k, {
          pageSize: 3,
          client: FAST,
        });
        const cursor = stopped.cursor as { page: number; token?: string; lastTraceId: string };
        expect([stopped.status, cursor.page, cursor.lastTraceId, "token" in cursor]).toEqual([
          "running",
          Math.ceil(k / 3),
          IDS[k - 1],
          k > 3,
        ]);
        expect([done.status, done.progress]).toEqual([
          "completed",
          {
            pages: 3,
            totalPages: null,
            totalItems: null,
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
      { numRuns: 6, examples: [[3], [4]] },
    );
  }, 300_000);

  it("refuses hostile traces one by one, with their reasons, writing nothing of them, and the pull goes on", async () => {
    await db.prisma.session.deleteMany({ where: { format: "langsmith" } });
    const runs = (k: number) => JSON.stringify({ runs: supportRunTraces(7)[k], cursors: { next: null } });
    const bodies: Record<string, string> = {
      // A __proto__ key stays data; a lone surrogate is repaired.
      "ls-trace-000": runs(0)
        .replace('"inputs":{"order_id"', '"inputs":{"__proto__":{"polluted":true},"order_id"')
        .replace('"title":"Refund 4821"', '"title":"Refund 4821\\udc00"'),
      "ls-trace-001": runs(1).replace(
        '"inputs":{"input"',
        `"x":${"[".repeat(600)}${"]".repeat(600)},"inputs":{"input"`,
      ),
      "ls-trace-002": runs(2).replace('"prompt_tokens":99', `"prompt_tokens":9${"9".repeat(400)}`),
      // The run's own count (the answer's llm_output holds another, read only when the run has none).
      "ls-trace-003": runs(3).replace(
        '"prompt_tokens":99,"completion_tokens":9,"total_tokens":108,"total',
        '"prompt_tokens":1e15,"total',
      ),
      "ls-trace-005": runs(5).replace(/"run_type":"tool"/g, '"run_type":null'),
      "ls-trace-006": '{"runs":"none"}',
    };
    intercept = (hit) => (hit.kind === "trace" && bodies[hit.traceId!] ? { body: bodies[hit.traceId!] } : undefined);
    const pull = await startPull(analyst, { connectorId, filter: FILTER }, db.prisma, { pageSize: 3, client: FAST });
    expect(pull).toMatchObject({ status: "completed", progress: { traces: 7, imported: 2, refused: 5 } });
    const refusals = pull.refusals as { traceId: string; issues: { path: string; message: string }[] }[];
    expect(
      refusals.map((r) => [r.traceId, r.issues[0]!.path, r.issues[0]!.message.replace(/ \(got .*\)$/, "")]),
    ).toEqual([
      ["ls-trace-001", "", expect.stringMatching(/^the runs of trace ls-trace-001 cannot be read: .*nest/)],
      [
        "ls-trace-002",
        "",
        expect.stringMatching(/cannot be read: at line 1, column \d+: the number 9{40}… is too large to store/),
      ],
      ["ls-trace-003", "events[0].usage.inputTokens", "must be between 0 and 2147483647"],
      ["ls-trace-005", "runs[2].run_type", "a run needs its run_type (llm, tool, chain…)"],
      ["ls-trace-006", "", "the runs of trace ls-trace-006 is not { runs: [...], cursors }"],
    ]);
    const stored = await sessions();
    expect(stored.map((s) => s.externalId)).toEqual(["ls-trace-000", "ls-trace-004"]);
    const meta = stored[0]!.metadata as { repairedCharacters: number; langsmith: { metadata: { title: string } } };
    // The lone surrogate is repaired where it is kept: the root's metadata and the title taken from it.
    expect([meta.repairedCharacters, meta.langsmith.metadata.title, ({} as Record<string, unknown>).polluted]).toEqual([
      2,
      "Refund 4821\uFFFD",
      undefined,
    ]);
    const refund = stored[0]!.events.find((e) => e.name === "refund_payment")!;
    // The __proto__ member stayed data: stored as a key, no object's prototype changed.
    const args = (refund.input as { args: object }).args;
    expect([Object.keys(args).sort(), Object.getPrototypeOf(args) === Object.prototype]).toEqual([
      ["__proto__", "amount", "order_id"],
      true,
    ]);
  });

  it("fails with the reason when LangSmith refuses the key", async () => {
    intercept = (hit) => (hit.kind === "roots" ? { status: 403, body: '{"detail":"Forbidden"}' } : undefined);
    const denied = await startPull(analyst, { connectorId, filter: FILTER }, db.prisma, { pageSize: 3, client: FAST });
    expect([denied.status, denied.error]).toEqual([
      "failed",
      {
        code: "run_failed",
        message:
          'LangSmith answered 403 for page 1 of the project\'s runs (check the API key in the connector\'s environment variable and that it may read the project): {"detail":"Forbidden"}',
      },
    ]);
  });

  it("stops with the reason when the runs list answers with the cursor it was asked with", async () => {
    const root = corpus()[0]!.find((r) => r.parent_run_id === null)!;
    const stuck = JSON.stringify({ runs: [root], cursors: { next: "c3RlcA", prev: null } });
    intercept = (hit) => (hit.kind === "roots" ? { body: stuck } : undefined);
    const pull = await startPull(analyst, { connectorId, filter: FILTER }, db.prisma, { pageSize: 3, client: FAST });
    expect([pull.status, pull.error, pull.cursor, server.hits.filter((h) => h.kind === "roots").length]).toEqual([
      "failed",
      {
        code: "run_failed",
        message:
          "LangSmith answered page 2 of the trace list with the same cursor it was asked with; the pull stops here so as not to read that page forever.",
      },
      { page: 2, token: "c3RlcA", lastTraceId: "ls-trace-000" },
      2,
    ]);
  });
});
