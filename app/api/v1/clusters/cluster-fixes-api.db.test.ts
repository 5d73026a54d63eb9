import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createApiKey, type Database } from "@/lib/db";
import { TEST_ENGINES, createTestDatabase, type TestDatabase } from "@/lib/db/testing";
import { wilsonInterval, type Policy } from "@/lib/replay";
import { GET as fixesGet, POST as fixesPost } from "./[id]/fixes/route";
import { GET as smallestList, POST as smallestPost } from "./[id]/fixes/smallest/route";
import { GET as smallestGet } from "./[id]/fixes/smallest/[searchId]/route";
import { POST as smallestCancel } from "./[id]/fixes/smallest/[searchId]/cancel/route";
import { requeueAbandonedFixSearches } from "@/lib/db/cluster-fix-searches";
import { jobHandlers } from "@/lib/server/job-handlers";
import { plugJobQueue, type JobQueue, type QueuedInvestigation } from "@/lib/server/job-queue";
import { localAdmin, systemPrincipal } from "@/lib/server/principal";
import { getExperiment } from "@/lib/server/experiments/experiments";
import { HISTORY, importSession, REFUND_DOC, refundCopy, savePolicy } from "@/lib/server/testing";
import { fixOfExperiment, type ClusterFixView } from "@/lib/server/clusters/cluster-fixes";
import { runFixSearch, type FixSearchProbe, type FixSearchView } from "@/lib/server/clusters/cluster-fix-search";

const global = globalThis as unknown as { __branchpointDb?: Promise<Database> };
const olga = localAdmin("olga");

/**
 * The refund demo's "returned order" failure: the order lookup says the order was returned, and the refund
 * call then fails (the payment service rejects a refund of a returned order) and the run ends there. Each
 * member has its own order number and return date, so they differ only inside the error's template.
 */
function returnedOrder(n: number): string {
  const order = String(5100 + n);
  const doc = JSON.parse(refundCopy(`returned-${n}`, order, `Returned order ${order}`)) as {
    events: { seq: number; status?: string; output?: unknown; error?: unknown }[];
  };
  const lookup = doc.events[1]!;
  lookup.output = { ...(lookup.output as object), status: "returned" };
  const refund = doc.events[6]!;
  refund.status = "failed";
  refund.output = null;
  refund.error = {
    type: "RefundRejected",
    message: `Order ${order} was returned on 2025-03-0${(n % 9) + 1}; refund of $129.00 refused`,
  };
  return JSON.stringify(doc);
}

/** Answers every refund call with a refusal the agent can read, instead of an error that ends the run. */
const STATIC_REFUSAL: Policy = {
  ...HISTORY,
  tools: {
    ...HISTORY.tools,
    overrides: {
      refund_payment: {
        type: "static",
        cases: [{ match_mode: "subset", result: { refunded: false, reason: "the order was returned" } }],
      },
    },
  },
};
/** Blocks every refund call: fixes nothing, and breaks every passing refund. */
const BLOCK_REFUNDS: Policy = {
  ...HISTORY,
  tools: { ...HISTORY.tools, overrides: { refund_payment: { type: "blocked" } } },
};

const MEMBERS = 5;
const PASSING = 4;

