import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Db } from "@/lib/db/client";
import { loadReplayComparison } from "@/lib/db/replay-comparison";
import { type ReplayView } from "@/lib/db/replays";
import { loadReplayView } from "@/lib/db/replays-testing";
import { getReport } from "@/lib/db/reports";
import { createReportFromReplay as createReport } from "./report-snapshot";
import { TEST_ENGINES, type TestDatabase } from "@/lib/db/testing";
import { parseInput } from "@/lib/errors";
import type { Policy } from "@/lib/replay";
import { pairTitle } from "@/lib/reports/export";
import { buildReportSnapshot, suggestValidityFor } from "@/lib/reports/snapshot";
import { createInvestigation, StartInvestigationInput } from "../investigations/investigations";
import { localAdmin } from "../principal";
import * as replayReads from "../replays/replay-reads";
import { demoDatabase, HISTORY, longEditedReplay, RECORDED, startReplay } from "../testing";

// Reports and minimize investigations read what they use of a replay (its comparison over digests, the pairs they
// keep whole, the base run in its stored form), never every model input whole: the same snapshots and answers as
// when they were made from the whole replay view, and a long run's report costs what a short one's does per step.

const admin = localAdmin("tester");

/** HISTORY, with `tool` answered "ok" by a static rule (its arguments matched as `mode` says). */
const answering = (tool: string, mode: "exact" | "subset"): Policy => ({
  ...HISTORY,
  tools: {
    default: { type: "history", scope: "baseline", on_miss: "fail" },
    overrides: { [tool]: { type: "static", cases: [{ match_mode: mode, result: "ok" }] } },
  },
});

/** A report on the view's replay with `pins` made through `client`: its snapshot as made from the whole view. */
async function reportAsWhole(client: Db, view: ReplayView, pins: string[]) {
  const now = new Date("2026-11-30T12:00:00.000Z");
  const report = await createReport(
    client,
    { replayId: view.replay.id, title: "t", sections: { pinnedPairs: pins }, createdBy: "tester" },
    now,
  );
  // The snapshot is stored as JSON: compared as JSON.
  const expected = buildReportSnapshot({ ...view, staleRecordings: null }, pins, now);
  expect(report.snapshot).toEqual(JSON.parse(JSON.stringify(expected)));
}

/** The demo refund session, its model calls and its first tool call. */
async function refundSteps(db: TestDatabase) {
  const refund = await db.prisma.session.findFirstOrThrow({
    where: { agent: { name: "harbor-pine-support" } },
    select: { id: true },
  });
  const events = await db.prisma.event.findMany({
    where: { sessionId: refund.id },
    orderBy: { seq: "asc" },
    select: { seq: true, kind: true, name: true, input: true },
  });
  return {
    refund,
    models: events.filter((e) => e.kind === "model_call"),
    tool: events.find((e) => e.kind === "tool_call")!,
  };
}

