import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { spanJson } from "@/lib/db/trace-increment";
import { agentsRunsOf } from "@/lib/ingest/testing";
import { parseOpenAiAgentsExport, type AgentsItem } from "@/lib/ingest/openai-agents-parse";
import { TEST_ENGINES, createTestDatabase, storedSessionsWhole, type TestDatabase } from "@/lib/db/testing";
import { fallbacks } from "./increment";
import { ingestAgentsItems, storeAgentsItems, type TraceIngestResult } from "./traces";

// An Agents SDK export that starts its groups (nothing of its traces or groups stored) takes the incremental
// path, and stores exactly what the full rebuild stores for it.

function ok(result: TraceIngestResult) {
  if (!result.ok) throw new Error(JSON.stringify(result.issues));
  return result;
}

function exportItems(data: unknown[]): AgentsItem[] {
  const parsed = parseOpenAiAgentsExport({ data });
  if (!parsed.ok) throw new Error(JSON.stringify(parsed.issues));
  return parsed.items;
}

/** Two grouped runs of the recording, an ungrouped trace of one generation, and a trace with no step (no session). */
function request(name: string): AgentsItem[] {
  return [
    ...agentsRunsOf(`first-${name}`, 2),
    ...exportItems([
      { object: "trace", id: `lone-${name}`, workflow_name: "wf", group_id: null, metadata: {} },
      {
        object: "trace.span",
        id: `lone-${name}-g`,
        trace_id: `lone-${name}`,
        parent_id: null,
        started_at: "2026-01-01T00:00:00.000Z",
        ended_at: "2026-01-01T00:00:01.000Z",
        span_data: {
          type: "generation",
          model: "m",
          input: [{ role: "user", content: "Where is my refund?" }],
          output: [{ role: "assistant", content: "On its way." }],
        },
        error: null,
      },
      { object: "trace", id: `empty-${name}`, workflow_name: "wf", group_id: null, metadata: {} },
    ]),
  ];
}

describe.each(TEST_ENGINES)("an Agents SDK export's first groups on %s", (engine) => {
  let db: TestDatabase;
  beforeAll(async () => {
    db = await createTestDatabase(engine);
  });
  afterAll(async () => {
    await db?.drop();
  });

  /** Everything stored of some sessions and of the request's rows, the other path's names made `inc`. */
  async function storedOf(result: TraceIngestResult & { ok: true }, name: string) {
    const ids = result.sessions.map((x) => x.id);
    const sessions = await storedSessionsWhole(db.prisma, ids);
    // Every row of the request's traces, those of no session too.
    const rows = await db.prisma.traceSpan.findMany({
      where: { OR: [{ traceId: { contains: `-${name}` } }, { groupKey: { contains: `-${name}` } }] },
      orderBy: [{ traceId: "asc" }, { spanId: "asc" }],
      omit: { id: true, receivedAt: true, packed: true },
      include: { session: { select: { externalId: true } } },
    });
    const packed = await db.prisma.traceSpan.findMany({
      where: { traceId: { in: rows.map((r) => r.traceId) } },
      orderBy: [{ traceId: "asc" }, { spanId: "asc" }],
      select: { packed: true },
    });
    const text = JSON.stringify(
      {
        sessions,
        rows: rows.map(({ sessionId, ...r }) => ({ ...r, inSession: sessionId !== null })),
        packed: packed.map((p) => (p.packed ? spanJson(p.packed) : null)),
      },
      (_k, v: unknown) => (typeof v === "bigint" ? v.toString() : v),
    );
    return text.replaceAll(`-${name}`, "-inc").replaceAll(`_${name}_`, "_inc_");
  }

  it("takes the incremental path and stores exactly what the full rebuild stores", async () => {
    const before = fallbacks.get("agents: a group without a session yet") ?? 0;
    const incremental = ok(await ingestAgentsItems(db.prisma, request(`inc`)));
    const full = ok(
      await db.prisma.$transaction((tx) => storeAgentsItems(tx, request(`full`), { lock: false, increment: false })),
    );
    expect(incremental.incremental).toBe(true);
    expect(full.incremental).toBe(false);
    expect(fallbacks.get("agents: a group without a session yet") ?? 0).toBe(before);
    const stored = await storedOf(incremental, "inc");
    expect(stored).toBe(await storedOf(full, "full"));
    const parsed = JSON.parse(stored) as {
      sessions: { externalId: string; eventCount: number; traceState: unknown; traces: unknown[] }[];
      rows: { groupKey: string; inSession: boolean }[];
    };
    // The group of two runs and the lone generation have sessions; the trace with no step has its row alone.
    expect(parsed.sessions.map((s) => [s.externalId, s.eventCount, s.traces.length])).toEqual([
      ["group:first-inc", 16, 2],
      ["trace:lone-inc", 2, 1],
    ]);
    expect(parsed.sessions.every((s) => s.traceState !== null)).toBe(true);
    expect(parsed.rows.filter((r) => !r.inSession).map((r) => r.groupKey)).toEqual(["openai-agents:trace:empty-inc"]);
    // Reported as the full rebuild reports them, in the same order, with the same counts.
    const reported = (result: typeof full) => JSON.stringify(result.sessions.map(({ id: _id, ...x }) => x));
    expect(reported(incremental)).toBe(reported(full).replaceAll("-full", "-inc"));
    expect([incremental.received, incremental.inserted, incremental.updated]).toEqual([
      full.received,
      full.inserted,
      full.updated,
    ]);
  });

  it("a group holding a trace stored without a session sends its next new trace to the full rebuild", async () => {
    // A trace item alone (no step: its group has no session), then another trace of the same group.
    const first = exportItems([
      { object: "trace", id: "a-later", workflow_name: "wf", group_id: "later", metadata: {} },
    ]);
    expect(ok(await ingestAgentsItems(db.prisma, first)).incremental).toBe(true);
    const second = exportItems([
      { object: "trace", id: "b-later", workflow_name: "wf", group_id: "later", metadata: {} },
      {
        object: "trace.span",
        id: "b-later-g",
        trace_id: "b-later",
        parent_id: null,
        started_at: "2026-01-01T00:00:00.000Z",
        ended_at: "2026-01-01T00:00:01.000Z",
        span_data: { type: "generation", model: "m", input: [{ role: "user", content: "Hi?" }], output: [] },
        error: null,
      },
    ]);
    const before = fallbacks.get("agents: a group without a session yet") ?? 0;
    const result = ok(await ingestAgentsItems(db.prisma, second));
    expect(result.incremental).toBe(false);
    expect(fallbacks.get("agents: a group without a session yet")).toBe(before + 1);
    expect(result.sessions.map((s) => [s.externalId, s.eventCount])).toEqual([["group:later", 1]]);
    // Both traces' rows are now the session's.
    const rows = await db.prisma.traceSpan.findMany({
      where: { groupKey: "openai-agents:group:later" },
      orderBy: { spanId: "asc" },
      select: { spanId: true, sessionId: true },
    });
    expect(rows).toEqual([
      { spanId: "a-later", sessionId: result.sessions[0]!.id },
      { spanId: "b-later", sessionId: result.sessions[0]!.id },
      { spanId: "b-later-g", sessionId: result.sessions[0]!.id },
    ]);
  });
});
