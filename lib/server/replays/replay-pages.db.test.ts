import type { Db } from "@/lib/db/client";
import { loadReplayComparison } from "@/lib/db/replay-comparison";
import { loadReplayView } from "@/lib/db/replays-testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { importAndSave } from "@/lib/server/ingest/imports";
import { TEST_ENGINES, createTestDatabase, type TestDatabase } from "@/lib/db/testing";
import { AppError, parseInput } from "@/lib/errors";
import { longChatLog } from "@/lib/ingest/long-chat";
import { toolLevelPreset, type Policy } from "@/lib/replay";
import { toRows } from "@/lib/session-view/compare-pairs-testing";
import { toStoredPairs, type StoredPair } from "@/lib/session-view/compare-pairs";
import { replayStamp } from "@/lib/db/replay-window";
import { storedComparisonHeader, storedPairs } from "@/lib/db/stored-comparison";
import { COMPARE_FILTERS, filterRows, nextChange, type CompareRow } from "@/lib/session-view/compare-rows";
import { summarizeReplayStep } from "@/lib/session-view/replay-steps";
import { pairChoice } from "@/lib/reports/pair-choice";
import { suggestValidityFor } from "@/lib/reports/snapshot";
import * as comparisons from "./comparison-pages";
import { localAdmin } from "../principal";
import * as pages from "./replay-pages";
import * as replayInputs from "./replay-inputs";
import * as replays from "./replays";

const admin = localAdmin("tester");
const viewer = { ...localAdmin("reader"), role: "viewer" as const, readOnly: true };
const RECORDED: Policy = {
  model: "recorded-only",
  drift: "continue_to_terminal",
  tools: toolLevelPreset("recorded-only"),
};
const TURNS = 60;
/** The tool call of turn 20: its result is edited, so every later model call's input differs. */
const EDITED = 41;

async function refusal(promise: Promise<unknown>): Promise<AppError> {
  const error = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(AppError);
  return error as AppError;
}

