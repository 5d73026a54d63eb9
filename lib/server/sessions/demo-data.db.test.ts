import { readFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadReplayView } from "@/lib/db/replays-testing";
import { backfillOutcomes } from "@/lib/db/session-outcomes";
import { TEST_ENGINES, type TestDatabase } from "@/lib/db/testing";
import { BILLING_SESSION, DEMO_MODEL } from "@/lib/executors/demo-model";
import { RECOMMENDED_RCA_POLICY, type Policy } from "@/lib/replay";
import { localAdmin } from "../principal";
import { demoDatabase, importSession, refusal, startReplay, viewer } from "../testing";
import { SEED_DIR } from "./demo-data";
import { ListSessionsInput, listSessions } from "./sessions";

const FORK_LIVE: Policy = { ...RECOMMENDED_RCA_POLICY, model: "recorded-until-divergence" };
const STALE = "Duplicate-charge credit on invoice INV-7731";

/** Every demo session's outcome, by title: [outcome, the step to look at, the reason]. */
const TAU_FAILED = "τ-bench scored the run 0: the task's goal was not reached.";
const TAU_PASSED = "τ-bench scored the run 1: the task's goal was reached.";
const NO_VERDICT = "The run finished; the source gives no verdict on it.";
const EXPECTED: Record<string, [string, number | null, string]> = {
  // Real recordings the benchmark scored: where no tool failure went unrecovered, the last failed step (task 0:
  // one tool error, retried successfully) or else the final answer is the step to look at.
  "τ-bench airline task 0, trial 0": ["failed", 19, TAU_FAILED],
  "τ-bench airline task 1, trial 0": ["failed", 10, TAU_FAILED],
  "τ-bench airline task 12, trial 0": ["passed", null, TAU_PASSED],
  "τ-bench airline task 13, trial 0": ["failed", 49, TAU_FAILED],
  "τ-bench airline task 18, trial 0": ["passed", null, TAU_PASSED],
  "τ-bench airline task 33, trial 0": ["failed", 59, TAU_FAILED],
  "τ-bench airline task 0, trial 3": ["failed", 37, TAU_FAILED],
  // Constructed: a tool error never got past (the rule), and a stale tool result trusted (the source's verdict).
  "Receipt for invoice INV-8120": [
    "failed",
    3,
    "send_receipt failed at step 3 (550 5.1.1 recipient rejected: the domain juniperdental.exmaple does not exist); no later call of it succeeded.",
  ],
  [STALE]: [
    "failed",
    5,
    "Credited $480.00 for a duplicate charge that had already been reversed: get_invoice returned a stale copy of INV-7731 and the agent trusted it.",
  ],
  // Finished, recovered from their tool errors, and not scored by their source.
  "Revenue export: job status polled until it succeeded": ["unknown", null, NO_VERDICT],
  "Package tracking: carrier API error, recovered through the shipment record": ["unknown", null, NO_VERDICT],
  "Refund for cracked pour-over set (order 4821)": ["unknown", null, NO_VERDICT],
};

