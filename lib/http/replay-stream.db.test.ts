import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { replayStepRows } from "@/lib/db/replay-rows";
import { loadReplayComparison } from "@/lib/db/replay-comparison";
import { toReplayStep } from "@/lib/db/replay-steps";
import { loadReplayMeta } from "@/lib/db/replays";
import { loadReplayView } from "@/lib/db/replays-testing";
import { sessionEventRows } from "@/lib/db/session-reads";
import type { Db } from "@/lib/db/client";
import { TEST_ENGINES, type TestDatabase } from "@/lib/db/testing";
import { expandInputs } from "@/lib/sessions/inputs";
import { eventDelta, toolLevelPreset, type Policy } from "@/lib/replay";
import { replayCounterfactual } from "@/lib/server/checks/counterfactual";
import { localAdmin } from "@/lib/server/principal";
import { demoDatabase, HISTORY, longEditedReplay, RECORDED, startReplay } from "@/lib/server/testing";
import { presentComparison, presentReplay } from "./present";
import { comparisonAnswer, comparisonWindowAnswer, replayAnswer, replayDocumentAnswer } from "./replay-answer";
import { ComparisonDocumentQuery } from "@/lib/server/replays/replay-documents";
import { presentComparisonJson, presentReplayJson, type InputsForm } from "./replay-stream";
import { CHUNK_CHARS, streamedJson } from "./stream";

const admin = localAdmin("tester");
const PAUSE: Policy = {
  model: "recorded-only",
  drift: "continue_to_terminal",
  tools: toolLevelPreset("pause-for-fixture"),
};

/** Reads a streamed body through its reader, counting its chunks. */
async function readAll(response: Response): Promise<{ text: string; chunks: number }> {
  const reader = response.body!.getReader();
  const decoder = new TextDecoder();
  let text = "";
  let chunks = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    chunks++;
    text += decoder.decode(value, { stream: true });
  }
  return { text: text + decoder.decode(), chunks };
}

type Doc = Record<string, unknown>;
type StepJson = { seq: number; kind: string; input: unknown; inputPrefix: { seq: number; count: number } | null };

/** Full inputs from a document's steps in the delta form: the messages each adds after its prefix. */
const expanded = (steps: readonly StepJson[]) =>
  expandInputs(steps.map((s) => ({ seq: s.seq, kind: s.kind, input: s.input, prefix: s.inputPrefix })));

