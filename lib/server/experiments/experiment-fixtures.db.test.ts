/**
 * Experiment status counts and one fixture for every member paused on the
 * same call, as operations on real databases. The cohort is four copies of the
 * demo refund session: three look up order 4821, one looks up 4822, and the
 * policy asks the analyst for every `lookup_order` result.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { TEST_ENGINES, createTestDatabase, type TestDatabase } from "@/lib/db/testing";
import { parseInput } from "@/lib/errors";
import type { Policy } from "@/lib/replay";
import * as fixtures from "./experiment-fixtures";
import { experimentCountsOf } from "./experiment-status";
import * as experiments from "./experiments";
import { localAdmin } from "../principal";
import { importSession, refundCopy, refusal, savePolicy } from "../testing";

const admin = localAdmin("olga");
const ASK_FOR_LOOKUPS: Policy = {
  model: "recorded-only",
  drift: "continue_to_terminal",
  tools: {
    default: { type: "history", scope: "baseline", on_miss: "fail" },
    overrides: { lookup_order: { type: "fixture" } },
  },
};

describe.each(TEST_ENGINES)("experiment fixtures on %s", (engine) => {
  let db: TestDatabase;
  let experimentId: string;
  let sameCall: string[];
  let other: string;

  beforeAll(async () => {
    db = await createTestDatabase(engine);
    const ids: string[] = [];
    for (const [ext, order] of [
      ["copy-a", "4821"],
      ["copy-b", "4821"],
      ["copy-c", "4821"],
      ["copy-d", "4822"],
    ] as const) {
      ids.push(await importSession(db.prisma, admin, refundCopy(ext, order)));
    }
    const { agentVersionId } = await db.prisma.session.findUniqueOrThrow({
      where: { id: ids[0]! },
      select: { agentVersionId: true },
    });
    const versionId = await savePolicy(db.prisma, "ask for lookups", ASK_FOR_LOOKUPS);
    const created = await experiments.createExperiment(
      admin,
      parseInput(experiments.CreateExperimentInput, { name: "lookups", policyVersionId: versionId, agentVersionId }),
      db.prisma,
    );
    experimentId = created.id;
    await experiments.runExperiment(admin, { experimentId }, db.prisma);
    const detail = await experiments.getExperiment(admin, { experimentId }, db.prisma);
    const replayOf = new Map(detail.results.map((r) => [r.session.id, r.replayId]));
    sameCall = ids.slice(0, 3).map((id) => replayOf.get(id)!);
    other = replayOf.get(ids[3]!)!;
  });
  afterAll(async () => {
    await db?.drop();
  });

  it("counts members waiting for a fixture, and does not call the experiment completed while they wait", async () => {
    const detail = await experiments.getExperiment(admin, { experimentId }, db.prisma);
    expect(detail.status).toBe("completed");
    expect(experimentCountsOf(detail)).toEqual({
      state: "waiting_for_fixtures",
      counts: { total: 4, finished: 0, failed: 0, waitingForFixture: 4, waitingForApproval: 0, running: 0, queued: 0 },
    });
  });

  it("groups the members by the call they wait on: three on lookup_order 4821, one on 4822", async () => {
    const { groups, ungrouped } = await fixtures.experimentFixtureGroups(admin, { experimentId }, db.prisma);
    expect(ungrouped).toEqual([]);
    expect(groups.map((g) => [g.tool, g.args, g.members.map((m) => m.replayId).sort()])).toEqual([
      ["lookup_order", { order_id: "4821" }, [...sameCall].sort()],
      ["lookup_order", { order_id: "4822" }, [other]],
    ]);
    expect(groups[0]!.cacheKey).not.toBe(groups[1]!.cacheKey);
    await refusal(fixtures.experimentFixtureGroups(admin, { experimentId: "nope" }, db.prisma), "not_found");
  });

  it("one fixture resumes every member paused on that call, and only those", async () => {
    const { groups } = await fixtures.experimentFixtureGroups(admin, { experimentId }, db.prisma);
    const group = groups[0]!;
    const recorded = group.prefill!.output;

    // Bad input writes nothing: no note, both output and error, a wrong cache key.
    const input = (extra: Record<string, unknown>) =>
      parseInput(fixtures.SupplyGroupFixtureInput, {
        experimentId,
        tool: group.tool,
        cacheKey: group.cacheKey,
        output: recorded,
        note: "recorded result of order 4821",
        ...extra,
      });
    expect(fixtures.SupplyGroupFixtureInput.safeParse({ ...input({}), note: " " }).success).toBe(false);
    expect(
      fixtures.SupplyGroupFixtureInput.safeParse({ ...input({}), error: { type: "x", message: "y" } }).success,
    ).toBe(false);
    await refusal(fixtures.supplyGroupFixture(admin, input({ cacheKey: "0".repeat(64) }), db.prisma), "wrong_state");
    await refusal(fixtures.supplyGroupFixture(admin, input({ experimentId: "nope" }), db.prisma), "not_found");
    expect(await db.prisma.fixture.count()).toBe(0);

    const { supplied } = await fixtures.supplyGroupFixture(admin, input({}), db.prisma);
    expect(supplied.map((s) => s.replayId).sort()).toEqual([...sameCall].sort());
    expect(supplied.every((s) => s.status === "completed" && s.error === null)).toBe(true);
    const stored = await db.prisma.fixture.findMany({ select: { replayId: true, toolName: true, note: true } });
    expect(stored.map((f) => f.replayId).sort()).toEqual([...sameCall].sort());
    expect(new Set(stored.map((f) => `${f.toolName}|${f.note}`))).toEqual(
      new Set(["lookup_order|recorded result of order 4821"]),
    );

    const detail = await experiments.getExperiment(admin, { experimentId }, db.prisma);
    expect(experimentCountsOf(detail)).toEqual({
      state: "waiting_for_fixtures",
      counts: { total: 4, finished: 3, failed: 0, waitingForFixture: 1, waitingForApproval: 0, running: 0, queued: 0 },
    });
    expect(detail.results.find((r) => r.replayId === other)?.status).toBe("paused");

    // Supplied already: the same call again is refused and writes nothing.
    await refusal(fixtures.supplyGroupFixture(admin, input({}), db.prisma), "wrong_state");
    expect(await db.prisma.fixture.count()).toBe(3);

    // The last one, then the experiment is completed.
    const rest = (await fixtures.experimentFixtureGroups(admin, { experimentId }, db.prisma)).groups;
    expect(rest.map((g) => g.members.map((m) => m.replayId))).toEqual([[other]]);
    await fixtures.supplyGroupFixture(
      admin,
      input({ cacheKey: rest[0]!.cacheKey, output: rest[0]!.prefill!.output, note: "order 4822" }),
      db.prisma,
    );
    const done = await experiments.getExperiment(admin, { experimentId }, db.prisma);
    expect(experimentCountsOf(done).state).toBe("completed");
    expect(experimentCountsOf(done).counts.finished).toBe(4);
  });
});