describe.each(TEST_ENGINES)("the demo data's outcomes and its demo model, on %s", (engine) => {
  let db: TestDatabase;
  beforeAll(async () => {
    db = await demoDatabase(engine);
  }, 120_000);
  afterAll(async () => {
    await db?.drop();
  });

  const outcomes = async (): Promise<Record<string, unknown>> =>
    Object.fromEntries(
      (
        await db.prisma.session.findMany({
          where: { isReplay: false },
          select: { title: true, outcome: true, outcomeSeq: true, outcomeReason: true },
        })
      ).map((s): [string, unknown] => [s.title ?? "", [s.outcome, s.outcomeSeq, s.outcomeReason]]),
    );

  it("gives every demo session its outcome at import, and start-up works out the same for rows stored before", async () => {
    expect(await outcomes()).toEqual(EXPECTED);
    await db.prisma.session.updateMany({ data: { outcome: null, outcomeReason: null, outcomeSeq: null } });
    expect(await backfillOutcomes(db.prisma, 5)).toBe(12);
    expect(await outcomes()).toEqual(EXPECTED);
    expect(await backfillOutcomes(db.prisma)).toBe(0);
  });

  it("lists by outcome, and the status filter 'failed' finds the runs that failed without ending on an error", async () => {
    const titles = async (filter: Record<string, string>) =>
      (await listSessions(viewer, ListSessionsInput.parse(filter), db.prisma)).sessions.map((s) => s.title).sort();
    const failed = Object.entries(EXPECTED)
      .filter(([, [o]]) => o === "failed")
      .map(([t]) => t)
      .sort();
    expect(failed).toHaveLength(7);
    expect(await titles({ outcome: "failed" })).toEqual(failed);
    expect(await titles({ status: "failed" })).toEqual(failed);
    expect(await titles({ outcome: "passed" })).toEqual([
      "τ-bench airline task 12, trial 0",
      "τ-bench airline task 18, trial 0",
    ]);
    expect(await titles({ outcome: "unknown" })).toHaveLength(3);
  });

  it("fork-live on the failed demo run: an edited tool result changes the final answer, through the built-in demo model", async () => {
    expect(await db.prisma.modelEndpoint.count()).toBe(0);
    const session = await db.prisma.session.findFirstOrThrow({
      where: { title: STALE },
      select: { id: true, demo: true, events: { where: { seq: 1 }, select: { output: true } } },
    });
    expect(session.demo).toBe(true);
    const invoice = session.events[0]!.output as { charges: object[] };
    // What the billing system would have said that day: the second charge reversed.
    const edit = {
      seq: 1,
      op: "replace_tool_result",
      value: { ...invoice, charges: [invoice.charges[0], { ...invoice.charges[1], reversed: true }] },
    };
    const started = await startReplay(db.prisma, { sessionId: session.id, policy: FORK_LIVE, edits: [edit] });
    const view = (await loadReplayView(db.prisma, started.id))!;
    expect(view.replay.status).toBe("completed");
    expect(view.steps.map((s) => [s.seq, s.kind, s.source, s.name])).toEqual([
      [0, "model_call", "recorded", "gpt-4.1-mini-2025-04-14"],
      [1, "tool_call", "edit", "get_invoice"],
      [2, "model_call", "live", DEMO_MODEL.name],
      [3, "final_output", "live", "final_output"],
    ]);
    expect(view.steps.at(-1)!.output).toBe(BILLING_SESSION.noCredit("INV-7731", 480));
    // A live step on a model other than the recorded one: the evidence says so.
    expect(view.evidence.strength).toBe("drifting");

    // Without an edit nothing forks: the base run, exactly.
    const same = await startReplay(db.prisma, { sessionId: session.id, policy: FORK_LIVE });
    expect((await loadReplayView(db.prisma, same.id))!.replay.comparability).toBe("exact");
  });

  it("serves demo data only: your own sessions neither get the demo model by default nor by its name", async () => {
    const own = readFileSync(path.join(SEED_DIR, "native", "billing-stale-invoice.json"), "utf8").replace(
      "acme-billing:conv_7731_dup",
      "acme-billing:my-own-import",
    );
    const ownId = await importSession(db.prisma, localAdmin("olga"), own);
    expect((await db.prisma.session.findUniqueOrThrow({ where: { id: ownId } })).demo).toBe(false);
    const before = await db.prisma.replay.count();
    const byName = await refusal(
      startReplay(db.prisma, { sessionId: ownId, policy: FORK_LIVE, modelEndpoint: DEMO_MODEL.name }),
      "invalid_input",
    );
    expect(byName.message).toBe(
      '"Demo model (scripted)" answers only the demo sessions; name a model endpoint of your own (Settings → Executors).',
    );
    expect(byName.issues[0]?.path).toBe("modelEndpoint");
    await refusal(startReplay(db.prisma, { sessionId: ownId, policy: FORK_LIVE }), "executor_missing");
    expect(await db.prisma.replay.count()).toBe(before);
  });
});
