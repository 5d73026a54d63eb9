/**
 * The connectors API end to end on both engines: an admin adds a Langfuse connector, an analyst's pull goes on
 * the job queue and a worker runs it to the end while the client polls; a pull left by a dead worker is put
 * back by the sweeper and finishes; a bad filter is a 400 naming the field. LangSmith, Phoenix and Braintrust
 * connectors are added and pulled the same way. Langfuse export files import
 * through POST /api/v1/sessions (JSON Lines, streamed) and a second upload finds the same sessions.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createApiKey, type Database } from "@/lib/db";
import { TEST_ENGINES, createTestDatabase, type TestDatabase } from "@/lib/db/testing";
import { supportTraces } from "@/lib/ingest/__fixtures__/langfuse";
import { PROJECT_ID, supportRunTraces } from "@/lib/ingest/__fixtures__/langsmith";
import { PHOENIX_PROJECT, phoenixTrace } from "@/lib/ingest/__fixtures__/phoenix";
import { BRAINTRUST_PROJECT, braintrustTrace } from "@/lib/ingest/__fixtures__/braintrust";
import { startJobs, type Jobs } from "@/lib/jobs/queue";
import { fakeLangSmith } from "@/lib/server/connectors/langsmith-testing";
import { fakePhoenix } from "@/lib/server/connectors/phoenix-testing";
import { fakeBraintrust } from "@/lib/server/connectors/braintrust-testing";
import { fakeLangfuse, withKeyVariables } from "@/lib/server/connectors/testing";
import { jobHandlers } from "@/lib/server/job-handlers";
import { plugJobQueue } from "@/lib/server/job-queue";
import { POST as importSessions } from "../sessions/route";
import { POST as cancelPullRoute } from "./[id]/pulls/[pullId]/cancel/route";
import { GET as getPull } from "./[id]/pulls/[pullId]/route";
import { DELETE as deleteConnector, PATCH as editConnector } from "./[id]/route";
import { POST as startPull } from "./[id]/pulls/route";
import { GET as listConnectors, POST as addConnector } from "./route";

const global = globalThis as unknown as { __branchpointDb?: Promise<Database> };
const SECRET_ENV = "LANGFUSE_API_TEST_SECRET_KEY";
const LANGSMITH_ENV = "LANGSMITH_API_TEST_API_KEY";
/** Named on the allow-list but never set: a self-hosted Phoenix without auth. */
const PHOENIX_ENV = "PHOENIX_API_TEST_API_KEY";
const BRAINTRUST_ENV = "BRAINTRUST_API_TEST_API_KEY";

