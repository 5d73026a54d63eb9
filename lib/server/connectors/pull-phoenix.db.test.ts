/**
 * Phoenix pulls against a real HTTP server on 127.0.0.1 serving the REST spans API's shapes (./phoenix-testing.ts):
 * root spans paged by cursor, a 429 with Retry-After, a page that fails once; on both engines a pull imports
 * exactly the expected sessions, a re-pull finds them again, a pull interrupted after any trace and resumed gives
 * the same sessions, and hostile traces are refused one by one, nothing of
 * them written, while the pull goes on.
 */
import fc from "fast-check";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { TEST_ENGINES, createTestDatabase, type TestDatabase } from "@/lib/db/testing";
import { PHOENIX_PROJECT, phoenixTrace } from "@/lib/ingest/__fixtures__/phoenix";
import { localAdmin, type Principal } from "../principal";
import { STATUS } from "@/lib/errors";
import { refusal } from "../testing";
import { deleteConnector, updateConnector } from "./connector-admin";
import { createConnector, listConnectors, startPull } from "./connectors";
import { fakePhoenix } from "./phoenix-testing";
import type { PullDeps } from "./run-pull";
import { crashAndResume, stepRows, storedSessions, type Hit, type Override, withKeyVariables } from "./testing";

const KEY_ENV = "PHOENIX_PULL_TEST_API_KEY";
const API_KEY = "phx-test";
const FILTER = { fromTimestamp: "2026-11-20T00:00:00Z", toTimestamp: "2026-11-20T10:30:00Z" };
const traceIdOf = (n: number) => `${n.toString(16).padStart(8, "0")}${"ab".repeat(12)}`;
const IDS = Array.from({ length: 7 }, (_, k) => traceIdOf(k));
const FAST: PullDeps["client"] = { backoffMs: 10, maxRetries: 4, timeoutMs: 5_000 };

