/**
 * An experiment whose worker was killed mid-call: the members it had in flight
 * are taken over by another worker, which does not repeat a live call that was
 * started and never answered; those members wait for a fixture. The run is
 * over (no member queued or running), and the experiment must still read
 * "waiting for fixtures" wherever it is shown, the experiment list included,
 * until the answers are supplied.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { requeueAbandonedReplays } from "@/lib/db/jobs";
import { savePolicyByName } from "@/lib/db/policies";
import { withTransaction } from "@/lib/db/transactions";
import { TEST_ENGINES, createTestDatabase, type TestDatabase } from "@/lib/db/testing";
import {
  LIVE_LOOKUP,
  configureLiveTool,
  countingToolServer,
  eventually,
  generateRefundCohort,
} from "@/lib/jobs/testing";
import { experimentCountsOf } from "./experiment-status";
import { createExperiment, getExperiment, listExperiments, runExperiment } from "./experiments";
import { localAdmin } from "../principal";
import { supplyFixture } from "../replays/replay-resume";
import { runQueuedReplay } from "../replays/run-queued-replay";

describe.each(TEST_ENGINES)("an experiment after its worker is killed, on %s", (engine) => {
  let db: TestDatabase;
  beforeAll(async () => {
    db = await createTestDatabase(engine);
  });
  afterAll(async () => {
    await db?.drop();
  });

  it("reads waiting for fixtures, in the list too, while the members whose calls were cut off wait", async () => {
    const admin = localAdmin("t");
    const { agentVersionId } = await generateRefundCohort(db.prisma, 4);
    // The first two calls reach the tool and never get an answer: the worker making them is about to be killed.
    const tool = await countingToolServer({ hold: () => tool.hits.length <= 2 });
    try {
      await configureLiveTool(db.prisma, "lookup_order", tool.url);
      const { versionId } = await withTransaction(db.prisma, (tx) =>
        savePolicyByName(tx, { name: "live lookups", agentId: null, document: LIVE_LOOKUP }),
      );
      const { id } = await createExperiment(
        admin,
        { name: "kill -9", policyVersionId: versionId, agentVersionId },
        db.prisma,
      );
      const members: string[] = [];
      await runExperiment(admin, { experimentId: id }, db.prisma, {
        queue: {
          enqueueReplays: async (ids) => void members.push(...ids),
          enqueueInvestigations: async () => {},
        },
      });
      expect(members).toHaveLength(4);

      // Worker A takes two members and is killed in the middle of their live calls: its leases run out.
      const killed = [0, 1].map((k) => runQueuedReplay(db.prisma, members[k]!, { owner: "A", leaseMs: 600_000 }));
      await eventually("A's two calls to reach the tool", async () => tool.heldCount() === 2);
      await db.prisma
        .$executeRaw`UPDATE "Replay" SET "leaseUntil" = now() - interval '1 second' WHERE "leaseOwner" = 'A'`;
      expect((await requeueAbandonedReplays(db.prisma)).sort()).toEqual(members.slice(0, 2).sort());
      // Worker B runs every member: the two in doubt wait for the answer, the other two complete.
      for (const member of members)
        expect(await runQueuedReplay(db.prisma, member, { owner: "B", leaseMs: 600_000 })).toBe("ran");
      tool.releaseHeld();
      expect(await Promise.all(killed)).toEqual(["lease_lost", "lease_lost"]);

      const detail = await getExperiment(admin, { experimentId: id }, db.prisma);
      expect(detail.results.map((r) => r.status).sort()).toEqual(["completed", "completed", "paused", "paused"]);
      expect(detail.status).toBe("completed");
      expect(experimentCountsOf(detail).state).toBe("waiting_for_fixtures");
      const listed = (await listExperiments(admin, {}, db.prisma)).find((e) => e.id === id)!;
      expect({ status: listed.status, state: listed.state, done: listed.done, total: listed.total }).toEqual({
        status: "completed",
        state: "waiting_for_fixtures",
        done: 4,
        total: 4,
      });

      // The answers supplied (from the tool's own record), every member completes, and so does the experiment.
      for (const r of detail.results.filter((m) => m.status === "paused"))
        await supplyFixture(
          admin,
          { replayId: r.replayId, output: { status: "delivered" }, note: "from the tool's log" },
          db.prisma,
        );
      const after = (await listExperiments(admin, {}, db.prisma)).find((e) => e.id === id)!;
      expect({ status: after.status, state: after.state }).toEqual({ status: "completed", state: "completed" });
      expect(tool.hits).toHaveLength(4);
    } finally {
      await tool.close();
    }
  }, 180_000);
});
