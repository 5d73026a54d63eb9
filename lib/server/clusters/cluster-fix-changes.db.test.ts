import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { TestDatabase } from "@/lib/db/testing";
import { DEMO_MODEL } from "@/lib/executors/demo-model";
import { localAdmin } from "@/lib/server/principal";
import { demoDatabase, HISTORY, importSession, refundCopy, refusal } from "@/lib/server/testing";
import { FixSearchInput, startFixSearch, startFixSearchOfPolicy } from "./cluster-fix-search";
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
/** An edit of the clock: applies to every member, and fixes none (the refund still fails). */
const CLOCK = { op: "replace_tool_result", tool: "get_current_time", value: { iso: "2025-03-12T09:00:00-04:00" } };
const REFUND = { op: "replace_tool_result", tool: "refund_payment", value: REFUSED };

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
    // One edit is stored as every fix before several were: and it reads back as the fix's one edit.
    const stored = await db.prisma.experiment.findUniqueOrThrow({
      where: { id: fix.experimentId },
      select: { cohortEdit: true },
    });
    expect(stored.cohortEdit).toEqual({ edit: REFUND, notApplied: [] });
    expect(fixes[0]!.edits).toEqual([REFUND]);
    // A search from this fix ranges over its one edit (its policy is the recording): one probe answers it.
    const search = await startFixSearchOfPolicy(olga, { clusterId: returned, fixId: fixes[0]!.id }, db.prisma);
    expect(search).toMatchObject({
      changes: ['refund_payment returns {"reason":"the order was returned","ref…'],
      result: { kind: "minimal", kept: [0], fixed: MEMBERS, of: MEMBERS },
    });
    const unknown = await refusal(
      startFixSearchOfPolicy(olga, { clusterId: demo, fixId: fixes[0]!.id }, db.prisma),
      "not_found",
    );
    expect(unknown.issues).toEqual([{ path: "fixId", message: "unknown fix" }]);
  });

  it("composes two edits on each member, one per call, and names both on the fix", async () => {
    const fix = await start(returned, { policy: HISTORY, edits: [REFUND, CLOCK] });
    expect(fix).toMatchObject({ members: MEMBERS, edit: { applied: MEMBERS, notApplied: [] } });
    const replays = await db.prisma.replay.findMany({
      where: { experimentId: fix.experimentId },
      select: { edits: true },
    });
    expect(replays).toEqual(
      Array.from({ length: MEMBERS }, () => ({
        edits: [
          { op: "replace_tool_result", seq: 2, value: CLOCK.value },
          { op: "replace_tool_result", seq: 6, value: REFUSED },
        ],
      })),
    );
    const { fixes } = await listClusterFixes(olga, { clusterId: returned }, db.prisma);
    expect(fixes.find((f) => f.experimentId === fix.experimentId)!.edits).toEqual([REFUND, CLOCK]);
  });

  it("refuses both edit and edits, an edit of several that applies to no member, and two that set one call differently", async () => {
    const before = await counts();
    expect(() =>
      ClusterFixInput.parse({ clusterId: returned, body: { policy: HISTORY, edit: REFUND, edits: [CLOCK] } }),
    ).toThrow("Give either edit (one edit) or edits (several), not both.");
    const none = await refusal(
      start(returned, {
        policy: HISTORY,
        edits: [REFUND, { tool: "refund_payment", args: { order_id: "1" }, value: {} }],
      }),
      "invalid_input",
    );
    expect(none.issues).toEqual([{ path: "edits[1].args", message: "matches no recorded call in the cohort" }]);
    const memberless = await refusal(
      start(returned, {
        policy: HISTORY,
        controlSample: 1,
        edits: [REFUND, { tool: "refund_payment", args: { order_id: "4821" }, value: {} }],
      }),
      "invalid_input",
    );
    expect(memberless.message).toBe(
      "Edit 2 applies to none of the cluster's 3 sessions: none has a matching call of refund_payment.",
    );
    expect(memberless.issues).toEqual([{ path: "edits[1].args", message: "matches no recorded call in the cluster" }]);
    const conflict = await refusal(
      start(returned, {
        policy: HISTORY,
        edits: [CLOCK, REFUND, { tool: "refund_payment", args: { amount: 129 }, value: { refunded: true } }],
      }),
      "invalid_input",
    );
    expect(conflict.message).toBe(
      "Edits 2 and 3 both set the result of one call of refund_payment (step 6), to different values: keep one, or give them argument values that tell the calls apart.",
    );
    expect(conflict.issues).toEqual([{ path: "edits[2]", message: "sets a call of refund_payment that edit 2 sets" }]);
    // A search is refused alike before it is stored.
    const searches = await db.prisma.clusterFixSearch.count();
    const searched = await refusal(
      startFixSearch(
        olga,
        FixSearchInput.parse({ clusterId: returned, edits: [CLOCK, { tool: "send_receipt", value: {} }] }),
        db.prisma,
      ),
      "invalid_input",
    );
    expect(searched.issues).toEqual([{ path: "edits[1].tool", message: "matches no recorded call in the cohort" }]);
    expect(await db.prisma.clusterFixSearch.count()).toBe(searches);
    expect(await counts()).toEqual(before);
  });

  it("finds the one edit of two that fixes the cluster, each probe a fix naming its edits", async () => {
    const fixes = await db.prisma.clusterFix.count();
    const search = await startFixSearch(
      olga,
      FixSearchInput.parse({ clusterId: returned, edits: [CLOCK, REFUND] }),
      db.prisma,
    );
    expect(search.changes).toEqual([
      'get_current_time returns {"iso":"2025-03-12T09:00:00-04:00"}',
      'refund_payment returns {"reason":"the order was returned","ref…',
    ]);
    expect(search.status).toBe("done");
    expect(search.probes.map((p) => [p.kept, p.fixed, p.of, p.fixes])).toEqual([
      [[0, 1], MEMBERS, MEMBERS, true],
      [[0], 0, MEMBERS, false],
      [[1], MEMBERS, MEMBERS, true],
    ]);
    expect(search.result).toMatchObject({
      kind: "minimal",
      kept: [1],
      changes: ['refund_payment returns {"reason":"the order was returned","ref…'],
      fixed: MEMBERS,
      of: MEMBERS,
    });
    expect(await db.prisma.clusterFix.count()).toBe(fixes + search.probes.length);
    const listed = new Map(
      (await listClusterFixes(olga, { clusterId: returned }, db.prisma)).fixes.map((f) => [f.experimentId, f]),
    );
    expect(search.probes.map((p) => listed.get(p.experimentId)!.edits)).toEqual([[CLOCK, REFUND], [CLOCK], [REFUND]]);
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
