import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createApiKey, type Database } from "@/lib/db";
import { backfillClusters } from "@/lib/db/clusters";
import { TEST_ENGINES, createTestDatabase, type TestDatabase } from "@/lib/db/testing";
import { cohort, jsonlDocuments, type CohortSession } from "@/lib/clusters/testing";
import { importAndSave } from "@/lib/server/ingest/imports";
import { GET as listRoute } from "./route";
import { GET as getRoute, PATCH as renameRoute } from "./[id]/route";
import { GET as sessionsRoute } from "./[id]/sessions/route";
import { POST as splitRoute } from "./[id]/split/route";
import { POST as mergeRoute } from "./merge/route";
import { GET as fixesRoute, POST as tryFixRoute } from "./[id]/fixes/route";
import { GET as regressionsRoute } from "../regressions/route";
import type { PresentedCluster } from "@/lib/server/clusters/cluster-shared";
import type { Regressions } from "@/lib/server/clusters/regressions";

const PER_DOCUMENT = 100;
const global = globalThis as unknown as { __branchpointDb?: Promise<Database> };

// Shop: version 2.0 fails twice as often as 1.0, the growth in one class ("declined"). Steady: the same
// rates in both versions, different samples. 700 sessions in all (enough for a 20-point drop to be flagged
// on both rules, and few enough to import in seconds), with noise: passing sessions and
// sessions whose failed call a later call of the same tool recovered.
const SHOP = cohort({
  agent: "shop-agent",
  seed: 7,
  perVersion: {
    "1.0": {
      count: 200,
      mix: { declined: 0.05, not_found: 0.05, rate_limit: 0.04, timeout: 0.03, missing_file: 0.03 },
    },
    "2.0": {
      count: 200,
      mix: { declined: 0.25, not_found: 0.05, rate_limit: 0.04, timeout: 0.03, missing_file: 0.03 },
    },
  },
});
const STEADY = cohort({
  agent: "steady-agent",
  seed: 11,
  perVersion: {
    "1.0": { count: 150, mix: { declined: 0.1, not_found: 0.1 } },
    "1.1": { count: 150, mix: { declined: 0.1, not_found: 0.1 } },
  },
});

