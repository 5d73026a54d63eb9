import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createApiKey, type Database } from "@/lib/db";
import { TEST_ENGINES, createTestDatabase, type TestDatabase } from "@/lib/db/testing";
import { localAdmin } from "@/lib/server/principal";
import {
  findSessionComparisonRow,
  getSessionComparison,
  getSessionComparisonPair,
  listSessionComparisonRows,
  compareCandidates,
  sessionComparisonWork,
} from "@/lib/server/sessions/session-compare";
import { importSession, refusal, viewer } from "@/lib/server/testing";
import { GET } from "./route";

// GET /api/v1/sessions/:id/compare/:otherId and the operations the compare page reads: two runs of one task that
// differ at a known step (the order lookup answers "lost" instead of "delivered"), aligned pair by pair; windows of
// the pairs; 400 for a session with itself, 404 for an unknown id, 401 without a key, hostile ids and queries.

const PROMPT = { messages: [{ role: "user", content: "Refund order 4821, the mug arrived cracked" }] };

/** One run: look the order up, then (before) refund it or (after) ask the time, then answer. */
function run(which: "before" | "after", title: string) {
  const after = which === "after";
  return JSON.stringify({
    externalId: `compare-${title}`,
    title,
    agent: { name: "compare-agent", adapter: "generic" },
    agentVersion: { version: after ? "2.0.0" : "1.0.0", capabilities: ["tool_policies"] },
    events: [
      {
        kind: "model_call",
        name: "gpt-4.1",
        input: PROMPT,
        output: {
          role: "assistant",
          content: null,
          toolCalls: [{ id: "call_1", name: "lookup_order", args: { order_id: "4821" } }],
        },
      },
      {
        kind: "tool_call",
        name: "lookup_order",
        input: { callId: "call_1", args: { order_id: "4821" } },
        output: { total: 129, status: after ? "lost" : "delivered" },
        parentSeq: 0,
      },
      {
        kind: "model_call",
        name: "gpt-4.1",
        input: PROMPT,
        output: {
          role: "assistant",
          content: null,
          toolCalls: after
            ? [{ id: "call_2", name: "get_current_time", args: { timezone: "UTC" } }]
            : [{ id: "call_2", name: "refund_payment", args: { order_id: "4821", amount: 129 } }],
        },
      },
      after
        ? {
            kind: "tool_call",
            name: "get_current_time",
            input: { callId: "call_2", args: { timezone: "UTC" } },
            output: "2026-03-01T10:00:00Z",
            parentSeq: 2,
          }
        : {
            kind: "tool_call",
            name: "refund_payment",
            input: { callId: "call_2", args: { order_id: "4821", amount: 129 } },
            output: { ok: true },
            parentSeq: 2,
          },
      { kind: "final_output", name: "final_output", output: after ? "Your order is lost." : "Refunded $129." },
    ],
  });
}

/** The aligned pairs of before → after, worked out by hand. */
const PAIRS = [
  ["p0-0", "equal"],
  ["p1-1", "changed"],
  ["p2-2", "changed"],
  ["r3", "removed"],
  ["i3", "inserted"],
  ["p4-4", "changed"],
];

const global = globalThis as unknown as { __branchpointDb?: Promise<Database> };