describe.each(TEST_ENGINES)("a replay and its comparison a window at a time on %s", (engine) => {
  let db: TestDatabase;
  let replayId = "";

  beforeAll(async () => {
    db = await createTestDatabase(engine);
    const imported = await importAndSave(db.prisma, JSON.stringify(longChatLog(TURNS)), { format: "openai-chat" });
    if (!imported.ok) throw new Error("import failed");
    const started = await replays.startReplay(
      admin,
      parseInput(replayInputs.StartReplayInput, {
        sessionId: imported.sessions[0]!.id,
        policy: RECORDED,
        edits: [{ seq: EDITED, op: "replace_tool_result", value: { status: "lost" } }],
      }),
      db.prisma,
    );
    replayId = started.id;
  }, 120_000);
  afterAll(async () => {
    await db?.drop();
  });

  it("reads the page's header with counts from the rows' columns, and no steps", async () => {
    const view = await pages.getReplayPage(viewer, { replayId }, db.prisma);
    expect([view.replay.status, view.baseCount, view.stepCount]).toEqual(["completed", 2 * TURNS + 2, 2 * TURNS + 2]);
    expect([view.probeSteps, view.probeBaseSteps]).toEqual([[], []]);
    expect("steps" in view || "base" in view).toBe(false);
  });

  it("gives every step once across windows, as the whole replay summarizes it, and a step whole when asked", async () => {
    const whole = (await loadReplayView(db.prisma, replayId))!;
    const seen = [];
    let cursor: number | null = 0;
    while (cursor !== null) {
      const page: pages.StepsWindow = await pages.listReplaySteps(viewer, { replayId, cursor, limit: 17 }, db.prisma);
      expect(page.cursor).toBe(cursor);
      seen.push(...page.steps);
      cursor = page.nextCursor;
    }
    expect(seen).toEqual(whole.steps.map(summarizeReplayStep));
    // The edit shows: the edited tool call, and the next model call sent another input with the recorded output.
    expect([seen[EDITED]!.source, seen[EDITED]!.equalsBase]).toEqual(["edit", false]);
    expect(seen[EDITED + 1]!.inputOnly).toBe(true);
    const last = 2 * TURNS;
    expect(await pages.getReplayStep(viewer, { replayId, seq: last }, db.prisma)).toEqual(whole.steps[last]);
    expect((await pages.listReplaySteps(viewer, { replayId, cursor: 5_000 }, db.prisma)).steps).toEqual([]);
  });

  it("pages the comparison's rows under every filter as the whole comparison has them", async () => {
    const whole = (await loadReplayView(db.prisma, replayId))!;
    const rows = toRows(whole.comparison.pairs);
    const view = await comparisons.getComparisonPage(viewer, { replayId }, db.prisma);
    expect(view.firstDivergence).toEqual(whole.comparison.firstDivergence);
    expect(view.metrics).toEqual(whole.comparison.metrics);
    // Edited tool call, then every later model call (input changed, output recorded).
    expect(view.counts).toEqual({
      all: 2 * TURNS + 2,
      changes: 1 + TURNS + 1 - 21,
      changed: 1 + TURNS + 1 - 21,
      inserted: 0,
      removed: 0,
      unreached: 0,
    });
    for (const filter of COMPARE_FILTERS) {
      const seen: CompareRow[] = [];
      let cursor: number | null = 0;
      while (cursor !== null) {
        const page: comparisons.ComparisonRowsWindow = await comparisons.listComparisonRows(
          viewer,
          { replayId, filter, cursor, limit: 13 },
          db.prisma,
        );
        expect(page.total).toBe(view.counts[filter]);
        seen.push(...page.rows);
        cursor = page.nextCursor;
      }
      expect(seen, filter).toEqual(filterRows(rows, filter));
    }
  });

  it("finds a pair and the next or previous change in any window, as the whole list would", async () => {
    const whole = (await loadReplayView(db.prisma, replayId))!;
    const rows = toRows(whole.comparison.pairs);
    for (const filter of ["all", "changes", "equal-free"] as const) {
      const list = filter === "equal-free" ? filterRows(rows, "changed") : filterRows(rows, filter);
      const f = filter === "equal-free" ? "changed" : filter;
      for (const from of [null, ...list.map((r) => r.id)]) {
        for (const direction of [1, -1] as const) {
          const found = await comparisons.findComparisonRow(
            viewer,
            { replayId, filter: f, ...(from ? { pair: from } : {}), direction },
            db.prisma,
          );
          const expected = nextChange(list, from, direction);
          expect(found?.row.id ?? null, `${f} ${from} ${direction}`).toBe(expected);
          if (found) expect(list[found.position]!.id).toBe(found.row.id);
        }
      }
    }
    const first = whole.comparison.firstDivergence!;
    expect(first.id).toBe(`p${EDITED}-${EDITED}`);
    expect(await comparisons.findComparisonRow(viewer, { replayId, filter: "all", pair: first.id }, db.prisma)).toEqual(
      {
        position: EDITED,
        row: rows[EDITED],
      },
    );
    expect(await comparisons.findComparisonRow(viewer, { replayId, filter: "changed", pair: "p0-0" }, db.prisma)).toBe(
      null,
    );
  });

  it("refuses bad input naming it, and an unknown replay with a 404", async () => {
    expect((await refusal(pages.listReplaySteps(viewer, { replayId, limit: 0 }, db.prisma))).issues[0]!.path).toBe(
      "limit",
    );
    expect((await refusal(pages.listReplaySteps(viewer, { replayId, cursor: -1 }, db.prisma))).code).toBe(
      "invalid_input",
    );
    const missing = await refusal(pages.getReplayStep(viewer, { replayId, seq: 99_999 }, db.prisma));
    expect([missing.code, missing.message]).toEqual(["not_found", `Replay "${replayId}" has no step 99999.`]);
    expect((await refusal(pages.getReplayPage(viewer, { replayId: "nope" }, db.prisma))).code).toBe("not_found");
    expect(
      (await refusal(comparisons.listComparisonRows(viewer, { replayId, filter: "odd" as "all" }, db.prisma)))
        .issues[0]!.path,
    ).toBe("filter");
    expect(
      (await refusal(comparisons.findComparisonRow(viewer, { replayId, pair: "x1" }, db.prisma))).issues[0]!.path,
    ).toBe("pair");
    expect((await refusal(comparisons.listComparisonRows(viewer, { replayId: "nope" }, db.prisma))).code).toBe(
      "not_found",
    );
  });

  it("the run stored its comparison with its steps: the one built on the fly, read back in windows that concatenate to it", async () => {
    // Stored by the run itself: no read built it.
    const header = (await storedComparisonHeader(db.prisma, replayId))!;
    const stamp = (await replayStamp(db.prisma, replayId))!;
    expect(header.stepsKey).toBe(`${stamp.stepsKey}:completed`);
    const whole = (await loadReplayView(db.prisma, replayId))!;
    const expected = toStoredPairs(whole.comparison.pairs);
    expect(header).toMatchObject({
      pairCount: expected.length,
      baseCount: whole.base.length,
      branchCount: whole.steps.length,
      firstDivergence: whole.comparison.firstDivergence,
      metrics: whole.comparison.metrics,
      finalOutputDiff: whole.comparison.finalOutputDiff,
    });
    const built = comparisons.comparisonBuilds();
    const read: StoredPair[] = [];
    for (let from = 0; from < header.pairCount; from += 37)
      read.push(...(await storedPairs(db.prisma, replayId, { by: "position", from, to: from + 37 })));
    expect(read).toEqual(expected);
    // The changes' and each type's windows are the same pairs, in order.
    const changes: StoredPair[] = [];
    for (let from = 0; from < header.counts.changes!; from += 7)
      changes.push(...(await storedPairs(db.prisma, replayId, { by: "change", from, to: from + 7 })));
    expect(changes).toEqual(expected.filter((p) => p.changeRank !== null));
    expect(await storedPairs(db.prisma, replayId, { by: "type", type: "equal", from: 0, to: 1_000 })).toEqual(
      expected.filter((p) => p.type === "equal"),
    );
    expect(comparisons.comparisonBuilds()).toBe(built);
  });

  it("builds the comparison again when the replay changes, not before", async () => {
    const before = await comparisons.listComparisonRows(viewer, { replayId, limit: 3 }, db.prisma);
    // A run stores new steps with its row: here the row is touched as a resume would.
    await db.prisma.replayStep.update({
      where: { replayId_idx: { replayId, idx: 0 } },
      data: { name: "renamed_model" },
    });
    expect(await comparisons.listComparisonRows(viewer, { replayId, limit: 3 }, db.prisma)).toEqual(before);
    // Other writes to the replay's row (a running replay's progress) keep it; a run that stores steps bumps the version.
    await db.prisma.replay.update({ where: { id: replayId }, data: { updatedAt: new Date(Date.now() + 60_000) } });
    expect(await comparisons.listComparisonRows(viewer, { replayId, limit: 3 }, db.prisma)).toEqual(before);
    await db.prisma.replay.update({ where: { id: replayId }, data: { stepsVersion: { increment: 1 } } });
    const after = await comparisons.listComparisonRows(viewer, { replayId, limit: 3 }, db.prisma);
    expect(after.rows.slice(0, 2).map((r) => [r.id, r.type, r.name])).toEqual([
      ["p0-0", "changed", "renamed_model"],
      ["p1-1", "equal", "get_order_details"],
    ]);
  });

  it("the report form's picker uses the comparison stored for the replay: built once per run, not per render", async () => {
    // A run stored again (its steps' version bumped): the next reader builds the comparison, the ones after it
    // read the stored one.
    await db.prisma.replay.update({ where: { id: replayId }, data: { stepsVersion: { increment: 1 } } });
    const built = comparisons.comparisonBuilds();
    const first = await comparisons.getReportPicker(viewer, { replayId }, db.prisma);
    expect(comparisons.comparisonBuilds()).toBe(built + 1);
    const second = await comparisons.getReportPicker(viewer, { replayId }, db.prisma);
    await comparisons.getComparisonPage(viewer, { replayId }, db.prisma);
    const window = await comparisons.listPairChoices(
      viewer,
      { replayId, filter: "all", cursor: 5, limit: 4 },
      db.prisma,
    );
    expect(comparisons.comparisonBuilds()).toBe(built + 1);
    expect(second).toEqual(first);
    // The same picker as made from the whole comparison over digests.
    const view = (await loadReplayComparison(db.prisma, replayId, { inputDrift: false }))!;
    const rows = toRows(view.comparison.pairs);
    const fd = rows.find((r) => r.id === view.comparison.firstDivergence!.id)!;
    expect(first.picker).toMatchObject({
      counts: Object.fromEntries(COMPARE_FILTERS.map((f) => [f, filterRows(rows, f).length])),
      firstDivergence: pairChoice(fd),
      pinned: [pairChoice(fd)],
      dropped: [],
      initial: { filter: "changes", choices: filterRows(rows, "changes").slice(0, 100).map(pairChoice) },
    });
    expect(first.suggestion).toEqual(suggestValidityFor(view));
    expect(window.choices).toEqual(rows.slice(5, 9).map(pairChoice));
    // The picker's windows read no step (a comparison row's preview reads the steps it shows).
    let queried = 0;
    const counting = db.prisma.$extends({
      query: {
        $allOperations({ args, query }) {
          queried++;
          return query(args);
        },
      },
    }) as unknown as Db;
    await comparisons.listPairChoices(viewer, { replayId, filter: "all", cursor: 5, limit: 4 }, counting);
    expect(queried).toBe(3); // the replay's stamp, the stored comparison's header and its window of pairs
    await comparisons.listComparisonRows(viewer, { replayId, filter: "all", cursor: 5, limit: 4 }, counting);
    expect(queried).toBeGreaterThan(2);
    // A draft's pins: those the comparison has in its order, the others named as dropped.
    const pinned = await comparisons.getReportPicker(
      viewer,
      { replayId, pinned: [rows[9]!.id, "p999-999", rows[2]!.id] },
      db.prisma,
    );
    expect([pinned.picker!.pinned, pinned.picker!.dropped]).toEqual([
      [pairChoice(rows[2]!), pairChoice(rows[9]!)],
      ["p999-999"],
    ]);
    // Changed again: built anew.
    await db.prisma.replay.update({ where: { id: replayId }, data: { stepsVersion: { increment: 1 } } });
    await comparisons.getReportPicker(viewer, { replayId }, db.prisma);
    expect(comparisons.comparisonBuilds()).toBe(built + 2);
  });
});
