/**
 * An edit across a cohort, on real databases: three copies of the demo refund session, two looking up order
 * 4821 and one 4822. "Every call of lookup_order with order_id 4821 returns a lost parcel" applies to the first
 * two (their branches differ from their base runs at that call, with exactly the edited result) and is reported
 * as not applicable to the third, which is replayed without it. The experiment runs the "Recorded only" preset.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadReplayView } from "@/lib/db/replays-testing";
import { TEST_ENGINES, createTestDatabase, type TestDatabase } from "@/lib/db/testing";
import { parseInput } from "@/lib/errors";
import * as experiments from "./experiments";
import { localAdmin } from "../principal";
import { importSession, refundCopy, refusal, savePolicy, RECORDED } from "../testing";

const admin = localAdmin("olga");
const LOST = { order_id: "4821", status: "lost_in_transit", delivered_at: null };
const EDIT = { tool: "lookup_order", args: { order_id: "4821" }, value: LOST };

const create = async (prisma: TestDatabase["prisma"], raw: unknown) =>
  experiments.createExperiment(admin, parseInput(experiments.CreateExperimentInput, raw), prisma);

describe.each(TEST_ENGINES)("an edit across a cohort on %s", (engine) => {
  let db: TestDatabase;
  let ids: string[];
  let agentVersionId: string;
  let created: experiments.CreatedExperiment;
  let detail: experiments.ExperimentDetail;

  beforeAll(async () => {
    db = await createTestDatabase(engine);
    ids = [];
    for (const [ext, order] of [
      ["edit-a", "4821"],
      ["edit-b", "4821"],
      ["edit-c", "4822"],
    ] as const)
      ids.push(await importSession(db.prisma, admin, refundCopy(ext, order, `Refund ${ext}`)));
    ({ agentVersionId } = await db.prisma.session.findUniqueOrThrow({
      where: { id: ids[0]! },
      select: { agentVersionId: true },
    }));
    created = await create(db.prisma, { name: "lost parcels", preset: "recorded", agentVersionId, edit: EDIT });
    await experiments.runExperiment(admin, { experimentId: created.id }, db.prisma);
    detail = await experiments.getExperiment(admin, { experimentId: created.id }, db.prisma);
  });
  afterAll(async () => {
    await db?.drop();
  });

  it("says at creation how many members the edit applies to, and why not the others", () => {
    expect(created.total).toBe(3);
    expect(created.edit).toEqual({
      applied: 2,
      notApplied: [{ sessionId: ids[2], reason: 'Its one call of lookup_order does not have order_id = "4821".' }],
    });
  });

  it("runs the preset, saved as the agent's policy named after it", () => {
    expect(detail.status).toBe("completed");
    expect(detail.policyVersion.policyName).toBe("Recorded only (preset)");
    expect(detail.edit).toEqual({
      op: "replace_tool_result",
      tool: "lookup_order",
      args: { order_id: "4821" },
      value: LOST,
      // One edit, stored as before fixes took several: it is the only one.
      all: [{ op: "replace_tool_result", tool: "lookup_order", args: { order_id: "4821" }, value: LOST }],
      applied: 2,
      notApplied: [
        {
          sessionId: ids[2],
          label: "Refund edit-c",
          reason: 'Its one call of lookup_order does not have order_id = "4821".',
        },
      ],
    });
  });

  it("the members it applies to branch at the edited call with exactly the edited result; the third is replayed as recorded", async () => {
    const bySession = new Map(detail.results.map((r) => [r.session.id, r]));
    for (const id of ids.slice(0, 2)) {
      const result = bySession.get(id)!;
      expect(result.edit).toEqual({ applied: true });
      expect(result.status).toBe("completed");
      expect(result.firstDivergence?.baseSeq).toBe(1);
      const view = (await loadReplayView(db.prisma, result.replayId))!;
      const edited = view.steps.find((s) => s.baseSeq === 1)!;
      expect(edited).toMatchObject({ kind: "tool_call", name: "lookup_order", source: "edit", output: LOST });
      const { output: recorded } = await db.prisma.event.findFirstOrThrow({
        where: { sessionId: id, seq: 1 },
        select: { output: true },
      });
      expect(recorded).not.toEqual(LOST);
      const stored = await db.prisma.replay.findUniqueOrThrow({
        where: { id: result.replayId },
        select: { edits: true },
      });
      expect(stored.edits).toEqual([{ seq: 1, op: "replace_tool_result", value: LOST }]);
    }
    const third = bySession.get(ids[2]!)!;
    expect(third.edit).toEqual({
      applied: false,
      reason: 'Its one call of lookup_order does not have order_id = "4821".',
    });
    expect(third.comparability).toBe("exact");
    expect(third.firstDivergence).toBeNull();
    const stored = await db.prisma.replay.findUniqueOrThrow({ where: { id: third.replayId }, select: { edits: true } });
    expect(stored.edits).toEqual([]);
  });

  it("an experiment without an edit reads edit null, and a saved version still runs", async () => {
    const versionId = await savePolicy(db.prisma, "recorded", RECORDED);
    const plain = await create(db.prisma, { name: "plain", policyVersionId: versionId, agentVersionId });
    expect(plain.edit).toBeUndefined();
    const read = await experiments.getExperiment(admin, { experimentId: plain.id }, db.prisma);
    expect(read.edit).toBeNull();
    expect(read.results.map((r) => r.edit)).toEqual([null, null, null]);
  });

  it("refuses, naming the field and writing nothing: an edit that fits no member, a bad edit, a policy twice or none", async () => {
    const before = await db.prisma.experiment.count();
    const none = await refusal(
      create(db.prisma, { name: "x", preset: "recorded", agentVersionId, edit: { ...EDIT, args: { order_id: "1" } } }),
      "invalid_input",
    );
    expect(none.message).toBe(
      'The edit applies to no session of the cohort (3): Its one call of lookup_order does not have order_id = "1".',
    );
    expect(none.issues).toEqual([{ path: "edit.args", message: "matches no recorded call in the cohort" }]);
    const noTool = await refusal(
      create(db.prisma, { name: "x", preset: "recorded", agentVersionId, edit: { tool: "cancel_order", value: 1 } }),
    );
    expect(noTool.message).toBe("The edit applies to no session of the cohort (3): No call of cancel_order.");
    expect(noTool.issues.map((i) => i.path)).toEqual(["edit.tool"]);

    const pathsOf = async (raw: unknown) => (await refusal(create(db.prisma, raw), "invalid_input")).issues;
    expect(await pathsOf({ name: "x", preset: "recorded", agentVersionId, edit: { tool: "lookup_order" } })).toEqual([
      { path: "edit.value", message: "Give the result the calls return." },
    ]);
    expect(
      await pathsOf({
        name: "x",
        preset: "recorded",
        agentVersionId,
        edit: { tool: "lookup_order", seq: 1, value: 1 },
      }),
    ).toEqual([{ path: "edit", message: 'Unrecognized key: "seq"' }]);
    expect(await pathsOf({ name: "x", preset: "nope", agentVersionId })).toEqual([
      { path: "preset", message: "Choose one of the presets: recommended, recorded, fork-live." },
    ]);
    expect(await pathsOf({ name: "x", agentVersionId })).toEqual([
      { path: "policyVersionId", message: 'Choose a policy version ("policyVersionId") or a preset ("preset").' },
    ]);
    expect(await pathsOf({ name: "x", policyVersionId: "p", preset: "recorded", agentVersionId })).toEqual([
      { path: "preset", message: 'Send either "policyVersionId" or "preset", not both.' },
    ]);
    expect(await db.prisma.experiment.count()).toBe(before);
  });
});
