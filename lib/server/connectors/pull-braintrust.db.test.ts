/**
 * Braintrust pulls against a real HTTP server on 127.0.0.1 serving the SQL query endpoint's shapes
 * (./braintrust-testing.ts): a project's root spans paged by the `x-bt-cursor` cursor and filtered, a 429 with
 * Retry-After, a page that fails once, a slow page. On both engines: a pull imports exactly the expected sessions,
 * a re-pull finds them again, the error filter reads only failed runs, a pull interrupted after any trace and
 * resumed gives the same sessions as one that ran through, and hostile traces are refused one by one, nothing of
 * them written, while the pull goes on.
 */
import fc from "fast-check";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { TEST_ENGINES, createTestDatabase, type TestDatabase } from "@/lib/db/testing";
import { STATUS } from "@/lib/errors";
import { BRAINTRUST_PROJECT, braintrustRootId, braintrustTrace } from "@/lib/ingest/__fixtures__/braintrust";
import { localAdmin, type Principal } from "../principal";
import { refusal } from "../testing";
import { fakeBraintrust } from "./braintrust-testing";
import { conditionProblem, rootSpanConditions, sqlLiteral } from "./braintrust-client";
import { createConnector, listConnectors, startPull } from "./connectors";
import { PLATFORMS } from "./platforms";
import type { PullDeps } from "./run-pull";
import { crashAndResume, stepRows, storedSessions, type Hit, type Override, withKeyVariables } from "./testing";

const KEY_ENV = "BRAINTRUST_PULL_TEST_API_KEY";
const API_KEY = "sk-bt-test";
const FILTER = { tags: ["prod"], fromTimestamp: "2026-11-20T00:00:00Z", toTimestamp: "2026-11-20T10:30:00Z" };
const IDS = Array.from({ length: 7 }, (_, k) => braintrustRootId(k));
const FAST: PullDeps["client"] = { backoffMs: 10, maxRetries: 4, timeoutMs: 5_000 };

/** Seven prod traces (odd ones failed: the tool and the root raised), a dev one and one after toTimestamp. */
function corpus() {
  return [
    ...IDS.map((_, k) =>
      braintrustTrace(k, k % 2 === 1 ? { failTool: true, rootError: "TimeoutError: order service timed out" } : {}),
    ),
    braintrustTrace(50, { offsetMs: 30_000, tags: ["dev"] }),
    braintrustTrace(99, { offsetMs: 7_200_000 }),
  ];
}

describe("the Braintrust list query", () => {
  it("quotes every value so none ends its literal early, and names each filter's condition", () => {
    expect(sqlLiteral("it's \\' OR 1=1 --")).toBe("'it''s \\\\'' OR 1=1 --'");
    expect(
      rootSpanConditions({ ...FILTER, name: "support-agent", error: true, query: "metrics.tokens > 100" }),
    ).toEqual([
      "is_root",
      "created >= '2026-11-20T00:00:00Z'",
      "created < '2026-11-20T10:30:00Z'",
      "tags INCLUDES 'prod'",
      "span_attributes.name = 'support-agent'",
      "error IS NOT NULL",
      "(metrics.tokens > 100)",
    ]);
  });

  it("takes an analyst's condition only when it is one condition that stays inside its parentheses", () => {
    for (const ok of [
      "metrics.tokens > 1000",
      "(error IS NOT NULL OR scores.accuracy < 0.5) AND metadata.model = 'gpt-4o'",
      "input LIKE '%); SELECT * FROM project_logs(''other'') --%'",
      `"span_attributes"."name" = 'it''s'`,
    ])
      expect([ok, conditionProblem(ok)]).toEqual([ok, null]);
    expect(
      [
        "1=1) OR (1=1",
        "is_root) UNION SELECT * FROM project_logs('other') WHERE (true",
        "true; DROP",
        "true -- the rest",
        "true /* the rest */",
        "(true",
        "name = 'open",
        "true LIMIT 1000000",
        "scores.x > 0 ORDER BY created",
        "input = 'a\\' ) UNION ALL SELECT root_span_id, created FROM project_logs('other') -- '",
        "`a'` = 1",
      ].map(conditionProblem),
    ).toEqual([
      "a parenthesis closes one it did not open",
      "a parenthesis closes one it did not open",
      "it holds a statement end (;)",
      "it holds a comment",
      "it holds a comment",
      "a parenthesis is not closed",
      "a quote is not closed",
      "LIMIT starts a clause of a query, not a condition",
      "ORDER starts a clause of a query, not a condition",
      "it holds a backslash or a backtick",
      "it holds a backslash or a backtick",
    ]);
  });

  it("a condition it takes never reaches outside the parentheses it is put in", () => {
    // Whatever the analyst types, once taken, the list query's parentheses around it close where they should.
    fc.assert(
      fc.property(
        fc.string({ unit: fc.constantFrom("(", ")", "'", '"', "\\", "a", " ", "=", ";", "-", "/", "*") }),
        (q) => {
          if (conditionProblem(q) !== null) return;
          let depth = 0;
          let inQuote: string | null = null;
          for (let i = 0; i < q.length; i++) {
            const c = q[i]!;
            if (inQuote) {
              if (c === inQuote) {
                if (q[i + 1] === inQuote) i++;
                else inQuote = null;
              }
            } else if (c === "'" || c === '"') inQuote = c;
            else if (c === "(") depth++;
            else if (c === ")") expect(--depth).toBeGreaterThanOrEqual(0);
          }
          expect([inQuote, depth]).toEqual([null, 0]);
        },
      ),
      { numRuns: 2000 },
    );
  });
});