describe.each(TEST_ENGINES)("streamed replay documents on %s", (engine) => {
  let db: TestDatabase;
  let ids: string[] = [];
  let longId = "";
  /** The replays that diverge (edited, paused, ended by a budget, removed calls) and the long one. */
  const divergent: string[] = [];
  beforeAll(async () => {
    db = await demoDatabase(engine);
    for (const s of await db.prisma.session.findMany({ select: { id: true }, orderBy: { createdAt: "asc" } }))
      await startReplay(db.prisma, { sessionId: s.id, policy: RECORDED });
    // Replays that diverge: a model output and a system prompt edited (the second pauses: unreached steps).
    const refund = await db.prisma.session.findFirstOrThrow({
      where: { agent: { name: "harbor-pine-support" } },
      select: { id: true },
    });
    const models = await db.prisma.event.findMany({
      where: { sessionId: refund.id, kind: "model_call" },
      orderBy: { seq: "asc" },
      select: { seq: true },
    });
    divergent.push(
      (
        await startReplay(db.prisma, {
          sessionId: refund.id,
          policy: RECORDED,
          edits: [
            { seq: models.at(-1)!.seq, op: "replace_model_output", value: { role: "assistant", content: "changed" } },
          ],
        })
      ).id,
    );
    divergent.push(
      (
        await startReplay(db.prisma, {
          sessionId: refund.id,
          policy: PAUSE,
          edits: [{ seq: models[0]!.seq, op: "replace_system_prompt", value: "Be terse. \u2028" }],
        })
      ).id,
    );
    // A budget that ends the branch early (unreached steps), and a model output without its tool calls (removed ones).
    divergent.push((await startReplay(db.prisma, { sessionId: refund.id, policy: { ...RECORDED, maxSteps: 3 } })).id);
    divergent.push(
      (
        await startReplay(db.prisma, {
          sessionId: refund.id,
          policy: RECORDED,
          edits: [{ seq: models[0]!.seq, op: "replace_model_output", value: { role: "assistant", content: "done" } }],
        })
      ).id,
    );
    // A 150-turn chat whose first tool result is edited: every later model input differs from its base event's.
    longId = (await longEditedReplay(db.prisma, 150, JSON.parse('{"edited":true,"__proto__":{"x":1}}') as object)).id;
    divergent.push(longId);
    ids = (await db.prisma.replay.findMany({ select: { id: true }, orderBy: { createdAt: "asc" } })).map((r) => r.id);
  }, 300_000);
  afterAll(async () => {
    await db?.drop();
  });

  /** The documents as the routes sent them before they streamed: the whole view presented at once. */
  async function whole(id: string) {
    const view = (await loadReplayView(db.prisma, id))!;
    const counterfactual = await replayCounterfactual(admin, { replayId: id }, db.prisma);
    return {
      view,
      replay: JSON.stringify({ replay: { ...presentReplay(view), ...counterfactual } }),
      comparison: JSON.stringify({ comparison: { ...presentComparison(view), ...counterfactual } }),
    };
  }

  async function streamedReplay(id: string, inputs: InputsForm, window: number, chunkChars = 1000) {
    const meta = (await loadReplayMeta(db.prisma, id))!;
    const counterfactual = await replayCounterfactual(admin, { replayId: id }, db.prisma);
    return streamedJson(presentReplayJson(meta, replayStepRows(db.prisma, id, window), counterfactual, { inputs }), {
      where: "a test",
      chunkChars,
    });
  }

  async function streamedComparison(id: string, inputs: InputsForm, window: number, chunkChars = 1000) {
    const outline = (await loadReplayComparison(db.prisma, id))!;
    const counterfactual = await replayCounterfactual(admin, { replayId: id }, db.prisma);
    const pieces = presentComparisonJson(
      outline,
      sessionEventRows(db.prisma, outline.replay.sessionId, window),
      replayStepRows(db.prisma, id, window),
      counterfactual,
      { inputs },
    );
    return streamedJson(pieces, { where: "a test", chunkChars });
  }

  it("sends every replay and its comparison byte for byte as the whole presenters did", async () => {
    expect(ids.length).toBeGreaterThan(10);
    const types = new Set<string>();
    for (const id of ids) {
      const expected = await whole(id);
      for (const p of expected.view.comparison.pairs) types.add(p.type);
      // A window of 3 rows: model calls extend calls of an earlier window.
      const replay = await streamedReplay(id, "full", 3);
      expect(replay.status).toBe(200);
      expect(replay.headers.get("content-type")).toBe("application/json");
      expect((await readAll(replay)).text).toBe(expected.replay);
      expect((await readAll(await streamedComparison(id, "full", 3))).text).toBe(expected.comparison);
    }
    // Pairs of every kind but inserted were written (a changed pair's delta computed again from the rows).
    expect([...types].sort()).toEqual(["changed", "equal", "removed", "unreached"]);
  }, 300_000);

  it("answers a fixture, an approval, a cancel and a new replay with steps byte for byte as the whole view did", async () => {
    const warnings = [
      {
        code: "schema" as const,
        severity: "warning" as const,
        path: ["tools"],
        message: "a warning \u2028 with a separator",
      },
    ];
    const trialSet = { id: "set", trials: [{ replayId: "x", status: "queued" }] };
    for (const id of ids) {
      const view = (await loadReplayView(db.prisma, id))!;
      const counterfactual = await replayCounterfactual(admin, { replayId: id }, db.prisma);
      // Fixtures and approvals: { replay }; cancel: { replay, outcome }; a new replay: the counterfactual, warnings
      // and trial set, status 201.
      const plain = await replayAnswer(admin, db.prisma, id, { where: "a test" });
      expect([plain.status, plain.headers.get("content-type")]).toEqual([200, "application/json"]);
      expect((await readAll(plain)).text).toBe(JSON.stringify({ replay: presentReplay(view) }));
      const cancel = await replayAnswer(admin, db.prisma, id, { where: "a test", after: { outcome: "stopping" } });
      expect((await readAll(cancel)).text).toBe(JSON.stringify({ replay: presentReplay(view), outcome: "stopping" }));
      const started = await replayAnswer(admin, db.prisma, id, {
        where: "a test",
        extra: counterfactual,
        warnings,
        after: { trialSet },
        status: 201,
      });
      expect(started.status).toBe(201);
      expect((await readAll(started)).text).toBe(
        JSON.stringify({ replay: { ...presentReplay(view, warnings), ...counterfactual }, trialSet }),
      );
    }
    await expect(replayAnswer(admin, db.prisma, "nope", { where: "a test" })).rejects.toMatchObject({ status: 404 });
  }, 300_000);

  it("sends a 150-turn replay and comparison byte for byte in many chunks", async () => {
    const expected = await whole(longId);
    const changedModels = expected.view.comparison.pairs.filter(
      (p) => p.type === "changed" && p.base.kind === "model_call",
    );
    expect(changedModels.length).toBe(150);
    const replay = await readAll(await streamedReplay(longId, "full", 64, 4096));
    expect(replay.text).toBe(expected.replay);
    expect(replay.chunks).toBeGreaterThan(20);
    const comparison = await readAll(await streamedComparison(longId, "full", 64, 4096));
    expect(comparison.text).toBe(expected.comparison);
    expect(comparison.chunks).toBeGreaterThan(40);
  }, 120_000);

  it("?from=&limit=: windows of the stored comparison's pairs concatenate to the whole document's, full and delta", async () => {
    // Two of the plain replays (every demo session's has the same shape: unchanged pairs) and every edited one: the
    // changed, paused, budget-ended and removed-call comparisons, and the 150-turn one in windows of 41. All of the
    // plain ones took two thirds of this file's time and showed nothing the first two do not.
    for (const id of [...ids.filter((id) => !divergent.includes(id)).slice(0, 2), ...divergent]) {
      for (const inputs of ["full", "delta"] as const) {
        const whole = JSON.parse(
          (await readAll(await comparisonAnswer(admin, db.prisma, id, { where: "a test", inputs }))).text,
        ) as { comparison: Doc & { pairs: Doc[] } };
        const pairs: Doc[] = [];
        let from: number | null = 0;
        const limit = id === longId ? 41 : 4;
        while (from !== null) {
          const text = (
            await readAll(await comparisonWindowAnswer(admin, db.prisma, id, { where: "a test", inputs, from, limit }))
          ).text;
          const { comparison } = JSON.parse(text) as { comparison: Doc & { pairs: Doc[]; window: Doc } };
          const { pairs: windowPairs, window, ...rest } = comparison;
          const { pairs: _pairs, ...wholeRest } = whole.comparison;
          void _pairs;
          // The document's other keys as the whole one has them, in the same order, then the window.
          expect(rest).toEqual(wholeRest);
          expect(Object.keys(comparison).at(-1)).toBe("window");
          const total = whole.comparison.pairs.length;
          expect(window).toEqual({ from, limit, total, nextFrom: from + limit < total ? from + limit : null });
          expect(windowPairs).toHaveLength(Math.min(limit, total - from));
          pairs.push(...windowPairs);
          from = window.nextFrom as number | null;
        }
        expect(pairs).toEqual(whole.comparison.pairs);
      }
    }
    // Past the last pair: an empty window, and what is asked for is checked.
    const past = JSON.parse(
      (
        await readAll(
          await comparisonWindowAnswer(admin, db.prisma, longId, { where: "a test", from: 99_999, limit: 5 }),
        )
      ).text,
    ) as { comparison: { pairs: unknown[]; window: Doc } };
    expect(past.comparison.pairs).toEqual([]);
    expect(past.comparison.window.nextFrom).toBeNull();
    expect(ComparisonDocumentQuery.safeParse({ from: "-1" }).success).toBe(false);
    expect(ComparisonDocumentQuery.safeParse({ limit: "1001" }).success).toBe(false);
    expect(ComparisonDocumentQuery.parse({ from: "3", limit: "7" })).toEqual({ from: 3, limit: 7 });
  }, 600_000);

  it("?inputs=delta: each model input holds what it adds after inputPrefix, and expands to the full document", async () => {
    for (const id of [longId, ...ids.slice(-3)]) {
      const expected = await whole(id);
      const full = JSON.parse(expected.replay) as { replay: Doc & { steps: StepJson[] } };
      const text = (await readAll(await streamedReplay(id, "delta", 5))).text;
      const delta = JSON.parse(text) as { replay: Doc & { steps: StepJson[] } };
      // Everything but the steps' inputs is as in the full document, and each step ends with its inputPrefix.
      const { steps: fullSteps, ...fullRest } = full.replay;
      const { steps: deltaSteps, ...deltaRest } = delta.replay;
      expect(deltaRest).toEqual(fullRest);
      expect(deltaSteps.map(({ input: _i, inputPrefix: _p, ...rest }) => rest)).toEqual(
        fullSteps.map(({ input: _i, ...rest }) => rest),
      );
      expect(deltaSteps.map((s) => Object.keys(s).at(-1))).toEqual(deltaSteps.map(() => "inputPrefix"));
      expect(expanded(deltaSteps)).toEqual(fullSteps.map((s) => s.input));
      // The stored form as the rows hold it, written as the whole presenter would.
      const rows = await db.prisma.replayStep.findMany({ where: { replayId: id }, orderBy: { idx: "asc" } });
      const stored = rows.map((r) => ({
        ...toReplayStep(r),
        inputPrefix: r.inputPrefixIdx === null ? null : { seq: r.inputPrefixIdx, count: r.inputPrefixCount ?? 0 },
      }));
      const counterfactual = await replayCounterfactual(admin, { replayId: id }, db.prisma);
      expect(text).toBe(
        JSON.stringify({ replay: { ...presentReplay({ ...expected.view, steps: stored }), ...counterfactual } }),
      );
    }
    // At 150 turns the delta form holds each message once: a small fraction of the full document.
    const fullLength = (await whole(longId)).replay.length;
    const deltaLength = (await readAll(await streamedReplay(longId, "delta", 64))).text.length;
    expect(deltaLength * 10).toBeLessThan(fullLength);
  }, 120_000);

  it("?inputs=delta on the comparison: both sides as stored, the same pairs, each side expanding to the full one", async () => {
    const id = longId;
    const expected = await whole(id);
    type Pair = { id: string; type: string; base: StepJson | null; branch: StepJson | null; delta?: unknown };
    const full = (JSON.parse(expected.comparison) as { comparison: Doc & { pairs: Pair[] } }).comparison;
    const text = (await readAll(await streamedComparison(id, "delta", 7, 4096))).text;
    const delta = (JSON.parse(text) as { comparison: Doc & { pairs: Pair[] } }).comparison;
    const { pairs: fullPairs, ...fullRest } = full;
    const { pairs: deltaPairs, ...deltaRest } = delta;
    expect(deltaRest).toEqual(fullRest);
    expect(deltaPairs.map((p) => `${p.id}:${p.type}`)).toEqual(fullPairs.map((p) => `${p.id}:${p.type}`));
    for (const side of ["base", "branch"] as const) {
      const sent = deltaPairs.flatMap((p) => (p[side] ? [p[side]] : [])).sort((a, b) => a.seq - b.seq);
      const whole = fullPairs.flatMap((p) => (p[side] ? [p[side]] : [])).sort((a, b) => a.seq - b.seq);
      expect(expanded(sent)).toEqual(whole.map((e) => e.input));
    }
    // A changed pair's delta compares the two sides as sent.
    const changed = deltaPairs.filter((p) => p.type === "changed");
    expect(changed.length).toBeGreaterThan(150);
    for (const p of changed) {
      const strip = (e: StepJson) => {
        const { inputPrefix: _p, ...rest } = e;
        return rest as unknown as Parameters<typeof eventDelta>[0];
      };
      const computed = eventDelta(strip(p.base!), strip(p.branch!));
      expect(p.delta).toEqual(computed === undefined ? undefined : (JSON.parse(JSON.stringify(computed)) as unknown));
    }
    expect(text.length * 10).toBeLessThan(expected.comparison.length);
  }, 120_000);

  it("a replay that does not exist is a 404 before any byte; rows changed under the comparison cut its body", async () => {
    await expect(
      (async () => {
        const { openReplay } = await import("@/lib/server/replays/replay-documents");
        await openReplay(admin, { replayId: "nope" }, db.prisma);
      })(),
    ).rejects.toMatchObject({ status: 404, code: "not_found" });
    // The outline read, then a step deleted before the rows are: the body is cut, never a document that parses.
    const outline = (await loadReplayComparison(db.prisma, longId))!;
    const last = await db.prisma.replayStep.findFirstOrThrow({ where: { replayId: longId }, orderBy: { idx: "desc" } });
    await db.prisma.replayStep.delete({ where: { id: last.id } });
    try {
      const response = await streamedJson(
        presentComparisonJson(
          outline,
          sessionEventRows(db.prisma, outline.replay.sessionId, 64),
          replayStepRows(db.prisma, longId, 64),
        ),
        { where: "a test", chunkChars: 4096 },
      );
      expect(response.status).toBe(200);
      await expect(readAll(response)).rejects.toThrow("the branch has no row");
    } finally {
      // Put back as it was (its digests are the database's to write: the client does not know them).
      await db.prisma.replayStep.create({ data: last as never });
    }
  }, 120_000);

  it("a run storing its steps while a replay is sent cuts the body: never the meta of one run with the steps of another", async () => {
    const { id } = await startReplay(db.prisma, {
      sessionId: (await loadReplayMeta(db.prisma, longId))!.session.id,
      policy: HISTORY,
    });
    const stored = (await loadReplayMeta(db.prisma, id))!.replay.stepCount;
    expect(stored).toBeGreaterThan(250);
    const rows = await db.prisma.replayStep.findMany({ where: { replayId: id }, orderBy: { idx: "asc" } });
    const data = rows as never[];
    /** Reads the first chunk, runs `write`, then reads on. */
    const raced = async (write: () => Promise<unknown>) => {
      const response = await replayAnswer(admin, db.prisma, id, { where: "a test" });
      expect(response.status).toBe(200);
      const reader = response.body!.getReader();
      await reader.read();
      await write();
      for (;;) if ((await reader.read()).done) return;
    };
    // Steps replaced by the first 250, as saveRunResult replaces them in one transaction: too few rows.
    await expect(
      raced(() =>
        db.prisma.$transaction([
          db.prisma.replayStep.deleteMany({ where: { replayId: id } }),
          db.prisma.replayStep.createMany({ data: data.slice(0, 250) }),
        ]),
      ),
    ).rejects.toThrow(`the branch has 250 of its ${stored} steps`);
    // A step missing in the middle: the rows after it are not the replay's next steps.
    await db.prisma.replayStep.createMany({ data: data.slice(250) });
    await expect(raced(() => db.prisma.replayStep.deleteMany({ where: { replayId: id, idx: 200 } }))).rejects.toThrow(
      "the branch's row 200 is idx 201",
    );
    await db.prisma.replayStep.createMany({ data: [data[200]!] });
    // The same steps stored again with the replay's row (a run's result): its steps' version moved.
    await expect(
      raced(() => db.prisma.replay.update({ where: { id }, data: { stepsVersion: { increment: 1 } } })),
    ).rejects.toThrow("a run stored its steps while they were read");
    // The row's other writes (a running replay's progress, a cancel request) leave the steps as they
    // were: the body is whole.
    await raced(() =>
      db.prisma.replay.update({ where: { id }, data: { progressDone: 1, progressTotal: 2, cancelRequested: false } }),
    );
    // Read again, nothing written meanwhile: the whole document.
    const expected = await whole(id);
    expect((await readAll(await replayAnswer(admin, db.prisma, id, { where: "a test" }))).text).toBe(
      JSON.stringify({ replay: presentReplay(expected.view) }),
    );
  }, 120_000);

  it("a replay written before the answer's first byte is read again: the whole document, or a 409 when it keeps changing", async () => {
    // The shortest replay with steps: its document is one chunk, all made before the first byte.
    const docs = [];
    for (const id of ids) {
      const { view } = await whole(id);
      if (view.steps.length > 0) docs.push({ id, text: JSON.stringify({ replay: presentReplay(view) }) });
    }
    const { id, text: expected } = docs.sort((a, b) => a.text.length - b.text.length)[0]!;
    expect(expected.length).toBeLessThan(CHUNK_CHARS);
    /** A client on which a run writes the replay's row as its steps are read, the first `times` times. */
    const writing = (
      times: number,
      data: Parameters<TestDatabase["prisma"]["replay"]["update"]>[0]["data"] = { stepsVersion: { increment: 1 } },
    ) => {
      let left = times;
      return db.prisma.$extends({
        query: {
          replayStep: {
            async findMany({ args, query }) {
              if (left-- > 0) await db.prisma.replay.update({ where: { id }, data });
              return query(args);
            },
          },
        },
      }) as unknown as Db;
    };
    const once = await replayAnswer(admin, writing(1), id, { where: "a test" });
    expect([once.status, (await readAll(once)).text]).toEqual([200, expected]);
    // Progress written at every read (a running replay's worker) is not a change of its steps.
    const progressing = await replayAnswer(admin, writing(10, { cancelRequested: false }), id, { where: "a test" });
    expect([progressing.status, (await readAll(progressing)).text]).toEqual([200, expected]);
    await expect(replayAnswer(admin, writing(3), id, { where: "a test" })).rejects.toMatchObject({
      status: 409,
      code: "wrong_state",
    });
  }, 120_000);

  it("a comparison or replay whose run is stored again before its first byte is read again, its counterfactual with it: the whole document, or a 409 when it keeps changing", async () => {
    // The shortest comparison with pairs: one chunk, all made before the first byte.
    const docs = [];
    for (const id of ids) {
      const { view, comparison } = await whole(id);
      if (view.steps.length > 0) docs.push({ id, text: comparison });
    }
    const { id, text: before } = docs.sort((a, b) => a.text.length - b.text.length)[0]!;
    expect(before.length).toBeLessThan(CHUNK_CHARS);
    const trialSetId = `trials-${id}`;
    /** A client on which a run stores the replay's steps again (the same rows) and joins it to a trial set, as they are read, the first `times` times. */
    const writing = (times: number) => {
      let left = times;
      return db.prisma.$extends({
        query: {
          replayStep: {
            async findMany({ args, query }) {
              if (left-- > 0)
                await db.prisma.replay.update({
                  where: { id },
                  data: { stepsVersion: { increment: 1 }, trialSetId, trialIndex: left },
                });
              return query(args);
            },
          },
        },
      }) as unknown as Db;
    };
    const once = await comparisonAnswer(admin, writing(1), id, { where: "a test" });
    // The documents as the replay is after the write: their counterfactual too was read again.
    const after = await whole(id);
    expect(after.comparison).toContain(`"trialSet":{"id":"${trialSetId}","index":0}`);
    expect([once.status, (await readAll(once)).text]).toEqual([200, after.comparison]);
    await db.prisma.replay.update({ where: { id }, data: { trialSetId: null, trialIndex: null } });
    const document = await replayDocumentAnswer(admin, writing(1), id, { where: "a test" });
    expect([document.status, (await readAll(document)).text]).toEqual([200, after.replay]);
    await expect(comparisonAnswer(admin, writing(3), id, { where: "a test" })).rejects.toMatchObject({
      status: 409,
      code: "wrong_state",
    });
    await db.prisma.replay.update({ where: { id }, data: { trialSetId: null, trialIndex: null } });
  }, 120_000);

  it("a document longer than a chunk whose run is stored again before its first byte is read again, not cut at its end", async () => {
    const { view, comparison: comparisonText } = await whole(longId);
    const replayText = JSON.stringify({ replay: presentReplay(view) });
    expect(Math.min(replayText.length, comparisonText.length)).toBeGreaterThan(2 * CHUNK_CHARS);
    /** A client on which a run stores the replay's steps again (the same rows) at its first read of them. */
    const writingOnce = () => {
      let left = 1;
      return db.prisma.$extends({
        query: {
          replayStep: {
            async findMany({ args, query }) {
              if (left-- > 0)
                await db.prisma.replay.update({ where: { id: longId }, data: { stepsVersion: { increment: 1 } } });
              return query(args);
            },
          },
        },
      }) as unknown as Db;
    };
    const replay = await replayAnswer(admin, writingOnce(), longId, { where: "a test" });
    const sent = await readAll(replay);
    expect([replay.status, sent.text === replayText, sent.chunks > 1]).toEqual([200, true, true]);
    const comparison = await comparisonAnswer(admin, writingOnce(), longId, { where: "a test" });
    const compared = await readAll(comparison);
    expect([comparison.status, compared.text === comparisonText, compared.chunks > 1]).toEqual([200, true, true]);
  }, 120_000);
});