describe.each(TEST_ENGINES)("reports and investigations of a replay on %s", (engine) => {
  let db: TestDatabase;
  beforeAll(async () => {
    db = await demoDatabase(engine);
  }, 300_000);
  afterAll(async () => {
    await db?.drop();
  });

  it("snapshots every demo replay as the whole view did, with the pairs it shows whole", async () => {
    const { refund, models, tool } = await refundSteps(db);
    for (const s of await db.prisma.session.findMany({ select: { id: true } }))
      await startReplay(db.prisma, { sessionId: s.id, policy: RECORDED });
    // Diverging branches: a model output, a system prompt, a tool's arguments (answered by a static rule), a model
    // output without its tool calls (removed steps).
    await startReplay(db.prisma, {
      sessionId: refund.id,
      policy: RECORDED,
      edits: [{ seq: models.at(-1)!.seq, op: "replace_model_output", value: { role: "assistant", content: "x" } }],
    });
    await startReplay(db.prisma, {
      sessionId: refund.id,
      policy: RECORDED,
      edits: [{ seq: models[0]!.seq, op: "replace_system_prompt", value: "Be terse." }],
    });
    await startReplay(db.prisma, {
      sessionId: refund.id,
      policy: answering(tool.name, "exact"),
      edits: [
        {
          seq: tool.seq,
          op: "replace_tool_args",
          value: { ...(tool.input as { args: object }).args, note: "other" },
        },
      ],
    });
    await startReplay(db.prisma, {
      sessionId: refund.id,
      policy: RECORDED,
      edits: [{ seq: models[0]!.seq, op: "replace_model_output", value: { role: "assistant", content: "done" } }],
    });
    const types = new Set<string>();
    let reports = 0;
    for (const { id } of await db.prisma.replay.findMany({ select: { id: true }, orderBy: { createdAt: "asc" } })) {
      const view = (await loadReplayView(db.prisma, id))!;
      if (!["completed", "failed", "stopped_on_divergence", "budget_exhausted"].includes(view.replay.status)) continue;
      // Pinned: one pair of each type there is, and the last pair.
      const pins = [
        ...new Map(view.comparison.pairs.map((p) => [p.type, p.id])).values(),
        view.comparison.pairs.at(-1)!.id,
      ];
      for (const p of view.comparison.pairs) if (pins.includes(p.id)) types.add(p.type);
      await reportAsWhole(db.prisma, view, pins);
      // What the report form lists (its pairs' titles, the first divergence, the validity suggestion), from the
      // comparison over digests.
      const lite = (await loadReplayComparison(db.prisma, id))!;
      expect(lite.comparison.pairs.map(pairTitle)).toEqual(view.comparison.pairs.map(pairTitle));
      expect(lite.comparison.firstDivergence).toEqual(view.comparison.firstDivergence);
      expect(suggestValidityFor(lite)).toEqual(suggestValidityFor(view));
      reports++;
    }
    expect(reports).toBeGreaterThan(5);
    expect([...types].sort()).toEqual(["changed", "equal", "removed"]);
  }, 300_000);

  it("keeps inserted and unreached pairs whole as the whole view did (failed, stopped and budget-ended replays)", async () => {
    const { refund, models, tool } = await refundSteps(db);
    const ids = [
      // The last model call asks for one more tool call (answered by a static rule): an inserted step, the run then
      // fails on a model call the recording does not have.
      await startReplay(db.prisma, {
        sessionId: refund.id,
        policy: answering(tool.name, "subset"),
        edits: [
          {
            seq: models.at(-1)!.seq,
            op: "replace_model_output",
            value: { role: "assistant", content: null, toolCalls: [{ id: "extra", name: tool.name, args: { x: 1 } }] },
          },
        ],
      }),
      // A tool's arguments changed with no rule to answer them: the run fails, the rest unreached.
      await startReplay(db.prisma, {
        sessionId: refund.id,
        policy: HISTORY,
        edits: [
          { seq: tool.seq, op: "replace_tool_args", value: { ...(tool.input as { args: object }).args, note: "x" } },
        ],
      }),
      // A budget that ends the branch early.
      await startReplay(db.prisma, { sessionId: refund.id, policy: { ...RECORDED, maxSteps: 3 } }),
    ].map((r) => r.id);
    const types = new Set<string>();
    const statuses = new Set<string>();
    for (const id of ids) {
      const view = (await loadReplayView(db.prisma, id))!;
      statuses.add(`${view.replay.status}:${[...new Set(view.comparison.pairs.map((p) => p.type))].sort().join(",")}`);
      // Every pair pinned: each kind whole, a model call's input rebuilt from the earlier ones.
      const pins = view.comparison.pairs.map((p) => p.id);
      for (const p of view.comparison.pairs) types.add(p.type);
      await reportAsWhole(db.prisma, view, pins);
    }
    // Each replay's status and the kinds of its pairs.
    expect([...statuses].sort()).toEqual([
      "budget_exhausted:equal,unreached",
      "failed:changed,equal,inserted,unreached",
      "failed:equal,unreached",
    ]);
    expect([...types].sort()).toEqual(["changed", "equal", "inserted", "unreached"]);
  }, 300_000);

  it("checks a minimize request as before, reading the base run in its stored form", async () => {
    const refund = await db.prisma.session.findFirstOrThrow({
      where: { agent: { name: "harbor-pine-support" } },
      select: { id: true },
    });
    const models = await db.prisma.event.findMany({
      where: { sessionId: refund.id, kind: "model_call" },
      orderBy: { seq: "asc" },
      select: { seq: true },
    });
    const { id } = await startReplay(db.prisma, {
      sessionId: refund.id,
      policy: RECORDED,
      edits: [
        { seq: models[0]!.seq, op: "replace_system_prompt", value: "Be terse." },
        { seq: models.at(-1)!.seq, op: "replace_model_output", value: { role: "assistant", content: "x" } },
      ],
    });
    const minimize = (checks: unknown) =>
      createInvestigation(
        admin,
        parseInput(StartInvestigationInput, { kind: "minimize", replayId: id, checks, trials: 1 }),
        db.prisma,
      );
    // A check the base run passes: nothing to minimise (the base run was read and judged).
    await expect(
      minimize([{ name: "any", definition: { kind: "tool_called", tool: "lookup_order" } }]),
    ).rejects.toThrow("The base run already passes these checks");
    const created = await minimize([{ name: "none", definition: { kind: "tool_not_called", tool: "lookup_order" } }]);
    expect(created).toMatchObject({ kind: "minimize", status: "queued", replayId: id });
  });

  it("makes and opens a report on a 2,200-turn replay at the cost per step of a 220-turn one", async () => {
    const sizes = [];
    for (const turns of [220, 2200]) {
      const { id, events } = await longEditedReplay(db.prisma, turns);
      const first = (await replayReads.getReplayComparison(admin, { replayId: id }, db.prisma)).comparison
        .firstDivergence!;
      // Step rows read with their input (a model call's: its prompt window), counted as the client returns them.
      let inputsRead = 0;
      // Of them, rows read with every column (their outputs too): the kept pairs' steps, not the earlier model calls.
      let wholeRead = 0;
      const counting = db.prisma.$extends({
        query: {
          $allModels: {
            async $allOperations({ model, args, query }) {
              const result = await query(args);
              if (model === "Event" || model === "ReplayStep")
                for (const row of Array.isArray(result) ? result : [result])
                  if (row && typeof row === "object" && "input" in row) {
                    inputsRead++;
                    if ("output" in row) wholeRead++;
                  }
              return result;
            },
          },
        },
      }) as unknown as Db;
      const created = await createReport(counting, {
        replayId: id,
        title: `${turns} turns`,
        sections: { pinnedPairs: [first.id] },
        createdBy: "tester",
      });
      // The pinned pair's two steps, not the runs' (an edited tool call: no earlier model input to rebuild).
      expect(inputsRead).toBe(2);
      const opened = (await getReport(db.prisma, created.id))!;
      expect(opened.snapshot.comparison.pairCount).toBe(events);
      expect(opened.snapshot.comparison.pairs.map((p) => p.id)).toEqual([first.id]);
      // Every model call after the edit sent another input: listed as drift, counted as changed.
      expect(opened.snapshot.comparison.counts.changed).toBe(turns + 1);
      sizes.push({ turns, bytes: JSON.stringify(opened).length });
      if (turns !== 220) continue;
      // The last 10 model calls pinned: each run's model calls read once (not once per pin), the snapshot as the
      // whole view's.
      const view = (await loadReplayView(db.prisma, id))!;
      const late = view.comparison.pairs.filter((p) => p.type === "changed" && p.base.kind === "model_call").slice(-10);
      const pins = late.map((p) => p.id);
      inputsRead = 0;
      wholeRead = 0;
      await reportAsWhole(counting, view, pins);
      const modelCalls = view.base.filter((e) => e.kind === "model_call").length;
      expect(inputsRead).toBeLessThanOrEqual(2 * (modelCalls + pins.length));
      // The earlier model calls are read for their inputs alone: the 10 pinned pairs and the first divergence whole.
      expect(wholeRead).toBe(2 * (pins.length + 1));
    }
    // Bytes per turn stay flat (the report holds no model input of the run but its pairs').
    const [small, large] = sizes;
    expect(large!.bytes / large!.turns / (small!.bytes / small!.turns)).toBeLessThan(1.5);
  }, 600_000);
});