describe.each(TEST_ENGINES)("Phoenix pulls on %s", (engine) => {
  let db: TestDatabase;
  const admin: Principal = localAdmin("ada");
  const analyst: Principal = { kind: "user", userId: null, name: "ann", role: "analyst", readOnly: false };
  let intercept: ((hit: Hit) => Override | undefined) | undefined;
  let server: Awaited<ReturnType<typeof fakePhoenix>>;
  let connectorId: string;

  let clearKeys: (() => void) | undefined;
  beforeAll(async () => {
    clearKeys = withKeyVariables({ [KEY_ENV]: API_KEY });
    db = await createTestDatabase(engine);
    // Seven traces in range (odd ones with a failed tool), one after toTimestamp.
    const traces = [
      ...IDS.map((_, k) => phoenixTrace(k, { failTool: k % 2 === 1 })),
      phoenixTrace(99, { offsetMs: 7_200_000 }),
    ];
    server = await fakePhoenix({
      traces,
      apiKey: API_KEY,
      project: PHOENIX_PROJECT,
      intercept: (hit) => intercept?.(hit),
    });
    await db.prisma.allowedHost.create({ data: { host: "127.0.0.1" } });
    const created = await createConnector(
      admin,
      { kind: "phoenix", name: "phoenix-prod", baseUrl: server.url, project: PHOENIX_PROJECT, secretKeyEnv: KEY_ENV },
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

  it("pulls exactly the matching traces through a 429 with Retry-After and a page failing once, and finds them again", async () => {
    intercept = (hit) => {
      if (hit.kind === "roots" && hit.page === 2 && hit.count === 1)
        return { status: 429, headers: { "retry-after": "1" }, body: '{"detail":"Too many requests"}' };
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
    const stored = await storedSessions(db.prisma, "phoenix");
    expect(stored.map((s) => [s.externalId, s.errorCount])).toEqual(IDS.map((id, k) => [id, k % 2]));
    expect(stepRows(stored[1]!.events).slice(0, 2)).toEqual([
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
    ]);
    expect(stored[0]!.metadata).toMatchObject({ connector: "phoenix-prod", phoenix: { traceId: IDS[0] } });
    const again = await startPull(analyst, { connectorId, filter: FILTER }, db.prisma, { pageSize: 3, client: FAST });
    expect(again.progress).toMatchObject({ traces: 7, imported: 0, duplicates: 7 });
  });

  it("a pull interrupted after any trace and resumed gives the same sessions as one that ran through", async () => {
    const digest = async () => (await storedSessions(db.prisma, "phoenix")).map((s) => ({ ...s, metadata: undefined }));
    await db.prisma.session.deleteMany({ where: { format: "phoenix" } });
    await startPull(analyst, { connectorId, filter: FILTER }, db.prisma, { pageSize: 3, client: FAST });
    const reference = await digest();
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 1, max: 6 }), async (k) => {
        await db.prisma.session.deleteMany({ where: { format: "phoenix" } });
        server.hits.length = 0;
        const { done } = await crashAndResume(db.prisma, { connectorId, filter: FILTER }, k, {
          pageSize: 3,
          client: FAST,
        });
        expect([done.status, done.progress]).toMatchObject(["completed", { traces: 7, imported: 7, duplicates: 0 }]);
        expect(await digest()).toEqual(reference);
        expect(server.hits.filter((h) => h.kind === "trace").map((h) => h.traceId)).toEqual(IDS);
      }),
      { numRuns: 3, examples: [[3], [4]] },
    );
  }, 300_000);

  it("refuses hostile traces one by one, writing nothing of them, and the pull goes on", async () => {
    await db.prisma.session.deleteMany({ where: { format: "phoenix" } });
    const spans = (k: number) => JSON.stringify({ data: phoenixTrace(k), next_cursor: null });
    const bodies: Record<string, string> = {
      [IDS[1]!]: spans(1).replace('"attributes":{', `"x":${"[".repeat(600)}${"]".repeat(600)},"attributes":{`),
      [IDS[2]!]: spans(2).replace('"llm.token_count.prompt":90', `"llm.token_count.prompt":9${"9".repeat(400)}`),
      [IDS[3]!]: spans(3).replace(/"start_time":"[^"]*"/, '"start_time":"soon"'),
      [IDS[4]!]: '{"data":"none"}',
    };
    intercept = (hit) => (hit.kind === "trace" && bodies[hit.traceId!] ? { body: bodies[hit.traceId!] } : undefined);
    const pull = await startPull(analyst, { connectorId, filter: FILTER }, db.prisma, { pageSize: 3, client: FAST });
    expect(pull).toMatchObject({ status: "completed", progress: { traces: 7, imported: 3, refused: 4 } });
    const refusals = pull.refusals as { traceId: string; issues: { path: string; message: string }[] }[];
    expect(refusals.map((r) => [r.traceId, r.issues[0]!.path, r.issues[0]!.message])).toEqual([
      [IDS[1], "", expect.stringMatching(/^the spans of trace \w+ cannot be read: .*nest/)],
      [IDS[2], "", expect.stringMatching(/cannot be read: at line 1, column \d+: the number 9{40}… is too large/)],
      [IDS[3], "data[0].start_time", "must be an ISO 8601 date-time"],
      [IDS[4], "", `the spans of trace ${IDS[4]} is not { data: [...], next_cursor }`],
    ]);
    expect((await storedSessions(db.prisma, "phoenix")).map((s) => s.externalId)).toEqual([IDS[0], IDS[5], IDS[6]]);
  });

  it("an admin edits the connector (not its kind; an allowed host, a free name) and deletes it once no pull runs; its sessions stay", async () => {
    const edit = (who: Principal, change: unknown) =>
      refusal(updateConnector(who, { connectorId, edit: change }, db.prisma));
    expect(STATUS[(await edit(analyst, { name: "mine" })).code]).toBe(403);
    const elsewhere = await edit(admin, { baseUrl: "https://app.phoenix.arize.com" });
    expect([STATUS[elsewhere.code], elsewhere.message, elsewhere.issues]).toEqual([
      400,
      'The connector "phoenix-prod" cannot be changed: Host "app.phoenix.arize.com" is not on the executor allow-list (Settings → Executors). Add its host under Settings → Executors first.',
      [{ path: "baseUrl", message: "not an allowed destination" }],
    ]);
    const issues = async (change: unknown) => {
      const e = await edit(admin, change);
      return [STATUS[e.code], e.issues];
    };
    expect(await issues({ publicKey: "pk-lf-1" })).toEqual([
      400,
      [{ path: "publicKey", message: "not a field of a phoenix connector" }],
    ]);
    expect(await issues({ kind: "langfuse" })).toEqual([400, [{ path: "kind", message: "cannot change" }]]);
    expect(await issues({})).toEqual([400, [{ path: "", message: "Give at least one field to change." }]]);
    expect(await issues({ secretKeyEnv: "DATABASE_URL" })).toEqual([
      400,
      [
        {
          path: "secretKeyEnv",
          message:
            "DATABASE_URL is one of Branchpoint's own settings; name the variable that holds the platform's secret key.",
        },
      ],
    ]);
    const other = await createConnector(
      admin,
      { kind: "phoenix", name: "phoenix-other", baseUrl: server.url, project: "p2", secretKeyEnv: KEY_ENV },
      db.prisma,
    );
    expect(await issues({ name: "phoenix-other" })).toEqual([409, [{ path: "name", message: "taken" }]]);

    const edited = await updateConnector(
      admin,
      { connectorId, edit: { name: "phoenix-main", baseUrl: `${server.url}/`, project: PHOENIX_PROJECT } },
      db.prisma,
    );
    expect(edited).toMatchObject({
      id: connectorId,
      name: "phoenix-main",
      baseUrl: `${server.url}/`,
      hostAllowed: true,
    });
    const audit = await db.prisma.auditEvent.findMany({
      where: { action: "connector.changed", target: "phoenix-main" },
    });
    expect(audit.map((a) => a.detail)).toEqual([
      { change: "edited", fields: ["name", "baseUrl"], was: "phoenix-prod" },
    ]);
    // The edited connector pulls from its new base URL.
    const pull = await startPull(analyst, { connectorId, filter: FILTER }, db.prisma, { client: FAST });
    expect(pull).toMatchObject({ status: "completed", progress: { traces: 7 } });

    // A pull under way holds the connector: a 409, nothing removed.
    const sessions = await db.prisma.session.count({ where: { format: "phoenix" } });
    const running = await db.prisma.connectorPull.create({
      data: { connectorId, filter: FILTER, status: "running", progress: {} },
    });
    const busy = await refusal(deleteConnector(admin, { connectorId }, db.prisma));
    expect([STATUS[busy.code], busy.message]).toEqual([
      409,
      'The connector "phoenix-main" has a pull queued or running; cancel it, and delete the connector once it has stopped.',
    ]);
    expect(STATUS[(await refusal(deleteConnector(analyst, { connectorId }, db.prisma))).code]).toBe(403);
    // Ended (a schedule still held): the connector, its pulls and the schedule go; the sessions stay.
    await db.prisma.connectorPull.update({
      where: { id: running.id },
      data: { status: "completed", everyMinutes: 60, nextRunAt: new Date(Date.now() - 1000) },
    });
    expect(await deleteConnector(admin, { connectorId }, db.prisma)).toEqual({ deleted: connectorId });
    expect(await db.prisma.connectorPull.count({ where: { connectorId } })).toBe(0);
    expect((await listConnectors(admin, {}, db.prisma)).map((c) => c.name)).toEqual(["phoenix-other"]);
    expect(await db.prisma.session.count({ where: { format: "phoenix" } })).toBe(sessions);
    expect(STATUS[(await refusal(deleteConnector(admin, { connectorId }, db.prisma))).code]).toBe(404);
    expect(
      (await db.prisma.auditEvent.findMany({ where: { target: "phoenix-main" }, orderBy: { createdAt: "asc" } })).map(
        (a) => (a.detail as { change: string }).change,
      ),
    ).toEqual(["edited", "deleted"]);
    await deleteConnector(admin, { connectorId: other.id }, db.prisma);
  });
});
