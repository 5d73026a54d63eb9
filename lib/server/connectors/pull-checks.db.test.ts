/**
 * Sessions pulled through a connector take the import's after-import path: the online checks attached to their
 * agent judge each new one, and the agent's watches are evaluated; a trace found again is not judged again.
 * Against the local Phoenix server (./phoenix-testing.ts) and a local webhook receiver, on both engines.
 */
import { withKeyVariables } from "./testing";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { TEST_ENGINES, createTestDatabase, type TestDatabase } from "@/lib/db/testing";
import { PHOENIX_PROJECT, phoenixTrace } from "@/lib/ingest/__fixtures__/phoenix";
import { attachCheck } from "../checks/online";
import { localAdmin } from "../principal";
import { createWatch } from "../watches/watches";
import { createConnector, startPull } from "./connectors";
import { fakePhoenix } from "./phoenix-testing";

const KEY_ENV = "PHOENIX_PULL_CHECKS_TEST_API_KEY";
const API_KEY = "phx-test";
const FAST = { backoffMs: 10, maxRetries: 2, timeoutMs: 5_000 };
const EARLY = { fromTimestamp: "2026-11-20T09:00:00Z", toTimestamp: "2026-11-20T09:01:30Z" };
const ALL = { fromTimestamp: "2026-11-20T09:00:00Z", toTimestamp: "2026-11-20T10:00:00Z" };

describe.each(TEST_ENGINES)("pulled sessions after import on %s", (engine) => {
  let db: TestDatabase;
  const admin = localAdmin("ada");
  let server: Awaited<ReturnType<typeof fakePhoenix>>;
  const got: { text: string }[] = [];
  const receiver = createServer((req, res) => {
    let text = "";
    req.on("data", (c: Buffer) => (text += c.toString("utf8")));
    req.on("end", () => {
      got.push(JSON.parse(text) as { text: string });
      res.writeHead(200).end("ok");
    });
  });

  /** The pulled sessions, oldest trace first, with their agent's name. */
  const pulled = () =>
    db.prisma.session.findMany({
      where: { format: "phoenix" },
      orderBy: { externalId: "asc" },
      select: { id: true, agent: { select: { name: true } } },
    });

  let clearKeys: (() => void) | undefined;
  beforeAll(async () => {
    clearKeys = withKeyVariables({ [KEY_ENV]: API_KEY });
    db = await createTestDatabase(engine);
    server = await fakePhoenix({
      traces: [0, 1, 2, 3].map((k) => phoenixTrace(k)),
      apiKey: API_KEY,
      project: PHOENIX_PROJECT,
    });
    await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve));
    await db.prisma.allowedHost.create({ data: { host: "127.0.0.1" } });
  });
  afterAll(async () => {
    await server?.close();
    await new Promise<void>((resolve) => receiver.close(() => resolve()));
    await db?.drop();
    clearKeys?.();
  });

  it("an attached check judges each new pulled session once, and the agent's watch fires on them", async () => {
    const { id: connectorId } = await createConnector(
      admin,
      { kind: "phoenix", name: "phoenix-prod", baseUrl: server.url, project: PHOENIX_PROJECT, secretKeyEnv: KEY_ENV },
      db.prisma,
    );
    // Two traces pulled before any check is attached: stored, not judged.
    const first = await startPull(admin, { connectorId, filter: EARLY }, db.prisma, { client: FAST });
    expect(first.progress).toMatchObject({ traces: 2, imported: 2, duplicates: 0 });
    const early = await pulled();
    const agent = early[0]!.agent;

    // Every session calls lookup_order: this check fails each one it judges, and its failures make a cluster.
    const check = await db.prisma.check.create({
      data: { name: "never looks up", definition: { kind: "tool_not_called", tool: "lookup_order" } },
    });
    await attachCheck(admin, { checkId: check.id, agentName: agent.name }, db.prisma);
    const { port } = receiver.address() as AddressInfo;
    const watch = await createWatch(
      admin,
      {
        agentName: agent.name,
        name: "Pulled failures",
        condition: { kind: "new_cluster" },
        actions: { webhook: { url: `http://127.0.0.1:${port}/hook` } },
        windowSeconds: 60,
      },
      db.prisma,
    );

    // All four pulled: two found again, two new. Only the new ones are judged, once each.
    const second = await startPull(admin, { connectorId, filter: ALL }, db.prisma, { client: FAST, pageSize: 3 });
    expect(second.progress).toMatchObject({ pages: 2, traces: 4, imported: 2, duplicates: 2 });
    const stored = await pulled();
    const fresh = stored.filter((s) => !early.some((e) => e.id === s.id));
    const verdicts = await db.prisma.sessionCheckVerdict.findMany({
      where: { checkId: check.id },
      orderBy: { sessionId: "asc" },
      select: { sessionId: true, outcome: true },
    });
    expect(verdicts).toEqual(
      fresh.map((s) => ({ sessionId: s.id, outcome: "fail" })).sort((a, b) => a.sessionId.localeCompare(b.sessionId)),
    );

    // The watch was evaluated after each page: the first page's new session made the cluster, which fired once and
    // reached the receiver; the second page's, inside the watch's window, leaves an evaluation owed at its end.
    const triggers = await db.prisma.watchTrigger.findMany({ where: { watchId: watch.id } });
    expect(triggers.map((t) => t.key)).toEqual([expect.stringMatching(/^cluster:/) as string]);
    expect(got.map((g) => g.text)).toEqual([triggers[0]!.text]);
    expect(triggers[0]!.text).toMatch(/\(1 session\)\.$/);
    const owed = await db.prisma.watch.findUniqueOrThrow({ where: { id: watch.id }, select: { owedSince: true } });
    expect(owed.owedSince).toBeInstanceOf(Date);

    // Pulled again: nothing new, nothing judged again, nothing fired.
    const third = await startPull(admin, { connectorId, filter: ALL }, db.prisma, { client: FAST });
    expect(third.progress).toMatchObject({ traces: 4, imported: 0, duplicates: 4 });
    expect(await db.prisma.sessionCheckVerdict.count({ where: { checkId: check.id } })).toBe(2);
    expect(got).toHaveLength(1);
  }, 120_000);
});