describe.each(TEST_ENGINES)("the connectors API on %s", (engine) => {
  let db: TestDatabase;
  let key: string;
  let jobs: Jobs;
  let server: Awaited<ReturnType<typeof fakeLangfuse>>;
  let langsmith: Awaited<ReturnType<typeof fakeLangSmith>>;
  let phoenix: Awaited<ReturnType<typeof fakePhoenix>>;
  let braintrust: Awaited<ReturnType<typeof fakeBraintrust>>;
  let clearKeys: (() => void) | undefined;
  beforeAll(async () => {
    clearKeys = withKeyVariables({
      [SECRET_ENV]: "sk-lf-api",
      [LANGSMITH_ENV]: "lsv2-api",
      [PHOENIX_ENV]: undefined,
      [BRAINTRUST_ENV]: "sk-bt-api",
    });
    db = await createTestDatabase(engine);
    key = (await createApiKey(db.prisma, "script")).key;
    global.__branchpointDb = Promise.resolve(db);
    server = await fakeLangfuse({ traces: supportTraces(4, "api"), publicKey: "pk-lf-api", secretKey: "sk-lf-api" });
    langsmith = await fakeLangSmith({ traces: supportRunTraces(5, "ls-api"), apiKey: "lsv2-api", project: PROJECT_ID });
    phoenix = await fakePhoenix({
      traces: [1, 2, 3].map((n) => phoenixTrace(n)),
      apiKey: "",
      project: PHOENIX_PROJECT,
    });
    braintrust = await fakeBraintrust({
      traces: [1, 2, 3].map((n) => braintrustTrace(n, n === 2 ? { rootError: "ValueError: no order" } : {})),
      apiKey: "sk-bt-api",
      project: BRAINTRUST_PROJECT,
    });
    await db.prisma.allowedHost.create({ data: { host: "127.0.0.1" } });
    jobs = await startJobs(db, { work: true, handlers: jobHandlers, log: () => undefined, leaseMs: 2_000 });
    plugJobQueue(jobs);
  }, 120_000);
  afterAll(async () => {
    plugJobQueue(null);
    await jobs?.stop();
    await server?.close();
    await langsmith?.close();
    await phoenix?.close();
    await braintrust?.close();
    global.__branchpointDb = undefined;
    await db?.drop();
    clearKeys?.();
  });

  const call = async <P>(
    handler: (request: Request, context: { params: Promise<P> }) => Promise<Response>,
    path: string,
    params: P,
    init: { method?: string; body?: string; type?: string } = {},
  ) => {
    const response = await handler(
      new Request(`http://127.0.0.1${path}`, {
        method: init.method ?? "GET",
        // The import routes check the Host header themselves (a browser and curl always send one).
        headers: { authorization: `Bearer ${key}`, "content-type": init.type ?? "application/json", host: "127.0.0.1" },
        ...(init.body !== undefined ? { body: init.body } : {}),
      }),
      { params: Promise.resolve(params) },
    );
    return { status: response.status, body: (await response.json()) as Record<string, unknown> };
  };
  const poll = async (connectorId: string, pullId: string) => {
    // Up to 90 s: the database tests run beside the end-to-end suite on two cores.
    for (const deadline = Date.now() + 90_000; Date.now() < deadline;) {
      const { body } = await call(getPull, `/api/v1/connectors/${connectorId}/pulls/${pullId}`, {
        id: connectorId,
        pullId,
      });
      const pull = body.pull as { status: string };
      if (pull.status !== "queued" && pull.status !== "running") return body.pull as Record<string, unknown>;
      await new Promise((r) => setTimeout(r, 100));
    }
    throw new Error("the pull did not end");
  };

  it("adds a connector, runs a pull as a job while the client polls, and a dead worker's pull is taken over", async () => {
    const added = await call(
      addConnector,
      "/api/v1/connectors",
      {},
      {
        method: "POST",
        body: JSON.stringify({
          name: "lf",
          kind: "langfuse",
          baseUrl: server.url,
          publicKey: "pk-lf-api",
          secretKeyEnv: SECRET_ENV,
        }),
      },
    );
    expect(added.status).toBe(201);
    const connectorId = (added.body.connector as { id: string }).id;
    expect((await call(listConnectors, "/api/v1/connectors", {})).body.connectors).toMatchObject([
      { id: connectorId, name: "lf", secretSet: true, hostAllowed: true },
    ]);

    const bad = await call(
      startPull,
      `/api/v1/connectors/${connectorId}/pulls`,
      { id: connectorId },
      {
        method: "POST",
        body: '{"filter":{"fromTimestamp":"last week","__proto__":{"x":1}}}',
      },
    );
    expect(bad.status).toBe(400);
    expect((bad.body.error as { issues: { path: string }[] }).issues.map((i) => i.path)).toContain(
      "filter.fromTimestamp",
    );

    const started = await call(
      startPull,
      `/api/v1/connectors/${connectorId}/pulls`,
      { id: connectorId },
      {
        method: "POST",
        body: JSON.stringify({ filter: { tags: ["prod"], fromTimestamp: "2026-11-19T00:00:00Z" } }),
      },
    );
    expect(started.status).toBe(201);
    const pullId = (started.body.pull as { id: string; status: string }).id;
    expect(["queued", "running"]).toContain((started.body.pull as { status: string }).status);
    expect(await poll(connectorId, pullId)).toMatchObject({
      status: "completed",
      progress: { traces: 4, imported: 4, duplicates: 0, refused: 0 },
    });

    // A pull whose worker died mid-way: running, its lease run out. The sweeper queues it again; it finishes.
    const orphan = await db.prisma.connectorPull.create({
      data: {
        connectorId,
        filter: { tags: ["prod"], toTimestamp: "2026-12-01T00:00:00Z" },
        status: "running",
        leaseOwner: "gone",
        leaseUntil: new Date(Date.now() - 1000),
        cursor: { page: 1, lastTraceId: "api-001" },
        progress: { pages: 0, traces: 2, imported: 0, duplicates: 2, refused: 0, retries: 0 },
      },
    });
    // The queue's own sweeper may take it first (it runs on a timer): either way it is queued again.
    await jobs.sweep();
    expect(await poll(connectorId, orphan.id)).toMatchObject({
      status: "completed",
      cursor: { page: 1, lastTraceId: "api-003" },
      progress: { traces: 4, imported: 0, duplicates: 4 },
    });
    expect(await db.prisma.session.count({ where: { format: "langfuse" } })).toBe(4);
  }, 240_000);

  it("imports a Langfuse export file (JSON Lines) through POST /api/v1/sessions, named or detected", async () => {
    const traces = supportTraces(3, "file");
    const jsonl = traces.map((t) => JSON.stringify(t)).join("\n");
    const first = await call(
      importSessions,
      "/api/v1/sessions?format=langfuse",
      {},
      {
        method: "POST",
        body: jsonl,
        type: "application/x-ndjson",
      },
    );
    expect([first.status, first.body.format, (first.body.sessions as unknown[]).length]).toEqual([201, "langfuse", 3]);
    const again = await call(importSessions, "/api/v1/sessions", {}, { method: "POST", body: JSON.stringify(traces) });
    expect([again.status, again.body.format]).toEqual([201, "langfuse"]);
    expect((again.body.sessions as { duplicate?: boolean }[]).map((s) => s.duplicate)).toEqual([true, true, true]);
    const broken = await call(
      importSessions,
      "/api/v1/sessions?format=langfuse",
      {},
      {
        method: "POST",
        body: JSON.stringify({ ...traces[0], id: 7 }),
      },
    );
    expect([broken.status, (broken.body.error as { issues: unknown[] }).issues]).toEqual([
      400,
      [{ path: "id", message: "a trace needs its id (a non-empty string)" }],
    ]);
  });

  it("adds a LangSmith connector and pulls a project's failed runs as a job; a Langfuse-only filter is a 400", async () => {
    const add = (body: Record<string, unknown>) =>
      call(addConnector, "/api/v1/connectors", {}, { method: "POST", body: JSON.stringify(body) });
    const input = {
      name: "ls",
      kind: "langsmith",
      baseUrl: langsmith.url,
      project: PROJECT_ID,
      secretKeyEnv: LANGSMITH_ENV,
    };
    const withKey = await add({ ...input, publicKey: "pk" });
    expect([withKey.status, (withKey.body.error as { issues: unknown[] }).issues]).toEqual([
      400,
      [{ path: "", message: 'Unrecognized key: "publicKey"' }],
    ]);
    const added = await add(input);
    expect(added.status).toBe(201);
    const connector = added.body.connector as { id: string };
    expect(connector).toMatchObject({ kind: "langsmith", project: PROJECT_ID, publicKey: null, secretSet: true });
    const pulls = `/api/v1/connectors/${connector.id}/pulls`;
    const start = (filter: unknown) =>
      call(startPull, pulls, { id: connector.id }, { method: "POST", body: JSON.stringify({ filter }) });
    const bad = await start({ sessionId: "s-1" });
    expect([bad.status, (bad.body.error as { message: string }).message]).toEqual([
      400,
      "A LangSmith pull cannot filter by sessionId; it filters by fromTimestamp, toTimestamp, tags, name, error, query, traceIds.",
    ]);
    const started = await start({ tags: ["prod"], error: true, query: 'eq(name, "support-agent")' });
    expect(started.status).toBe(201);
    // Of five traces, the agent raised in the first and the fourth.
    expect(await poll(connector.id, (started.body.pull as { id: string }).id)).toMatchObject({
      status: "completed",
      progress: { traces: 2, imported: 2, refused: 0 },
    });
    const stored = await db.prisma.session.findMany({ where: { format: "langsmith" }, orderBy: { externalId: "asc" } });
    expect(stored.map((s) => [s.externalId, s.eventCount])).toEqual([
      ["ls-api-000", 5],
      ["ls-api-003", 5],
    ]);
  }, 120_000);

  it("imports a LangSmith runs export through POST /api/v1/sessions, detected or named, and finds it again", async () => {
    const runs = supportRunTraces(3, "ls-file").flat();
    const detected = await call(importSessions, "/api/v1/sessions", {}, { method: "POST", body: JSON.stringify(runs) });
    expect([detected.status, detected.body.format, (detected.body.sessions as unknown[]).length]).toEqual([
      201,
      "langsmith",
      3,
    ]);
    const jsonl = runs.map((r) => JSON.stringify(r)).join("\n");
    const again = await call(
      importSessions,
      "/api/v1/sessions?format=langsmith",
      {},
      { method: "POST", body: jsonl, type: "application/x-ndjson" },
    );
    expect([again.status, again.body.format]).toEqual([201, "langsmith"]);
    expect((again.body.sessions as { duplicate?: boolean }[]).map((s) => s.duplicate)).toEqual([true, true, true]);
    const broken = await call(
      importSessions,
      "/api/v1/sessions?format=langsmith",
      {},
      { method: "POST", body: JSON.stringify([{ ...runs[0], start_time: "noon" }, ...runs.slice(1)]) },
    );
    expect([broken.status, (broken.body.error as { issues: unknown[] }).issues]).toEqual([
      400,
      [{ path: "[0].start_time", message: "must be an ISO 8601 date-time or epoch milliseconds" }],
    ]);
    expect(await db.prisma.session.count({ where: { externalId: { startsWith: "ls-file" } } })).toBe(3);
  });

  it("adds a Phoenix connector without a key (self-hosted), pulls its traces as a job and imports its span exports", async () => {
    const input = {
      name: "phx",
      kind: "phoenix",
      baseUrl: phoenix.url,
      project: PHOENIX_PROJECT,
      secretKeyEnv: PHOENIX_ENV,
    };
    const added = await call(addConnector, "/api/v1/connectors", {}, { method: "POST", body: JSON.stringify(input) });
    expect([added.status, added.body.connector]).toEqual([
      201,
      expect.objectContaining({ kind: "phoenix", project: PHOENIX_PROJECT, secretSet: false }),
    ]);
    const id = (added.body.connector as { id: string }).id;
    const pulls = `/api/v1/connectors/${id}/pulls`;
    const started = await call(startPull, pulls, { id }, { method: "POST", body: JSON.stringify({ filter: {} }) });
    expect(started.status).toBe(201);
    expect(await poll(id, (started.body.pull as { id: string }).id)).toMatchObject({
      status: "completed",
      progress: { traces: 3, imported: 3, refused: 0 },
    });
    const spans = [4, 5].flatMap((n) => phoenixTrace(n));
    const file = await call(importSessions, "/api/v1/sessions", {}, { method: "POST", body: JSON.stringify(spans) });
    expect([file.status, file.body.format, (file.body.sessions as unknown[]).length]).toEqual([201, "phoenix", 2]);
    const again = await call(
      importSessions,
      "/api/v1/sessions?format=phoenix",
      {},
      { method: "POST", body: JSON.stringify({ data: phoenixTrace(1), next_cursor: null }) },
    );
    expect((again.body.sessions as { duplicate?: boolean }[]).map((s) => s.duplicate)).toEqual([true]);
    expect(await db.prisma.session.count({ where: { format: "phoenix" } })).toBe(5);
  }, 120_000);

  it("adds a Braintrust connector, pulls a project's failed runs as a job and imports its log exports", async () => {
    const input = {
      name: "bt",
      kind: "braintrust",
      baseUrl: braintrust.url,
      project: BRAINTRUST_PROJECT,
      secretKeyEnv: BRAINTRUST_ENV,
    };
    const added = await call(addConnector, "/api/v1/connectors", {}, { method: "POST", body: JSON.stringify(input) });
    expect([added.status, added.body.connector]).toEqual([
      201,
      expect.objectContaining({ kind: "braintrust", project: BRAINTRUST_PROJECT, publicKey: null, secretSet: true }),
    ]);
    const id = (added.body.connector as { id: string }).id;
    const pulls = `/api/v1/connectors/${id}/pulls`;
    const start = (filter: unknown) =>
      call(startPull, pulls, { id }, { method: "POST", body: JSON.stringify({ filter }) });
    const bad = await start({ userId: "u-1" });
    expect([bad.status, (bad.body.error as { message: string }).message]).toEqual([
      400,
      "A Braintrust pull cannot filter by userId; it filters by fromTimestamp, toTimestamp, tags, name, error, query, experiment, traceIds.",
    ]);
    const started = await start({ tags: ["prod"], error: true });
    expect(started.status).toBe(201);
    expect(await poll(id, (started.body.pull as { id: string }).id)).toMatchObject({
      status: "completed",
      progress: { traces: 1, imported: 1, refused: 0 },
    });
    const pulled = await db.prisma.session.findMany({ where: { format: "braintrust" } });
    expect(pulled.map((s) => [s.externalId, s.eventCount])).toEqual([["root-0002", 5]]);

    const rows = [1, 4].flatMap((n) => braintrustTrace(n));
    const file = await call(importSessions, "/api/v1/sessions", {}, { method: "POST", body: JSON.stringify(rows) });
    expect([file.status, file.body.format, (file.body.sessions as unknown[]).length]).toEqual([201, "braintrust", 2]);
    const again = await call(
      importSessions,
      "/api/v1/sessions?format=braintrust",
      {},
      {
        method: "POST",
        body: braintrustTrace(2)
          .map((r) => JSON.stringify(r))
          .join("\n"),
        type: "application/x-ndjson",
      },
    );
    expect([again.status, again.body.format]).toEqual([201, "braintrust"]);
    expect((again.body.sessions as { duplicate?: boolean }[]).map((s) => s.duplicate)).toEqual([true]);
    expect(await db.prisma.session.count({ where: { format: "braintrust" } })).toBe(3);
  }, 120_000);

  it("a scheduled pull hands its schedule on once when due, reading from where it ended; cancelling stops it", async () => {
    const input = { name: "bt-hourly", kind: "braintrust", baseUrl: braintrust.url, project: BRAINTRUST_PROJECT };
    const added = await call(
      addConnector,
      "/api/v1/connectors",
      {},
      { method: "POST", body: JSON.stringify({ ...input, secretKeyEnv: BRAINTRUST_ENV }) },
    );
    const id = (added.body.connector as { id: string }).id;
    const pulls = `/api/v1/connectors/${id}/pulls`;
    const start = (body: unknown) => call(startPull, pulls, { id }, { method: "POST", body: JSON.stringify(body) });
    for (const [everyMinutes, message] of [
      [4, "A schedule repeats at most every 5 minutes."],
      [10081, "A schedule repeats at least once a week (10080 minutes)."],
      [7.5, "everyMinutes must be a whole number of minutes."],
    ] as const) {
      const bad = await start({ filter: {}, schedule: { everyMinutes } });
      expect([bad.status, (bad.body.error as { issues: unknown[] }).issues]).toEqual([
        400,
        [{ path: "schedule.everyMinutes", message }],
      ]);
    }
    const before = Date.now();
    const started = await start({ filter: { tags: ["prod"] }, schedule: { everyMinutes: 60 } });
    expect(started.status).toBe(201);
    const firstId = (started.body.pull as { id: string }).id;
    const first = (await poll(id, firstId)) as { filter: { toTimestamp: string }; schedule: { nextRunAt: string } };
    expect(first).toMatchObject({ status: "completed", progress: { traces: 3 }, schedule: { everyMinutes: 60 } });
    expect(Date.parse(first.schedule.nextRunAt) - before).toBeGreaterThanOrEqual(3_600_000);
    expect(Date.parse(first.schedule.nextRunAt) - Date.now()).toBeLessThanOrEqual(3_600_000);
    // Due now: the queue's sweep (its timer, or this call) starts the next pull, once.
    await db.prisma.connectorPull.update({ where: { id: firstId }, data: { nextRunAt: new Date(Date.now() - 1000) } });
    await Promise.all([jobs.sweep(), jobs.sweep()]);
    await jobs.sweep();
    const rows = await db.prisma.connectorPull.findMany({ where: { connectorId: id }, orderBy: { createdAt: "asc" } });
    expect(rows.map((r) => [r.id === firstId, r.everyMinutes, r.nextRunAt === null])).toEqual([
      [true, 60, true],
      [false, 60, false],
    ]);
    const next = (await poll(id, rows[1]!.id)) as { filter: { fromTimestamp: string; tags: string[] } };
    expect(next).toMatchObject({
      status: "completed",
      // Ten minutes back (the default lookback) for the traces indexed late.
      filter: { fromTimestamp: new Date(Date.parse(first.filter.toTimestamp) - 600_000).toISOString(), tags: ["prod"] },
      progress: { traces: 0 },
      schedule: { everyMinutes: 60, nextRunAt: expect.any(String) as string },
    });
    const cancel = await call(
      cancelPullRoute,
      `${pulls}/${rows[1]!.id}/cancel`,
      { id, pullId: rows[1]!.id },
      { method: "POST" },
    );
    expect([cancel.status, cancel.body.pull]).toMatchObject([
      200,
      { status: "completed", schedule: { everyMinutes: 60, nextRunAt: null } },
    ]);
    await jobs.sweep();
    expect(await db.prisma.connectorPull.count({ where: { connectorId: id } })).toBe(2);
    const again = await call(
      cancelPullRoute,
      `${pulls}/${rows[1]!.id}/cancel`,
      { id, pullId: rows[1]!.id },
      { method: "POST" },
    );
    expect(again.status).toBe(409);

    // A cancel that lands while a scheduled pull runs ends the schedule at once, whatever the run still ends as.
    const soon = new Date(Date.now() + 60_000);
    // (held by a worker elsewhere, so no sweep takes it back meanwhile)
    await db.prisma.connectorPull.update({
      where: { id: rows[1]!.id },
      data: { status: "running", nextRunAt: soon, leaseOwner: "elsewhere", leaseUntil: soon },
    });
    const running = await call(
      cancelPullRoute,
      `${pulls}/${rows[1]!.id}/cancel`,
      { id, pullId: rows[1]!.id },
      { method: "POST" },
    );
    expect([running.status, running.body.pull]).toMatchObject([
      200,
      { status: "running", schedule: { everyMinutes: 60, nextRunAt: null } },
    ]);
    // And a pull that carries a cancel request never hands its schedule on, even when it ended completed and due.
    await db.prisma.connectorPull.update({
      where: { id: rows[1]!.id },
      data: { status: "completed", nextRunAt: new Date(Date.now() - 1000), leaseOwner: null, leaseUntil: null },
    });
    await jobs.sweep();
    expect(await db.prisma.connectorPull.count({ where: { connectorId: id } })).toBe(2);
  }, 120_000);

  it("edits a connector with PATCH and deletes it with DELETE, a 409 while a pull of it runs", async () => {
    const body = { name: "ph-edit", kind: "phoenix", baseUrl: phoenix.url, project: "p", secretKeyEnv: PHOENIX_ENV };
    const added = await call(addConnector, "/api/v1/connectors", {}, { method: "POST", body: JSON.stringify(body) });
    const id = (added.body.connector as { id: string }).id;
    const path = `/api/v1/connectors/${id}`;
    const edit = (change: unknown) =>
      call(editConnector, path, { id }, { method: "PATCH", body: JSON.stringify(change) });
    expect([
      (await edit({ kind: "langfuse" })).status,
      (await edit({ name: "ph-renamed" })).body.connector,
    ]).toMatchObject([400, { id, name: "ph-renamed", kind: "phoenix" }]);
    const run = await db.prisma.connectorPull.create({ data: { connectorId: id, filter: {}, status: "queued" } });
    const busy = await call(deleteConnector, path, { id }, { method: "DELETE" });
    expect([busy.status, (busy.body.error as { code: string }).code]).toEqual([409, "wrong_state"]);
    await db.prisma.connectorPull.update({ where: { id: run.id }, data: { status: "cancelled" } });
    expect(await call(deleteConnector, path, { id }, { method: "DELETE" })).toEqual({
      status: 200,
      body: { deleted: id },
    });
    expect((await call(deleteConnector, path, { id }, { method: "DELETE" })).status).toBe(404);
  });
});