describe.each(TEST_ENGINES)("Braintrust pulls on %s", (engine) => {
  let db: TestDatabase;
  const admin: Principal = localAdmin("ada");
  const analyst: Principal = { kind: "user", userId: null, name: "ann", role: "analyst", readOnly: false };
  let intercept: ((hit: Hit) => Override | undefined) | undefined;
  let server: Awaited<ReturnType<typeof fakeBraintrust>>;
  let connectorId: string;

  let clearKeys: (() => void) | undefined;
  beforeAll(async () => {
    clearKeys = withKeyVariables({ [KEY_ENV]: API_KEY });
    db = await createTestDatabase(engine);
    server = await fakeBraintrust({
      traces: corpus(),
      apiKey: API_KEY,
      project: BRAINTRUST_PROJECT,
      experiments: {
        "exp-1": [40, 41].map((n) =>
          braintrustTrace(n, { experiment: true, ...(n === 41 ? { rootError: "TimeoutError" } : {}) }),
        ),
      },
      intercept: (hit) => intercept?.(hit),
    });
    await db.prisma.allowedHost.create({ data: { host: "127.0.0.1" } });
    const created = await createConnector(
      admin,
      {
        kind: "braintrust",
        name: "braintrust-prod",
        baseUrl: server.url,
        project: BRAINTRUST_PROJECT,
        secretKeyEnv: KEY_ENV,
      },
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

  const sessions = () => storedSessions(db.prisma, "braintrust");

  it("adds a Braintrust connector naming its project, and refuses filters Braintrust does not read", async () => {
    expect(await listConnectors(analyst, {}, db.prisma)).toEqual([
      expect.objectContaining({ kind: "braintrust", publicKey: null, project: BRAINTRUST_PROJECT, secretSet: true }),
    ]);
    const noProject = await refusal(
      createConnector(admin, { kind: "braintrust", name: "x", baseUrl: server.url, secretKeyEnv: KEY_ENV }, db.prisma),
    );
    expect(noProject.issues).toEqual([
      { path: "project", message: "Invalid input: expected string, received undefined" },
    ]);
    const badFilter = await refusal(startPull(analyst, { connectorId, filter: { sessionId: "s1" } }, db.prisma));
    expect([STATUS[badFilter.code], badFilter.message, badFilter.issues]).toEqual([
      400,
      "A Braintrust pull cannot filter by sessionId; it filters by fromTimestamp, toTimestamp, tags, name, error, query, experiment, traceIds.",
      [{ path: "filter.sessionId", message: "not a filter Braintrust reads" }],
    ]);
    const widened = await refusal(
      startPull(analyst, { connectorId, filter: { query: "true) OR (project_id = 'other'" } }, db.prisma),
    );
    expect([STATUS[widened.code], widened.message, widened.issues]).toEqual([
      400,
      "The filter is not one Braintrust can read: not one SQL condition: a parenthesis closes one it did not open.",
      [{ path: "filter.query", message: "not one SQL condition: a parenthesis closes one it did not open" }],
    ]);
    expect(await db.prisma.connectorPull.count()).toBe(0);
  });

  it("pulls exactly the matching traces through a 429, a failing page and a slow page, with steps, ids, usage, cost and errors", async () => {
    intercept = (hit) => {
      if (hit.kind === "roots" && hit.page === 1) return { delayMs: 400 };
      if (hit.kind === "roots" && hit.page === 2 && hit.count === 1)
        return { status: 429, headers: { "retry-after": "1" }, body: '{"error":"Too many requests"}' };
      if (hit.kind === "roots" && hit.page === 3 && hit.count === 1) return { status: 502, body: "bad gateway" };
      return undefined;
    };
    const pull = await startPull(analyst, { connectorId, filter: FILTER }, db.prisma, { pageSize: 3, client: FAST });
    expect(pull).toMatchObject({
      status: "completed",
      error: null,
      cursor: { page: 3, token: expect.any(String) as string, lastTraceId: IDS[6] },
      progress: { pages: 3, traces: 7, imported: 7, duplicates: 0, refused: 0, retries: 2 },
      refusals: [],
    });
    const page2 = server.hits.filter((h) => h.kind === "roots" && h.page === 2);
    expect(page2[1]!.at - page2[0]!.at).toBeGreaterThanOrEqual(990);
    expect(server.hits.filter((h) => h.kind === "trace").map((h) => h.traceId)).toEqual(IDS);

    const stored = await sessions();
    expect(stored.map((s) => [s.externalId, s.errorCount, s.eventCount])).toEqual(IDS.map((id, k) => [id, k % 2, 5]));
    const failed = stored[1]!;
    expect([failed.inputTokens, failed.outputTokens]).toEqual([210, 20]);
    expect(failed.costUsd).toBeCloseTo(0.000345, 12);
    expect(stepRows(failed.events)).toEqual([
      [0, "model_call", "gpt-4o", null, null, "completed", null],
      [
        1,
        "tool_call",
        "lookup_order",
        "call_1_1",
        0,
        "failed",
        { type: "TimeoutError", message: "order service timed out" },
      ],
      [2, "model_call", "gpt-4o", null, null, "completed", null],
      [3, "tool_call", "moderate", "span-1-5", null, "completed", null],
      [4, "final_output", "final_output", null, 2, "completed", null],
    ]);
    expect(failed.metadata).toMatchObject({
      connector: "braintrust-prod",
      braintrust: { rootSpanId: IDS[1], projectId: BRAINTRUST_PROJECT, error: "TimeoutError: order service timed out" },
    });

    const again = await startPull(analyst, { connectorId, filter: FILTER }, db.prisma, { pageSize: 3, client: FAST });
    expect(again.progress).toMatchObject({ traces: 7, imported: 0, duplicates: 7 });
    // Only the runs whose root span recorded an error.
    const onlyFailed = await startPull(analyst, { connectorId, filter: { ...FILTER, error: true } }, db.prisma, {
      pageSize: 3,
      client: FAST,
    });
    expect(onlyFailed.progress).toMatchObject({ traces: 3, duplicates: 3 });
    expect(
      server.hits
        .filter((h) => h.kind === "trace")
        .slice(-3)
        .map((h) => h.traceId),
    ).toEqual([IDS[1], IDS[3], IDS[5]]);
  });

  it("a pull interrupted after any trace and resumed gives the same sessions as one that ran through", async () => {
    const digest = async () => (await sessions()).map((s) => ({ ...s, metadata: undefined }));
    await db.prisma.session.deleteMany({ where: { format: "braintrust" } });
    await startPull(analyst, { connectorId, filter: FILTER }, db.prisma, { pageSize: 3, client: FAST });
    const reference = await digest();
    expect(reference.map((s) => s.externalId)).toEqual(IDS);
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 1, max: 6 }), async (k) => {
        await db.prisma.session.deleteMany({ where: { format: "braintrust" } });
        server.hits.length = 0;
        const { stopped, done } = await crashAndResume(db.prisma, { connectorId, filter: FILTER }, k, {
          pageSize: 3,
          client: FAST,
        });
        expect(stopped).toMatchObject({ status: "running", cursor: { lastTraceId: IDS[k - 1] } });
        expect([done.status, done.progress]).toMatchObject(["completed", { traces: 7, imported: 7, duplicates: 0 }]);
        expect(await digest()).toEqual(reference);
        expect(server.hits.filter((h) => h.kind === "trace").map((h) => h.traceId)).toEqual(IDS);
      }),
      { numRuns: 3, examples: [[3], [4]] },
    );
  }, 300_000);

  it("refuses hostile traces one by one, writing nothing of them, and the pull goes on", async () => {
    await db.prisma.session.deleteMany({ where: { format: "braintrust" } });
    const rows = (k: number) => JSON.stringify({ data: braintrustTrace(k) });
    const bodies: Record<string, string> = {
      [IDS[1]!]: rows(1).replace('"input":{"order_id"', `"x":${"[".repeat(600)}${"]".repeat(600)},"input":{"order_id"`),
      [IDS[2]!]: rows(2).replace('"prompt_tokens":90', `"prompt_tokens":9${"9".repeat(400)}`),
      [IDS[3]!]: rows(3).replace(/"span_parents":\["root-0003"\]/, '"span_parents":"root-0003"'),
      [IDS[4]!]: '{"data":"none"}',
    };
    intercept = (hit) => (hit.kind === "trace" && bodies[hit.traceId!] ? { body: bodies[hit.traceId!] } : undefined);
    const pull = await startPull(analyst, { connectorId, filter: FILTER }, db.prisma, { pageSize: 3, client: FAST });
    expect(pull).toMatchObject({ status: "completed", progress: { traces: 7, imported: 3, refused: 4 } });
    const refusals = pull.refusals as { traceId: string; issues: { path: string; message: string }[] }[];
    expect(refusals.map((r) => [r.traceId, r.issues[0]!.path, r.issues[0]!.message])).toEqual([
      [IDS[1], "", expect.stringMatching(/^the spans of trace root-0001 cannot be read: .*nest/)],
      [IDS[2], "", expect.stringMatching(/cannot be read: at line 1, column \d+: the number 9{40}… is too large/)],
      [IDS[3], "data[1].span_parents", "must be null or a list of span ids"],
      [IDS[4], "", `the spans of trace ${IDS[4]} is not { data: [...] }`],
    ]);
    expect((await sessions()).map((s) => s.externalId)).toEqual([IDS[0], IDS[5], IDS[6]]);
  });

  it("fails with the reason when Braintrust refuses the key", async () => {
    intercept = (hit) => (hit.kind === "roots" ? { status: 401, body: '{"error":"Invalid API key"}' } : undefined);
    const denied = await startPull(analyst, { connectorId, filter: FILTER }, db.prisma, { pageSize: 3, client: FAST });
    expect([denied.status, denied.error]).toEqual([
      "failed",
      {
        code: "run_failed",
        message:
          'Braintrust answered 401 for page 1 of the project\'s logs (check the API key in the connector\'s environment variable and that it may read the project): {"error":"Invalid API key"}',
      },
    ]);
  });

  it("pulls an experiment's rows instead of the project's logs, mapped as the logs are", async () => {
    const pull = await startPull(analyst, { connectorId, filter: { experiment: "exp-1" } }, db.prisma, {
      client: FAST,
    });
    expect([pull.status, pull.progress]).toMatchObject(["completed", { traces: 2, imported: 2, refused: 0 }]);
    const EXP = [braintrustRootId(40), braintrustRootId(41)];
    expect(server.hits.map((h) => [h.kind, h.traceId])).toEqual([["roots", null], ...EXP.map((id) => ["trace", id])]);
    // Each as the Braintrust mapper makes it of the same rows (as an experiment export file would import).
    const stored = (await sessions()).filter((s) => EXP.includes(s.externalId!));
    expect(stored.map((s) => [s.externalId, s.events.map((e) => [e.kind, e.name, e.status])])).toEqual(
      [40, 41].map((n) => {
        const mapped = PLATFORMS.braintrust.map(
          braintrustTrace(n, { experiment: true, ...(n === 41 ? { rootError: "TimeoutError" } : {}) }),
        );
        if (!mapped.ok) throw new Error(JSON.stringify(mapped.issues));
        return [braintrustRootId(n), mapped.session.events.map((e) => [e.kind, e.name, e.status])];
      }),
    );
    expect(stored[0]!.events.length).toBeGreaterThan(2);
    // Given trace ids of the experiment: read from it, not from the logs.
    server.hits.length = 0;
    const given = await startPull(
      analyst,
      { connectorId, filter: { experiment: "exp-1", traceIds: [EXP[1]!] } },
      db.prisma,
    );
    expect(given.progress).toMatchObject({ traces: 1, imported: 0, duplicates: 1 });
  });
});
