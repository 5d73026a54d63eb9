import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createApiKey, type Database } from "@/lib/db";
import { saveImportedSessions } from "@/lib/db/session-save";
import { TEST_ENGINES, createTestDatabase, type TestDatabase } from "@/lib/db/testing";
import { importDocument } from "@/lib/ingest";
import { longChatLog } from "@/lib/ingest/long-chat";
import { sessionComparisonWork } from "@/lib/server/sessions/session-compare";
import { GET } from "./route";

// Two 10,001-step runs of one long chat (5,000 order lookups), the second answering one lookup in the middle
// otherwise: the comparison is aligned in work linear in the two lengths, and read a window at a time.

const TURNS = 5000;
/** The turn whose lookup answers otherwise in the second run: its tool call is event 2·TURN + 1. */
const TURN = 2500;

const global = globalThis as unknown as { __branchpointDb?: Promise<Database> };

async function importLog(db: TestDatabase, log: ReturnType<typeof longChatLog>) {
  const result = importDocument(JSON.stringify(log), { format: "openai-chat" });
  if (!result.ok) throw new Error(JSON.stringify(result.issues.slice(0, 3)));
  const [saved] = await saveImportedSessions(db.prisma, result.sessions);
  return saved!.id;
}

describe.each(TEST_ENGINES)("comparing two 10,001-step sessions on %s", (engine) => {
  let db: TestDatabase;
  let key: string;
  let a: string;
  let b: string;

  beforeAll(async () => {
    db = await createTestDatabase(engine);
    a = await importLog(db, longChatLog(TURNS));
    const other = longChatLog(TURNS);
    // The tool answer of turn TURN: after the system and user messages, two messages per turn.
    const answer = other.messages[2 + 2 * TURN + 1] as { role: string; content: string };
    expect(answer.role).toBe("tool");
    answer.content = JSON.stringify({ ...(JSON.parse(answer.content) as object), status: "lost" });
    b = await importLog(db, other);
    key = (await createApiKey(db.prisma, "script")).key;
    global.__branchpointDb = Promise.resolve(db);
  }, 600_000);
  afterAll(async () => {
    global.__branchpointDb = undefined;
    await db?.drop();
  });

  const api = async (query: string) => {
    const res = await GET(
      new Request(`http://127.0.0.1/api/v1/sessions/${a}/compare/${b}${query}`, {
        headers: { authorization: `Bearer ${key}` },
      }),
      { params: Promise.resolve({ id: a, otherId: b }) },
    );
    expect(res.status).toBe(200);
    return ((await res.json()) as { comparison: Record<string, unknown> }).comparison;
  };

  it("aligns them in linear work, names the changed lookup and answers windows in the middle", async () => {
    const tool = await db.prisma.event.findFirstOrThrow({
      where: { sessionId: a, kind: "tool_call" },
      orderBy: { seq: "asc" },
      skip: TURN,
      select: { seq: true },
    });
    const toolSeq = tool.seq;
    const total = (await db.prisma.session.findUniqueOrThrow({ where: { id: a } })).eventCount;
    expect(total).toBeGreaterThanOrEqual(10_001);
    const before = sessionComparisonWork();
    const started = performance.now();
    const first = await api("?limit=3");
    const firstMs = performance.now() - started;
    const work = sessionComparisonWork();
    expect(work.alignments - before.alignments).toBe(1);
    const steps = work.steps - before.steps;
    // 2 × 10,001 events: a few passes over each, never their product (10⁸).
    expect(steps).toBeLessThan(10 * 2 * total);
    expect(first.firstDivergence).toEqual({
      pairIndex: toolSeq,
      id: `p${toolSeq}-${toolSeq}`,
      type: "changed",
      baseSeq: toolSeq,
      branchSeq: toolSeq,
      summary: "tool_call get_order_details: result changed",
    });
    // Every model call after it was sent the changed answer: its input differs, so it is changed too.
    const laterModelCalls = TURNS - TURN;
    expect(first.counts).toEqual({
      all: total,
      changes: 1 + laterModelCalls,
      changed: 1 + laterModelCalls,
      inserted: 0,
      removed: 0,
      unreached: 0,
    });
    expect(first.window).toEqual({ from: 0, limit: 3, total, nextFrom: 3 });

    const t1 = performance.now();
    const mid = (await api(`?from=${toolSeq - 1}&limit=3&inputs=delta`)) as {
      pairs: { id: string; type: string; delta?: unknown }[];
    };
    const windowMs = performance.now() - t1;
    expect(mid.pairs.map((p) => [p.id, p.type])).toEqual([
      [`p${toolSeq - 1}-${toolSeq - 1}`, "equal"],
      [`p${toolSeq}-${toolSeq}`, "changed"],
      [`p${toolSeq + 1}-${toolSeq + 1}`, "changed"],
    ]);
    // The window was read without aligning again.
    expect(sessionComparisonWork().alignments).toBe(work.alignments);
    console.log(
      `[${engine}] two ${total}-step sessions: first answer ${firstMs.toFixed(0)} ms (alignment ${steps} steps of work), a window in the middle ${windowMs.toFixed(0)} ms`,
    );
  }, 300_000);
});
