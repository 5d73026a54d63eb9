import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { TestDatabase } from "@/lib/db/testing";
import { DEMO_MODEL } from "@/lib/executors/demo-model";
import { localAdmin } from "@/lib/server/principal";
import { demoDatabase, HISTORY, importSession, refundCopy, refusal } from "@/lib/server/testing";
import { ClusterFixInput, listClusterFixes, startClusterFix } from "./cluster-fixes";

// A cluster's fix may carry an edit of a tool's results (fitted to each member, as an experiment over a cohort
// fits it) and a model change run on a chosen model endpoint: the same experiment over the cluster's sessions.

const olga = localAdmin("olga");
const MEMBERS = 3;

/** The refund demo's "returned order" failure: the refund call fails after the lookup says the order was returned. */
function returnedOrder(n: number): string {
  const order = String(5100 + n);
  const doc = JSON.parse(refundCopy(`returned-${n}`, order, `Returned order ${order}`)) as {
    events: { seq: number; status?: string; output?: unknown; error?: unknown }[];
  };
  const refund = doc.events[6]!;
  refund.status = "failed";
  refund.output = null;
  refund.error = { type: "RefundRejected", message: `Order ${order} was returned; refund of $129.00 refused` };
  return JSON.stringify(doc);
}

const REFUSED = { refunded: false, reason: "the order was returned" };

describe("a cluster's fix with an edit or a model endpoint", () => {
  let db: TestDatabase;
  let returned: string;
  let demo: string;
  const start = (clusterId: string, body: unknown) =>
    startClusterFix(olga, ClusterFixInput.parse({ clusterId, body }), db.prisma);
  const counts = async () => ({
    experiments: await db.prisma.experiment.count(),
    replays: await db.prisma.replay.count(),
    fixes: await db.prisma.clusterFix.count(),
  });

  beforeAll(async () => {
    db = await demoDatabase("pglite");
    for (let n = 0; n < MEMBERS; n++) await importSession(db.prisma, olga, returnedOrder(n));
    const clusters = await db.prisma.failureCluster.findMany({ select: { id: true, size: true, errorType: true } });
    returned = clusters.find((c) => c.errorType === "RefundRejected")!.id;
    demo = clusters.find((c) => c.errorType === "SmtpError")!.id;
    expect(clusters.find((c) => c.id === returned)!.size).toBe(MEMBERS);
  }, 120_000);
  afterAll(async () => {
    await db?.drop();
  });

  it("runs an edit of the refund's result over every member: each replay carries it, and it fixes them", async () => {
    const fix = await start(returned, { policy: HISTORY, edit: { tool: "refund_payment", value: REFUSED } });
    expect(fix).toMatchObject({ members: MEMBERS, control: 0, edit: { applied: MEMBERS, notApplied: [] } });
    const replays = await db.prisma.replay.findMany({
      where: { experimentId: fix.experimentId },
      select: { edits: true, modelEndpointId: true },
    });
    expect(replays).toEqual(
      Array.from({ length: MEMBERS }, () => ({
        edits: [{ op: "replace_tool_result", seq: 6, value: REFUSED }],
        modelEndpointId: null,
      })),
    );
    const { fixes } = await listClusterFixes(olga, { clusterId: returned }, db.prisma);
    expect(fixes[0]).toMatchObject({ experimentId: fix.experimentId, status: "completed" });
    expect(fixes[0]!.figures.members).toMatchObject({ count: MEMBERS, judged: MEMBERS, undecided: 0 });
  });

  it("runs a live model on the endpoint named: the demo model for the demo data's cluster", async () => {
    const fix = await start(demo, { preset: "recorded-only", model: "pinned-live", modelEndpoint: DEMO_MODEL.id });
    expect(fix).toMatchObject({ members: 1, modelEndpoint: { id: DEMO_MODEL.id, name: "Demo model (scripted)" } });
    const replays = await db.prisma.replay.findMany({
      where: { experimentId: fix.experimentId },
      select: { modelEndpointId: true, policySnapshot: true },
    });
    expect(replays).toMatchObject([{ modelEndpointId: DEMO_MODEL.id, policySnapshot: { model: "pinned-live" } }]);
  });

  it("refuses an endpoint without a live model, an unknown or out-of-bounds one, and an edit no member takes", async () => {
    const before = await counts();
    const cases: [string, unknown, string, string][] = [
      [returned, { policy: HISTORY, modelEndpoint: DEMO_MODEL.id }, "modelEndpoint", "needs a live model policy"],
      [
        returned,
        { policy: HISTORY, model: "pinned-live", modelEndpoint: DEMO_MODEL.id },
        "modelEndpoint",
        "the demo model serves only demo data",
      ],
      [
        returned,
        { policy: HISTORY, model: "pinned-live", modelEndpoint: "nope" },
        "modelEndpoint",
        "no such model endpoint",
      ],
      [
        returned,
        { policy: HISTORY, edit: { tool: "send_receipt", value: {} } },
        "edit.tool",
        "matches no recorded call in the cohort",
      ],
      [
        returned,
        { policy: HISTORY, edit: { tool: "refund_payment", args: { order_id: "1" }, value: {} } },
        "edit.args",
        "matches no recorded call in the cohort",
      ],
      // Fitted to the members and the control alike: an edit only a control session takes could fix no member.
      [
        returned,
        { policy: HISTORY, controlSample: 1, edit: { tool: "refund_payment", args: { order_id: "4821" }, value: {} } },
        "edit.args",
        "matches no recorded call in the cluster",
      ],
    ];
    for (const [clusterId, body, path, message] of cases) {
      const error = await refusal(start(clusterId, body), "invalid_input");
      expect(error.issues, JSON.stringify(body)).toEqual([{ path, message }]);
    }
    expect(() =>
      ClusterFixInput.parse({ clusterId: returned, body: { policy: HISTORY, edit: { tool: "refund_payment" } } }),
    ).toThrow("Give the result the calls return.");
    expect(() =>
      ClusterFixInput.parse({
        clusterId: returned,
        body: { policy: HISTORY, edit: { tool: "refund_payment", value: "a\u0000b" } },
      }),
    ).toThrow("NUL");
    expect(await counts()).toEqual(before);
  });
});
