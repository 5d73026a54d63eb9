import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createApiKey, type Database } from "@/lib/db";
import { TEST_ENGINES, createTestDatabase, type TestDatabase } from "@/lib/db/testing";
import { parseInput } from "@/lib/errors";
import { RECOMMENDED_RCA_POLICY, type Policy } from "@/lib/replay";
import { createCheck, CreateCheckInput } from "@/lib/server/checks/counterfactual";
import { attachCheck, AttachCheckInput } from "@/lib/server/checks/online";
import type { ClusterFixView } from "@/lib/server/clusters/cluster-fixes";
import { localAdmin } from "@/lib/server/principal";
import { importSession, refundCopy } from "@/lib/server/testing";
import { refundAgentScript, REFUND_SESSION, startScriptedModel, type ScriptedModel } from "@/scripts/scripted-model";
import { GET as fixesGet, POST as fixesPost } from "./[id]/fixes/route";

const global = globalThis as unknown as { __branchpointDb?: Promise<Database> };
const olga = localAdmin("olga");
const AGENT = "harbor-pine-returns";

/** The returns desk's refund session: the order service said "delivered" for an order already returned, and the agent refunded it again. */
function secondRefund(n: number): string {
  const doc = JSON.parse(refundCopy(`second-refund-${n}`, String(6100 + n))) as { agent: { name: string } };
  doc.agent.name = AGENT;
  return JSON.stringify(doc);
}

/** A passing session of the same agent: the agent offered the refund and the conversation ended there. */
function offerOnly(n: number): string {
  const doc = JSON.parse(refundCopy(`offer-${n}`, String(6200 + n))) as {
    agent: { name: string };
    events: Record<string, unknown>[];
  };
  doc.agent.name = AGENT;
  const final = { ...doc.events[8]!, seq: 4, parentSeq: 3, output: REFUND_SESSION.confirm };
  doc.events = [...doc.events.slice(0, 4), final];
  return JSON.stringify(doc);
}

/** The fixed order service: every lookup answers that the order was returned. The model runs live from where its input changed. */
const RETURNED_LOOKUP: Policy = {
  ...RECOMMENDED_RCA_POLICY,
  model: "recorded-until-divergence",
  tools: {
    default: { type: "history", scope: "baseline", on_miss: "fail" },
    overrides: {
      lookup_order: {
        type: "static",
        cases: [{ match_mode: "subset", result: { order_id: "4821", status: "returned", total: 129 } }],
      },
    },
  },
};

const MEMBERS = 4;
const PASSING = 3;

describe.each(TEST_ENGINES)("fixing a cluster judged by its failing check on %s", (engine) => {
  let db: TestDatabase;
  let key: string;
  let model: ScriptedModel;
  let clusterId: string;

  const call = async (handler: typeof fixesPost, init: RequestInit = {}) => {
    const response = await handler(
      new Request(`http://127.0.0.1/api/v1/clusters/${clusterId}/fixes`, {
        ...init,
        headers: { authorization: `Bearer ${key}`, "content-type": "application/json", ...init.headers },
      }),
      { params: Promise.resolve({ id: clusterId }) },
    );
    return { status: response.status, body: (await response.json()) as Record<string, unknown> };
  };

  beforeAll(async () => {
    db = await createTestDatabase(engine);
    key = (await createApiKey(db.prisma, "script")).key;
    global.__branchpointDb = Promise.resolve(db);
    model = await startScriptedModel({ script: refundAgentScript() });
    await db.prisma.modelEndpoint.create({
      data: { name: "scripted", baseUrl: model.baseUrl, model: "gpt-4.1-2025-04-14" },
    });
    await db.prisma.allowedHost.create({ data: { host: model.host } });
    // The agent exists once its first session is in; the check judges every session imported after it is attached.
    await importSession(db.prisma, olga, offerOnly(0));
    const check = await createCheck(
      olga,
      parseInput(CreateCheckInput, {
        name: "no second refund",
        definition: { kind: "tool_not_called", tool: "refund_payment" },
      }),
      db.prisma,
    );
    await attachCheck(olga, parseInput(AttachCheckInput, { checkId: check.id, agentName: AGENT }), db.prisma);
    for (let n = 0; n < MEMBERS; n++) await importSession(db.prisma, olga, secondRefund(n));
    for (let n = 1; n < PASSING; n++) await importSession(db.prisma, olga, offerOnly(n));
    const clusters = await db.prisma.failureCluster.findMany({ select: { id: true, size: true, check: true } });
    expect(clusters.map((c) => ({ size: c.size, check: c.check }))).toEqual([
      { size: MEMBERS, check: "no second refund" },
    ]);
    clusterId = clusters[0]!.id;
  }, 300_000);
  afterAll(async () => {
    global.__branchpointDb = undefined;
    await model?.close();
    await db?.drop();
  });

  it("fixed means the branch passes the cluster's failing check: the fixed lookup fixes all, breaks none", async () => {
    const started = await call(fixesPost, {
      method: "POST",
      body: JSON.stringify({ policy: RETURNED_LOOKUP, controlSample: PASSING, seed: 3 }),
    });
    expect(started.status).toBe(202);
    expect(started.body.fix).toMatchObject({
      members: MEMBERS,
      control: PASSING,
      judge: { kind: "check", checkName: "no second refund" },
    });
    const [fix] = (await call(fixesGet)).body.fixes as ClusterFixView[];
    expect(fix!.figures.members).toMatchObject({ count: MEMBERS, judged: MEMBERS });
    expect(fix!.figures.control).toMatchObject({ count: 0, judged: PASSING });
    expect(fix!.figures.sentence).toBe(
      `fixes ${MEMBERS} of ${MEMBERS} (95% interval 51%–100%), breaks none of ${PASSING} control sessions`,
    );
    // The recording as it was (no live model, no override) fixes none: each branch refunds again.
    const recorded = await call(fixesPost, { method: "POST", body: JSON.stringify({ preset: "recorded-only" }) });
    const plain = ((await call(fixesGet)).body.fixes as ClusterFixView[]).find(
      (f) => f.experimentId === recorded.body.experimentId,
    )!;
    expect(plain.figures.sentence).toBe(`fixes 0 of ${MEMBERS} (95% interval 0%–49%), no control sample`);
  });
});