describe.each(TEST_ENGINES)("failure clusters and regressions on %s", (engine) => {
  let db: TestDatabase;
  let key: string;
  const ids = new Map<string, CohortSession>();

  async function importAll(sessions: readonly CohortSession[]) {
    // Documents of 100 sessions: each is one transaction, well inside the import's time limit on a busy machine.
    const docs = jsonlDocuments(sessions, PER_DOCUMENT);
    for (const [d, doc] of docs.entries()) {
      const result = await importAndSave(db.prisma, doc, { format: "native" });
      if (!result.ok) throw new Error(JSON.stringify(result.issues.slice(0, 3)));
      // Documents keep their sessions' order.
      for (const [i, s] of result.sessions.entries()) ids.set(s.id, sessions[d * PER_DOCUMENT + i]!);
    }
  }

  const call = async (
    handler: (r: Request, c: { params: Promise<never> }) => Promise<Response>,
    path: string,
    init: RequestInit = {},
    params: object = {},
  ) => {
    const response = await handler(
      new Request(`http://127.0.0.1${path}`, {
        ...init,
        headers: { authorization: `Bearer ${key}`, "content-type": "application/json", ...init.headers },
      }),
      { params: Promise.resolve(params as never) },
    );
    return { status: response.status, body: (await response.json()) as Record<string, unknown> };
  };

  const clustersOf = async (agentName: string) =>
    (await call(listRoute, `/api/v1/clusters?agentName=${agentName}`)).body.clusters as PresentedCluster[];

  /** Each cluster's members, as the classes they were generated from. */
  async function partition(agentName: string) {
    const out = new Map<string, string[]>();
    for (const c of await clustersOf(agentName)) {
      const classes: string[] = [];
      let cursor: string | null = null;
      do {
        const page = await call(
          sessionsRoute,
          `/api/v1/clusters/${c.id}/sessions?limit=200${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`,
          {},
          { id: c.id },
        );
        for (const s of page.body.sessions as { id: string; outcome: string | null }[]) {
          classes.push(ids.get(s.id)!.cls);
          // A member's own outcome is shown beside it: a failed call the run did not recover from fails the run.
          expect(s.outcome).toBe("failed");
        }
        cursor = page.body.nextCursor as string | null;
      } while (cursor);
      out.set(c.id, classes);
    }
    return out;
  }

  beforeAll(async () => {
    db = await createTestDatabase(engine);
    key = (await createApiKey(db.prisma, "script")).key;
    global.__branchpointDb = Promise.resolve(db);
    const started = Date.now();
    await importAll([...SHOP, ...STEADY]);
    console.log(`${engine}: imported ${SHOP.length + STEADY.length} sessions in ${Date.now() - started} ms`);
  }, 600_000);
  afterAll(async () => {
    global.__branchpointDb = undefined;
    await db?.drop();
  });

  it("recovers the failure classes exactly: one cluster per class, nothing else in it, sizes kept", async () => {
    for (const [agent, sessions] of [
      ["shop-agent", SHOP],
      ["steady-agent", STEADY],
    ] as const) {
      const clusters = await partition(agent);
      const expected = new Map<string, number>();
      for (const s of sessions)
        if (s.cls !== "passed" && s.cls !== "recovered") expected.set(s.cls, (expected.get(s.cls) ?? 0) + 1);
      const found = new Map<string, number>();
      for (const classes of clusters.values()) {
        expect(new Set(classes).size, `a cluster of ${agent} mixes ${[...new Set(classes)].join(", ")}`).toBe(1);
        expect(found.has(classes[0]!), `${classes[0]} is split over clusters`).toBe(false);
        found.set(classes[0]!, classes.length);
      }
      expect(found).toEqual(expected);
      // The maintained size is the members' count.
      for (const c of await clustersOf(agent)) expect(c.size).toBe(clusters.get(c.id)!.length);
    }
    const declined = (await clustersOf("shop-agent")).find((c) => c.signature.errorType === "PaymentDeclined")!;
    expect(declined.signature).toMatchObject({
      check: "",
      step: "tool:refund_payment",
      message: "Card ending <num> declined for <num> on order <id>",
    });
  });

  it("flags the version with a real drop, with the cluster that grew; not the one with the same rate", async () => {
    const shop = (await call(regressionsRoute, "/api/v1/regressions?agentName=shop-agent"))
      .body as unknown as Regressions;
    expect(shop.versions.map((v) => [v.version, v.total, v.passed])).toEqual([
      ["1.0", 200, 160],
      ["2.0", 200, 120],
    ]);
    expect(shop.regressions.map((v) => v.version)).toEqual(["2.0"]);
    expect(shop.versions[1]!.regression!.reasons).toEqual(["intervals_apart", "z_test"]);
    expect(shop.versions[1]!.grew[0]).toMatchObject({ before: 0.05, after: 0.25 });
    expect(shop.versions[1]!.grew[0]!.label).toContain("PaymentDeclined");
    expect(shop.days.reduce((n, d) => n + d.total, 0)).toBe(400);

    const steady = (await call(regressionsRoute, "/api/v1/regressions?agentName=steady-agent"))
      .body as unknown as Regressions;
    expect(steady.versions.map((v) => [v.version, v.total, v.passed])).toEqual([
      ["1.0", 150, 120],
      ["1.1", 150, 120],
    ]);
    expect(steady.regressions).toEqual([]);
  });

  it("keeps a rename, a merge and a split across new sessions and a recount", async () => {
    const before = await clustersOf("steady-agent");
    const declined = before.find((c) => c.signature.errorType === "PaymentDeclined")!;
    const notFound = before.find((c) => c.signature.errorType === "NotFound")!;

    const renamed = await call(
      renameRoute,
      `/api/v1/clusters/${declined.id}`,
      { method: "PATCH", body: JSON.stringify({ label: "Card declines" }) },
      { id: declined.id },
    );
    expect(renamed.body.cluster).toMatchObject({ label: "Card declines", named: true });

    // A fix tried on not-found (one member, the recording unchanged) stays with its sessions through the merge.
    const tried = await call(
      tryFixRoute,
      `/api/v1/clusters/${notFound.id}/fixes`,
      { method: "POST", body: JSON.stringify({ preset: "recorded-only", sample: 1 }) },
      { id: notFound.id },
    );
    expect(tried.status).toBe(202);
    // A smallest-fix search on it (stored as the API stores one) goes with them too.
    const search = await db.prisma.clusterFixSearch.create({
      data: { clusterId: notFound.id, params: {}, changes: [], status: "cancelled", createdBy: "test" },
    });

    // Merge not-found into declined: one cluster of both sizes; new not-found sessions land there too.
    const merged = await call(mergeRoute, "/api/v1/clusters/merge", {
      method: "POST",
      body: JSON.stringify({ targetId: declined.id, sourceIds: [notFound.id] }),
    });
    expect(merged.status).toBe(200);
    expect(merged.body.cluster).toMatchObject({
      id: declined.id,
      size: declined.size + notFound.size,
      label: "Card declines",
    });
    expect((await call(getRoute, `/api/v1/clusters/${notFound.id}`, {}, { id: notFound.id })).status).toBe(404);
    const kept = (await call(fixesRoute, `/api/v1/clusters/${declined.id}/fixes`, {}, { id: declined.id })).body
      .fixes as { experimentId: string }[];
    expect(kept.map((f) => f.experimentId)).toEqual([tried.body.experimentId]);
    expect(
      await db.prisma.clusterFixSearch.findUnique({ where: { id: search.id }, select: { clusterId: true } }),
    ).toEqual({ clusterId: declined.id });

    // Split ten sessions off: a new cluster keeps them; the original keeps the rest.
    const members = (
      await call(sessionsRoute, `/api/v1/clusters/${declined.id}/sessions?limit=10`, {}, { id: declined.id })
    ).body.sessions as { id: string }[];
    const split = await call(
      splitRoute,
      `/api/v1/clusters/${declined.id}/split`,
      { method: "POST", body: JSON.stringify({ sessionIds: members.map((m) => m.id), label: "Split off" }) },
      { id: declined.id },
    );
    expect(split.status).toBe(201);
    const splitId = (split.body.cluster as PresentedCluster).id;
    expect(split.body.cluster).toMatchObject({ size: 10, label: "Split off" });
    expect(split.body.from).toMatchObject({ size: declined.size + notFound.size - 10 });

    // New sessions of both signatures land in the merge target, not the split.
    const more = cohort({
      agent: "steady-agent",
      seed: 99,
      perVersion: { "1.2": { count: 20, mix: { declined: 0.5, not_found: 0.5 } } },
    }).map((s) => ({
      ...s,
      externalId: `more:${s.externalId}`,
      doc: { ...s.doc, externalId: `more:${s.externalId}` },
    }));
    await importAll(more);
    const after = new Map((await clustersOf("steady-agent")).map((c) => [c.id, c]));
    expect(after.get(declined.id)!.size).toBe(declined.size + notFound.size - 10 + 20);
    expect(after.get(splitId)!.size).toBe(10);

    // A recount from the stored rows (the start-up backfill run again) changes nothing an analyst did.
    await db.prisma.appSetting.deleteMany({ where: { key: "failure_clusters_backfilled" } });
    await backfillClusters(db.prisma, 300);
    const recounted = await partition("steady-agent");
    expect(new Map([...recounted].map(([id, m]) => [id, m.length]))).toEqual(
      new Map([...after].map(([id, c]) => [id, c.size])),
    );
  });

  it("refuses bad curation with the field at fault, writing nothing", async () => {
    const [a, b] = await clustersOf("shop-agent");
    const other = (await clustersOf("steady-agent"))[0]!;
    const cross = await call(mergeRoute, "/api/v1/clusters/merge", {
      method: "POST",
      body: JSON.stringify({ targetId: a!.id, sourceIds: [b!.id, other.id] }),
    });
    expect(cross.status).toBe(400);
    expect(cross.body.error).toMatchObject({ code: "invalid_input", issues: [{ path: "sourceIds[1]" }] });
    expect((await clustersOf("shop-agent")).find((c) => c.id === b!.id)!.size).toBe(b!.size);

    const stranger = await call(
      splitRoute,
      `/api/v1/clusters/${a!.id}/split`,
      { method: "POST", body: JSON.stringify({ sessionIds: ["nope"] }) },
      { id: a!.id },
    );
    expect(stranger.body.error).toMatchObject({ code: "invalid_input", issues: [{ path: "sessionIds[0]" }] });
    expect((await call(listRoute, "/api/v1/clusters?agentName=nobody")).status).toBe(404);
    expect((await call(listRoute, "/api/v1/clusters")).status).toBe(400);
    expect((await call(sessionsRoute, `/api/v1/clusters/${a!.id}/sessions?cursor=zzz`, {}, { id: a!.id })).status).toBe(
      400,
    );
  });

  it("keeps attacker-made messages apart: injected separators, __proto__, long Unicode", async () => {
    const base = (externalId: string, type: string, message: string) => ({
      externalId,
      agent: { name: "hostile-agent", adapter: "generic" },
      agentVersion: { version: "1", capabilities: [] },
      events: [
        {
          seq: 0,
          kind: "model_call",
          name: "m",
          input: { messages: [] },
          output: { role: "assistant", content: null, toolCalls: [{ id: "c", name: "__proto__", args: {} }] },
        },
        {
          seq: 1,
          kind: "tool_call",
          name: "__proto__",
          parentSeq: 0,
          input: { callId: "c", args: {} },
          error: { type, message },
        },
      ],
    });
    const long = "ж".repeat(50_000);
    const docs = [
      base("h1", "A", "B C"),
      base("h2", "A: B", "C"),
      base("h3", "constructor", "__proto__"),
      base("h4", "__proto__", "constructor"),
      base("h5", "E", `${long}x`),
      base("h6", "E", `${long}y`),
    ];
    const result = await importAndSave(db.prisma, docs.map((d) => JSON.stringify(d)).join("\n"), { format: "native" });
    expect(result.ok).toBe(true);
    const clusters = await clustersOf("hostile-agent");
    expect(clusters.map((c) => c.size)).toEqual([1, 1, 1, 1, 1, 1]);
    expect(clusters.every((c) => c.signature.step === "tool:__proto__")).toBe(true);
  });
});