describe.each(TEST_ENGINES)("fixing a failure cluster on %s", (engine) => {
  let db: TestDatabase;
  let key: string;
  let clusterId: string;

  const call = async (handler: typeof fixesPost, id: string, init: RequestInit = {}) => {
    const response = await handler(
      new Request(`http://127.0.0.1/api/v1/clusters/${id}/fixes`, {
        ...init,
        headers: { authorization: `Bearer ${key}`, "content-type": "application/json", ...init.headers },
      }),
      { params: Promise.resolve({ id }) },
    );
    return { status: response.status, body: (await response.json()) as Record<string, unknown> };
  };
  const post = (id: string, body: unknown) =>
    call(fixesPost, id, { method: "POST", body: typeof body === "string" ? body : JSON.stringify(body) });
  const fixes = async () => (await call(fixesGet, clusterId)).body.fixes as ClusterFixView[];
  const counts = async () => ({
    experiments: await db.prisma.experiment.count(),
    replays: await db.prisma.replay.count(),
    fixes: await db.prisma.clusterFix.count(),
    policies: await db.prisma.policyVersion.count(),
  });

  beforeAll(async () => {
    db = await createTestDatabase(engine);
    key = (await createApiKey(db.prisma, "script")).key;
    global.__branchpointDb = Promise.resolve(db);
    for (let n = 0; n < MEMBERS; n++) await importSession(db.prisma, olga, returnedOrder(n));
    await importSession(db.prisma, olga, REFUND_DOC);
    for (let n = 1; n < PASSING; n++)
      await importSession(db.prisma, olga, refundCopy(`passing-${n}`, String(4900 + n)));
    const clusters = await db.prisma.failureCluster.findMany({ select: { id: true, size: true, step: true } });
    expect(clusters.map((c) => ({ size: c.size, step: c.step }))).toEqual([
      { size: MEMBERS, step: "tool:refund_payment" },
    ]);
    clusterId = clusters[0]!.id;
  }, 300_000);
  afterAll(async () => {
    global.__branchpointDb = undefined;
    await db?.drop();
  });

  it("a static override fixes every member of the returned-order cluster and breaks none of the control", async () => {
    const started = await post(clusterId, { policy: STATIC_REFUSAL, controlSample: 3, seed: 42 });
    expect(started.status).toBe(202);
    const experimentId = started.body.experimentId as string;
    expect(started.body.fix).toMatchObject({ experimentId, members: MEMBERS, control: 3, judge: { kind: "run" } });
    const [fix] = await fixes();
    expect(fix).toMatchObject({ experimentId, status: "completed", controlSample: 3, seed: 42, sample: null });
    const all = wilsonInterval(MEMBERS, MEMBERS);
    expect(fix!.figures.members).toEqual({
      count: MEMBERS,
      judged: MEMBERS,
      undecided: 0,
      pending: 0,
      rate: { passed: MEMBERS, total: MEMBERS, rate: 1, interval: { low: all.low, high: all.high } },
    });
    expect(fix!.figures.control).toMatchObject({ count: 0, judged: 3, undecided: 0, pending: 0 });
    expect(fix!.figures.sentence).toBe("fixes 5 of 5 (95% interval 57%–100%), breaks none of 3 control sessions");
    // The experiment is an ordinary one over an explicit list: the members and three passing sessions.
    const experiment = await getExperiment(olga, { experimentId }, db.prisma);
    expect(experiment).toMatchObject({ cohortKind: "sessions", status: "completed" });
    expect(experiment.results).toHaveLength(MEMBERS + 3);
    expect(experiment.policyVersion.policyName).toMatch(/^Cluster fix: refund_payment: RefundRejected/);
    expect((await fixOfExperiment(olga, { experimentId }, db.prisma))!.figures.sentence).toBe(fix!.figures.sentence);
    // The control sample is the passing sessions only, drawn again the same with the same seed.
    const again = await post(clusterId, { policyId: experiment.policyVersion.policyId, controlSample: 3, seed: 42 });
    expect(again.status).toBe(202);
    const [second, first] = await fixes();
    expect(second!.experimentId).toBe(again.body.experimentId);
    expect(second!.policy.versionId).toBe(first!.policy.versionId);
    expect(second!.figures.sentence).toBe(first!.figures.sentence);
  });

  it("counts what a fix breaks, and a sample of members drawn with a seed", async () => {
    const started = await post(clusterId, { policy: BLOCK_REFUNDS, sample: 2, controlSample: 10, seed: 7 });
    expect(started.status).toBe(202);
    expect(started.body.fix).toMatchObject({ members: 2, control: PASSING });
    const fix = (await fixes()).find((f) => f.experimentId === started.body.experimentId)!;
    expect(fix.figures.members).toMatchObject({ count: 0, judged: 2 });
    expect(fix.figures.control).toMatchObject({ count: PASSING, judged: PASSING });
    expect(fix.figures.sentence).toBe(
      `fixes 0 of 2 (95% interval 0%–66%), breaks ${PASSING} of ${PASSING} control sessions`,
    );
    // The recording unchanged reproduces every member's failure: nothing fixed.
    const recorded = await post(clusterId, { preset: "recorded-only" });
    const plain = (await fixes()).find((f) => f.experimentId === recorded.body.experimentId)!;
    expect(plain.figures.sentence).toBe("fixes 0 of 5 (95% interval 0%–43%), no control sample");
  });

  it("refuses hostile and wrong bodies with 400 and writes nothing; an unknown cluster is 404", async () => {
    const before = await counts();
    const policyVersionId = await savePolicy(db.prisma, "plain", HISTORY);
    const withPolicy = await counts();
    expect(withPolicy.policies).toBe(before.policies + 1);
    // [body, status, the field the answer names]
    const bad: [unknown, number, string][] = [
      ["{not json", 400, "malformed_json"],
      [{}, 400, "policyId"],
      [{ policy: HISTORY, preset: "recorded-only" }, 400, "policyId"],
      [`{"preset":"recorded-only","__proto__":{"sample":1}}`, 400, '__proto__\\"'],
      [{ preset: "recorded-only", sample: 0 }, 400, "sample"],
      [{ preset: "recorded-only", sample: 1e308 }, 400, "sample"],
      [{ preset: "recorded-only", controlSample: -1 }, 400, "controlSample"],
      [{ preset: "recorded-only", seed: 2 ** 40 }, 400, "seed"],
      [{ policy: { ...HISTORY, model: "nonsense" } }, 400, "policy.model"],
      [{ policy: { ...HISTORY, tools: { default: { type: "history" } } } }, 400, "policy.tools.default"],
      [{ preset: "recorded-only", name: "\ud800".repeat(300) }, 400, "name"],
      [{ preset: "no-such-level" }, 400, "preset"],
      [{ policyId: "no-such-policy" }, 404, "policyId"],
      // A policy version's id is not a policy's.
      [{ policyId: policyVersionId }, 404, "policyId"],
      // A live model needs a model endpoint, and none is configured.
      [{ preset: "recorded-only", model: "pinned-live" }, 400, "executor_missing"],
    ];
    for (const [body, status, named] of bad) {
      const answer = await post(clusterId, body);
      expect(answer.status, JSON.stringify(body).slice(0, 120)).toBe(status);
      expect(JSON.stringify(answer.body)).toContain(named);
    }
    expect(await counts()).toEqual(withPolicy);
    expect((await post("no-such-cluster", { preset: "recorded-only" })).status).toBe(404);
    expect((await call(fixesGet, "no-such-cluster")).status).toBe(404);
    expect(await counts()).toEqual(withPolicy);
  });

  /** The whole change: the static refusal that fixes, plus two changes that do not matter. */
  const WHOLE: Policy = {
    ...STATIC_REFUSAL,
    maxSteps: 100,
    tools: {
      ...STATIC_REFUSAL.tools,
      overrides: {
        get_current_time: {
          type: "static",
          cases: [{ match_mode: "subset", result: { iso: "2025-03-11T10:00:00Z" } }],
        },
        refund_payment: STATIC_REFUSAL.tools.overrides!.refund_payment!,
      },
    },
  };
  const CHANGES = ["get_current_time: static", "refund_payment: static", "run settings: maxSteps"];
  /** ddmin's probes over the three changes, as [kept, fixed, of]: the whole, a half, the other half, its half. */
  const PROBES = [
    [[0, 1, 2], 3, 3],
    [[0], 0, 3],
    [[1, 2], 3, 3],
    [[1], 3, 3],
  ];
  const searchUrl = (...parts: string[]) => `http://127.0.0.1/api/v1/clusters/${parts.join("/")}`;
  const send = async <P>(
    handler: (request: Request, context: { params: Promise<P> }) => Promise<Response>,
    params: P,
    init: RequestInit = {},
  ) => {
    const response = await handler(
      new Request(searchUrl(JSON.stringify(params)), {
        ...init,
        headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
      }),
      { params: Promise.resolve(params) },
    );
    return { status: response.status, body: (await response.json()) as Record<string, unknown> };
  };
  /** Starts a search with a queue that only records what it is given: the answer comes before any probe runs. */
  const startQueued = async (body: unknown) => {
    const queued: QueuedInvestigation[] = [];
    const queue: JobQueue = {
      enqueueReplays: async () => undefined,
      enqueueInvestigations: async (items) => void queued.push(...items),
    };
    plugJobQueue(queue);
    try {
      const answer = await send(smallestPost, { id: clusterId }, { method: "POST", body: JSON.stringify(body) });
      return { ...answer, queued };
    } finally {
      plugJobQueue(null);
    }
  };
  const run = (item: QueuedInvestigation, owner: string) =>
    jobHandlers.investigation(db.prisma, item, { owner, leaseMs: 3_000, maxAttempts: 3 });
  const readSearch = async (searchId: string) =>
    (await send(smallestGet, { id: clusterId, searchId })).body.search as FixSearchView;

  it("finds the smallest fixing change over the cluster as a job: 202 at once, then ddmin's probes, each a fix", async () => {
    const refused = await send(
      smallestPost,
      { id: clusterId },
      {
        method: "POST",
        body: JSON.stringify({ policy: HISTORY, base: HISTORY }),
      },
    );
    expect(refused.status).toBe(400);
    expect(JSON.stringify(refused.body)).toContain("nothing to minimise");
    const unknown = await send(
      smallestPost,
      { id: "no-such-cluster" },
      {
        method: "POST",
        body: JSON.stringify({ policy: WHOLE }),
      },
    );
    expect(unknown.status).toBe(404);
    expect(await db.prisma.clusterFixSearch.count()).toBe(0);

    const experiments = await db.prisma.experiment.count();
    const started = await startQueued({ policy: WHOLE, sample: 3, seed: 5 });
    expect(started.status).toBe(202);
    const searchId = started.body.searchId as string;
    const search = started.body.search as FixSearchView;
    expect(search).toMatchObject({
      id: searchId,
      clusterId,
      status: "queued",
      changes: CHANGES,
      sample: 3,
      seed: 5,
      progress: { probes: 0, atMost: 9 },
      probes: [],
      result: null,
      error: null,
    });
    expect(started.queued).toEqual([{ id: searchId, by: search.createdBy, kind: "fix-search" }]);
    // Nothing ran in the request.
    expect(await db.prisma.experiment.count()).toBe(experiments);

    await run(started.queued[0]!, "worker-1");
    const done = await readSearch(searchId);
    expect(done.status).toBe("done");
    expect(done.probes.map((p) => [p.kept, p.fixed, p.of])).toEqual(PROBES);
    expect(done.progress).toEqual({ probes: 4, atMost: 9 });
    expect(done.result).toEqual({
      kind: "minimal",
      kept: [1],
      changes: ["refund_payment: static"],
      fixed: 3,
      of: 3,
      experimentId: done.probes[3]!.experimentId,
      share: 1,
    });
    // Four probes, four experiments, each a fix of the cluster listed with its figures.
    expect(await db.prisma.experiment.count()).toBe(experiments + 4);
    const listed = new Set((await fixes()).map((f) => f.experimentId));
    for (const p of done.probes) expect(listed.has(p.experimentId)).toBe(true);
    const list = await send(smallestList, { id: clusterId });
    expect((list.body.searches as FixSearchView[]).map((s) => [s.id, s.status])).toEqual([[searchId, "done"]]);
    // An ended search cannot be cancelled; a search is read only through its own cluster.
    expect((await send(smallestCancel, { id: clusterId, searchId }, { method: "POST" })).status).toBe(409);
    expect((await send(smallestGet, { id: "another-cluster", searchId })).status).toBe(404);
    expect((await send(smallestGet, { id: clusterId, searchId: "no-such-search" })).status).toBe(404);
  });

  it("a worker lost mid-search is replaced: the next run goes on from the stored probes and runs none twice", async () => {
    const experiments = await db.prisma.experiment.count();
    const started = await startQueued({ policy: WHOLE, sample: 3, seed: 5 });
    const searchId = started.body.searchId as string;
    const item = started.queued[0]!;
    // The first worker loses its lease in the transaction that makes the third probe's experiment, with two probes
    // stored, as when a worker is killed right after and its lease runs out (a trigger takes the lease, so the
    // moment is the same on both engines). It stops at its next write and stores nothing more.
    await db.prisma.$executeRawUnsafe(`
      CREATE FUNCTION fix_search_lose_lease() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF NEW."leaseOwner" = 'worker-a' AND NEW."pendingProbe" IS NOT NULL AND jsonb_array_length(NEW.probes) = 2 THEN
          NEW."leaseOwner" := 'worker-gone';
          NEW."leaseUntil" := now() - interval '1 second';
        END IF;
        RETURN NEW;
      END $$`);
    await db.prisma.$executeRawUnsafe(`
      CREATE TRIGGER fix_search_lose_lease BEFORE UPDATE ON "ClusterFixSearch"
      FOR EACH ROW EXECUTE FUNCTION fix_search_lose_lease()`);
    const first = await runFixSearch(systemPrincipal(item.by), { searchId }, db.prisma, {
      owner: "worker-a",
      leaseMs: 3_000,
    }).finally(async () => {
      await db.prisma.$executeRawUnsafe(`DROP TRIGGER fix_search_lose_lease ON "ClusterFixSearch"`);
      await db.prisma.$executeRawUnsafe(`DROP FUNCTION fix_search_lose_lease()`);
    });
    expect(first).toBe("lease_lost");
    const lost = await db.prisma.clusterFixSearch.findUniqueOrThrow({ where: { id: searchId } });
    const snapshot = {
      probes: lost.probes as FixSearchProbe[],
      pending: lost.pendingProbe as { key: string; experimentId: string },
    };
    expect(snapshot.probes.map((p) => [p.kept, p.fixed, p.of])).toEqual(PROBES.slice(0, 2));
    expect(snapshot.pending.key).toBe("1,2");
    const left = await db.prisma.clusterFixSearch.findUniqueOrThrow({ where: { id: searchId } });
    expect({ status: left.status, attempts: left.attempts, probes: left.probes }).toEqual({
      status: "running",
      attempts: 1,
      probes: snapshot.probes,
    });
    // The sweeper puts it back on the queue; the next worker finishes it.
    expect(await requeueAbandonedFixSearches(db.prisma)).toEqual([{ id: searchId, createdBy: left.createdBy }]);
    await run(item, "worker-b");
    const done = await readSearch(searchId);
    expect(done.status).toBe("done");
    expect(done.probes.map((p) => [p.kept, p.fixed, p.of])).toEqual(PROBES);
    expect(done.probes.slice(0, 2)).toEqual(snapshot.probes);
    expect(done.result).toMatchObject({ kind: "minimal", kept: [1], fixed: 3, of: 3, share: 1 });
    const row = await db.prisma.clusterFixSearch.findUniqueOrThrow({ where: { id: searchId } });
    expect({ attempts: row.attempts, leaseOwner: row.leaseOwner, pendingProbe: row.pendingProbe }).toEqual({
      attempts: 2,
      leaseOwner: null,
      pendingProbe: null,
    });
    // The cut-off probe's experiment was reused: four experiments in all.
    expect(done.probes[2]!.experimentId).toBe(snapshot.pending.experimentId);
    expect(new Set(done.probes.map((p) => p.experimentId)).size).toBe(4);
    expect(await db.prisma.experiment.count()).toBe(experiments + 4);
  });

  it("a queued search is cancelled at once and never runs", async () => {
    const experiments = await db.prisma.experiment.count();
    const started = await startQueued({ policy: WHOLE, sample: 2, seed: 1 });
    const searchId = started.body.searchId as string;
    const cancelled = await send(smallestCancel, { id: clusterId, searchId }, { method: "POST" });
    expect(cancelled.status).toBe(200);
    expect(cancelled.body.search).toMatchObject({ status: "cancelled", cancelRequested: true, probes: [] });
    await run(started.queued[0]!, "worker-c");
    expect((await readSearch(searchId)).status).toBe("cancelled");
    expect(await db.prisma.experiment.count()).toBe(experiments);
  });

  it("a search cancelled while its worker is gone ends cancelled at the next claim, running nothing more", async () => {
    const experiments = await db.prisma.experiment.count();
    const started = await startQueued({ policy: WHOLE, sample: 2, seed: 1 });
    const searchId = started.body.searchId as string;
    // Its worker took it and stopped: running, the lease run out.
    await db.prisma.clusterFixSearch.update({
      where: { id: searchId },
      data: { status: "running", leaseOwner: "gone", leaseUntil: new Date(Date.now() - 1000) },
    });
    const cancelled = await send(smallestCancel, { id: clusterId, searchId }, { method: "POST" });
    expect([cancelled.status, cancelled.body.search]).toMatchObject([
      200,
      { status: "running", cancelRequested: true },
    ]);
    await run(started.queued[0]!, "worker-d");
    expect((await readSearch(searchId)).status).toBe("cancelled");
    expect(await db.prisma.experiment.count()).toBe(experiments);
  });
});