describe.each(TEST_ENGINES)("comparing two sessions on %s", (engine) => {
  let db: TestDatabase;
  let key: string;
  let before: string;
  let after: string;
  let same: string;
  const admin = localAdmin("olga");

  beforeAll(async () => {
    db = await createTestDatabase(engine);
    before = await importSession(db.prisma, admin, run("before", "Refund, before the release"));
    after = await importSession(db.prisma, admin, run("after", "Refund, after the release"));
    same = await importSession(db.prisma, admin, run("before", "Refund, before again"));
    key = (await createApiKey(db.prisma, "script")).key;
    global.__branchpointDb = Promise.resolve(db);
  }, 120_000);
  afterAll(async () => {
    global.__branchpointDb = undefined;
    await db?.drop();
  });

  async function api(id: string, otherId: string, query = "", auth: string | null = key) {
    const res = await GET(
      new Request(`http://127.0.0.1/api/v1/sessions/${id}/compare/${otherId}${query}`, {
        headers: auth ? { authorization: `Bearer ${auth}` } : {},
      }),
      { params: Promise.resolve({ id, otherId }) },
    );
    return {
      status: res.status,
      body: (await res.json()) as { comparison: Record<string, unknown>; error?: { code: string } },
    };
  }

  it("aligns the two runs pair by pair, names the first divergence and counts each kind of pair", async () => {
    const { status, body } = await api(before, after);
    expect(status).toBe(200);
    const c = body.comparison as Record<string, unknown> & {
      pairs: {
        id: string;
        type: string;
        baseSeq: number | null;
        branchSeq: number | null;
        base: { output: unknown } | null;
        branch: { output: unknown } | null;
        delta?: unknown;
      }[];
    };
    expect(Object.keys(c)).toEqual([
      "sessionId",
      "otherSessionId",
      "base",
      "branch",
      "firstDivergence",
      "pairs",
      "finalOutputDiff",
      "metrics",
      "counts",
      "window",
    ]);
    expect(c.sessionId).toBe(before);
    expect(c.otherSessionId).toBe(after);
    expect(c.base).toMatchObject({
      id: before,
      title: "Refund, before the release",
      agentVersion: "1.0.0",
      eventCount: 5,
    });
    expect(c.branch).toMatchObject({
      id: after,
      title: "Refund, after the release",
      agentVersion: "2.0.0",
      eventCount: 5,
    });
    expect(c.pairs.map((p) => [p.id, p.type])).toEqual(PAIRS);
    expect(c.pairs.map((p) => [p.baseSeq, p.branchSeq])).toEqual([
      [0, 0],
      [1, 1],
      [2, 2],
      [3, null],
      [null, 3],
      [4, 4],
    ]);
    expect(c.firstDivergence).toEqual({
      pairIndex: 1,
      id: "p1-1",
      type: "changed",
      baseSeq: 1,
      branchSeq: 1,
      summary: "tool_call lookup_order: result changed",
    });
    // Each side's events whole, and a changed pair's structural diff.
    expect(c.pairs[1]!.base!.output).toEqual({ total: 129, status: "delivered" });
    expect(c.pairs[1]!.branch!.output).toEqual({ total: 129, status: "lost" });
    expect(c.pairs[1]!.delta).toEqual({ output: { status: ["delivered", "lost"] } });
    expect(c.pairs[0]!.delta).toBeUndefined();
    expect(c.pairs[3]!.branch).toBeNull();
    expect(c.pairs[4]!.base).toBeNull();
    expect(c.counts).toEqual({ all: 6, changes: 5, changed: 3, inserted: 1, removed: 1, unreached: 0 });
    expect(c.window).toEqual({ from: 0, limit: 100, total: 6, nextFrom: null });
    const metrics = c.metrics as Record<string, unknown>;
    expect(metrics.steps).toEqual({ base: 5, branch: 5, delta: 0 });
    expect(metrics.toolCallsByTool).toEqual({
      get_current_time: { base: 0, branch: 1, delta: 1 },
      lookup_order: { base: 1, branch: 1, delta: 0 },
      refund_payment: { base: 1, branch: 0, delta: -1 },
    });
    expect(metrics.first_divergence_step).toBe(1);
    expect(metrics.tool_sequence_distance).toBe(1);
    expect(c.finalOutputDiff).toEqual([
      { type: "removed", value: "Refunded" },
      { type: "added", value: "Your" },
      { type: "equal", value: " " },
      { type: "removed", value: "$129" },
      { type: "added", value: "order is lost" },
      { type: "equal", value: "." },
    ]);
  });

  it("reads the pairs a window at a time, each pair once, in order", async () => {
    const seen: string[] = [];
    const windows: unknown[] = [];
    for (let from: number | null = 0; from !== null;) {
      const { status, body } = await api(before, after, `?from=${from}&limit=4`);
      expect(status).toBe(200);
      const c = body.comparison as { pairs: { id: string }[]; window: { nextFrom: number | null } };
      seen.push(...c.pairs.map((p) => p.id));
      windows.push(c.window);
      from = c.window.nextFrom;
    }
    expect(seen).toEqual(PAIRS.map(([id]) => id));
    expect(windows).toEqual([
      { from: 0, limit: 4, total: 6, nextFrom: 4 },
      { from: 4, limit: 4, total: 6, nextFrom: null },
    ]);
    // Model inputs as stored, from where the window begins.
    const { body } = await api(before, after, "?from=5&limit=1&inputs=delta");
    const c = body.comparison as { pairs: { id: string; base: { output: unknown; inputPrefix: unknown } }[] };
    expect(c.pairs.map((p) => p.id)).toEqual(["p4-4"]);
    expect(c.pairs[0]!.base.output).toBe("Refunded $129.");
    expect(c.pairs[0]!.base.inputPrefix).toBeNull();
    // Past the end: no pairs, the total still said.
    const past = await api(before, after, "?from=50");
    expect((past.body.comparison as { pairs: unknown[]; window: unknown }).pairs).toEqual([]);
    expect((past.body.comparison as { window: unknown }).window).toEqual({
      from: 50,
      limit: 100,
      total: 6,
      nextFrom: null,
    });
  });

  it("compares the other way round: insertions become removals, the sides swap", async () => {
    const { body } = await api(after, before);
    const c = body.comparison as {
      pairs: { id: string; type: string; base: { name: string } | null; branch: { name: string } | null }[];
    };
    expect(c.pairs.map((p) => [p.id, p.type, (p.type === "inserted" ? p.branch : p.base)!.name])).toEqual([
      ["p0-0", "equal", "gpt-4.1"],
      ["p1-1", "changed", "lookup_order"],
      ["p2-2", "changed", "gpt-4.1"],
      ["r3", "removed", "get_current_time"],
      ["i3", "inserted", "refund_payment"],
      ["p4-4", "changed", "final_output"],
    ]);
    // Two identical runs: every pair equal, no divergence.
    const twin = await api(before, same);
    const t = twin.body.comparison as { pairs: { type: string }[]; firstDivergence: unknown };
    expect(t.pairs.map((p) => p.type)).toEqual(["equal", "equal", "equal", "equal", "equal"]);
    expect(t.firstDivergence).toBeNull();
  });

  it("answers 400 for a session with itself, 404 for an unknown id, 401 without a key, 400 for bad windows", async () => {
    const self = await api(before, before);
    expect([self.status, self.body.error?.code]).toEqual([400, "invalid_input"]);
    const unknownOther = await api(before, "no-such-session");
    expect([unknownOther.status, unknownOther.body.error?.code]).toEqual([404, "not_found"]);
    const unknownFirst = await api("no-such-session", after);
    expect([unknownFirst.status, unknownFirst.body.error?.code]).toEqual([404, "not_found"]);
    expect((await api(before, after, "", null)).status).toBe(401);
    for (const q of ["?limit=0", "?limit=1001", "?from=-1", "?from=1e400", "?inputs=all", "?from=abc"]) {
      const r = await api(before, after, q);
      expect([q, r.status, r.body.error?.code]).toEqual([q, 400, "invalid_input"]);
    }
    // Hostile ids are unknown sessions, nothing more.
    const hostile: [string, number, string][] = [];
    for (const id of ["__proto__", "constructor", "\ud800", "x".repeat(201)]) {
      const r = await api(before, id);
      hostile.push([id.slice(0, 12), r.status, r.body.error?.code ?? ""]);
    }
    expect(hostile).toEqual([
      ["__proto__", 404, "not_found"],
      ["constructor", 404, "not_found"],
      ["\ud800", 404, "not_found"],
      ["xxxxxxxxxxxx", 400, "invalid_input"],
    ]);
  });

  it("serves the compare page's rows, j / k moves and a pair's two sides, aligning the pair once", async () => {
    const ref = { sessionId: before, otherId: after };
    const view = await getSessionComparison(viewer, ref, db.prisma);
    expect(view.counts).toEqual({ all: 6, changes: 5, changed: 3, inserted: 1, removed: 1, unreached: 0 });
    const aligned = sessionComparisonWork().alignments;
    const rows = await listSessionComparisonRows(viewer, { ...ref, filter: "changes", cursor: 1, limit: 2 }, db.prisma);
    expect(rows).toMatchObject({ filter: "changes", cursor: 1, nextCursor: 3, total: 5 });
    expect(rows.rows.map((r) => [r.id, r.index, r.preview])).toEqual([
      ["p2-2", 2, "→ get_current_time"],
      // As the database keeps the arguments (jsonb orders keys by length).
      ["r3", 3, '{"amount":129,"order_id":"4821"} ⇒ {"ok":true}'],
    ]);
    const next = await findSessionComparisonRow(
      viewer,
      { ...ref, filter: "all", pair: "p0-0", direction: 1 },
      db.prisma,
    );
    expect([next?.position, next?.row.id]).toEqual([1, "p1-1"]);
    const prev = await findSessionComparisonRow(
      viewer,
      { ...ref, filter: "all", pair: "p1-1", direction: -1 },
      db.prisma,
    );
    expect(prev).toBeNull();
    const last = await findSessionComparisonRow(viewer, { ...ref, filter: "changes", direction: -1 }, db.prisma);
    expect([last?.position, last?.row.id]).toEqual([4, "p4-4"]);
    const pair = await getSessionComparisonPair(viewer, { ...ref, pairId: "p1-1" }, db.prisma);
    expect(pair.changedPaths).toEqual(["output.status"]);
    expect([pair.base?.output, pair.branch?.output]).toEqual([
      { total: 129, status: "delivered" },
      { total: 129, status: "lost" },
    ]);
    await refusal(getSessionComparisonPair(viewer, { ...ref, pairId: "p9-9" }, db.prisma), "not_found");
    // Every read after the first used the pair's alignment as it was: the sessions did not change.
    expect(sessionComparisonWork().alignments).toBe(aligned);
  });

  it("offers the same agent's other runs to compare with, and finds one by title or id", async () => {
    const latest = await compareCandidates(viewer, { sessionId: before }, db.prisma);
    expect(latest.candidates.map((c) => c.id)).toEqual([same, after]);
    expect(latest.candidates.every((c) => c.sameAgent)).toBe(true);
    const byTitle = await compareCandidates(viewer, { sessionId: before, q: "AFTER the" }, db.prisma);
    expect(byTitle.candidates.map((c) => [c.id, c.label])).toEqual([[after, "Refund, after the release"]]);
    const byId = await compareCandidates(viewer, { sessionId: before, q: same }, db.prisma);
    expect(byId.candidates.map((c) => c.id)).toEqual([same]);
    await refusal(compareCandidates(viewer, { sessionId: "nope" }, db.prisma), "not_found");
  });
});
