import { readFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { getSession, sessionEventRows, sessionHead } from "@/lib/db/session-reads";
import type { Db } from "@/lib/db/client";
import { withTraceIds } from "@/lib/db/session-traces";
import { sessionOverview } from "@/lib/db/session-window";
import { localAdmin } from "@/lib/server/principal";
import { listSessionSteps, searchSession } from "@/lib/server/sessions/session-pages";
import { TEST_ENGINES, createTestDatabase, type TestDatabase } from "@/lib/db/testing";
import { ingestAgentsItems, ingestOtlpSpans } from "@/lib/server/ingest/traces";
import { mapOpenAiAgentsItems } from "@/lib/ingest/openai-agents";
import type { AgentsItem } from "@/lib/ingest/openai-agents-parse";
import { mapOtlpSpans, type OtlpSpan } from "@/lib/ingest/otlp";
import { recordings, spansOf } from "@/lib/ingest/otlp/testing";
import { agentsRunsOf } from "@/lib/ingest/testing";
import { presentSession, presentSessionJson } from "./present";
import { streamedJson } from "./stream";

// A trace-ingested session's trace ids are stored as rows, not in its metadata: every document that shows
// the metadata must still read byte for byte as when the list was stored in it.

type Inputs = "full" | "delta";

const MINUTE = 60_000_000_000n;

/** `copies` runs of a recording in one session `name`, a minute apart, under trace ids of their own. */
function sessionOf(recording: string, name: string, copies: number): OtlpSpan[] {
  const spans = spansOf(recordings("json").get(recording)!);
  const out: OtlpSpan[] = [];
  for (let c = 0; c < copies; c++) {
    const shift = BigInt(c) * MINUTE;
    const rename = (attrs: Record<string, unknown>) => {
      const copy = { ...attrs };
      for (const key of ["session.id", "gen_ai.conversation.id", "ai.telemetry.metadata.sessionId"])
        if (typeof copy[key] === "string") copy[key] = name;
      return copy;
    };
    const runSpans = spans.map(
      (s) => JSON.parse(JSON.stringify(s).replace(/call_(lookup|refund|time)_(\d+)/g, `call_$1_$2_${c}`)) as OtlpSpan,
    );
    for (const s of runSpans)
      out.push({
        ...s,
        traceId: `${(9 - c).toString(16).padStart(12, "0")}${s.traceId.slice(12)}`,
        startTimeUnixNano: String(BigInt(s.startTimeUnixNano) + shift),
        endTimeUnixNano: s.endTimeUnixNano === null ? null : String(BigInt(s.endTimeUnixNano) + shift),
        attributes: rename(s.attributes),
        resource: rename(s.resource),
      });
  }
  return out;
}

/** The statements of the migration that move stored lists out of the metadata (the data part). */
function migrationMoves(): string[] {
  const file = path.join(import.meta.dirname, "../../prisma/migrations/20261201030000_session_trace_ids/migration.sql");
  return readFileSync(file, "utf8")
    .split(";\n")
    .map((s) =>
      s
        .split("\n")
        .filter((l) => !l.startsWith("--"))
        .join("\n")
        .trim(),
    )
    .filter((s) => s.startsWith('INSERT INTO "SessionTrace"') || s.startsWith('UPDATE "Session" s SET'));
}

describe.each(TEST_ENGINES)("trace ids of trace-ingested sessions on %s", (engine) => {
  let db: TestDatabase;
  beforeAll(async () => {
    db = await createTestDatabase(engine);
  });
  afterAll(async () => {
    await db?.drop();
  });

  /** A metadata as the stored jsonb gives it back (its keys in the database's order), as JSON text. */
  async function asJsonb(metadata: unknown): Promise<string> {
    const [{ text }] = await db.prisma.$queryRaw<
      [{ text: string }]
    >`SELECT ${JSON.stringify(metadata)}::jsonb::text AS text`;
    return JSON.stringify(JSON.parse(text));
  }

  /** Every document that shows the session's metadata shows exactly `expected` (JSON text). */
  async function expectDocuments(id: string, expected: string) {
    for (const inputs of ["full", "delta"] as Inputs[]) {
      const head = (await sessionHead(db.prisma, id))!;
      const response = await streamedJson(presentSessionJson(head, sessionEventRows(db.prisma, id, 3), { inputs }), {
        where: "a test",
        chunkChars: 500,
      });
      const text = await response.text();
      expect(text).toContain(`"metadata":${expected},`);
      expect(JSON.stringify((JSON.parse(text) as { session: { metadata: unknown } }).session.metadata)).toBe(expected);
      const whole = (await getSession(db.prisma, id, { inputs }))!;
      expect(JSON.stringify({ session: presentSession(whole, { inputs }) })).toBe(text);
    }
    expect(JSON.stringify((await sessionOverview(db.prisma, id))!.metadata)).toBe(expected);
  }

  async function storedRow(id: string) {
    const [row] = await db.prisma.$queryRaw<[{ metadata: string; traces: string[] }]>`
      SELECT metadata::text AS metadata, ARRAY(SELECT "traceId" FROM "SessionTrace" WHERE "sessionId" = ${id}
        ORDER BY "traceId" COLLATE "C") AS traces FROM "Session" WHERE id = ${id}`;
    return row;
  }

  /** The session stored as before the migration (its list in its metadata, no rows), then migrated. */
  async function expectMigrated(id: string, expected: string) {
    await db.prisma.$executeRaw`
      UPDATE "Session" SET metadata = metadata || jsonb_build_object('traceIds', (
        SELECT jsonb_agg("traceId" ORDER BY "traceId" COLLATE "C") FROM "SessionTrace" WHERE "sessionId" = ${id}))
      WHERE id = ${id}`;
    await db.prisma.$executeRaw`DELETE FROM "SessionTrace" WHERE "sessionId" = ${id}`;
    expect(JSON.stringify(JSON.parse((await storedRow(id)).metadata))).toBe(expected);
    await expectDocuments(id, expected);
    const moves = migrationMoves();
    expect(moves).toHaveLength(2);
    for (const statement of moves) await db.prisma.$executeRawUnsafe(statement);
    expect(JSON.parse((await storedRow(id)).metadata)).not.toHaveProperty("traceIds");
    await expectDocuments(id, expected);
  }

  it("an OTLP session sent trace by trace shows the whole mapping's metadata, its trace ids stored as rows", async () => {
    const all = sessionOf("ai6-generate", `trace-ids-${engine}`, 5);
    const traces = [...new Set(all.map((s) => s.traceId))].slice(0, 4);
    const spans = all.filter((s) => traces.includes(s.traceId));
    expect(traces).toHaveLength(4);
    let id = "";
    for (const t of [2, 0, 3, 1]) {
      const result = await ingestOtlpSpans(
        db.prisma,
        spans.filter((s) => s.traceId === traces[t]),
        "otlp-json",
      );
      if (!result.ok) throw new Error("ingest failed");
      // Every export takes the incremental path, the first (a new session) too.
      expect(result.incremental).toBe(true);
      id = result.sessions[0]!.id;
    }
    const reference = mapOtlpSpans(spans);
    if (!reference.ok) throw new Error("map failed");
    expect(reference.sessions).toHaveLength(1);
    const expected = await asJsonb(reference.sessions[0]!.metadata);
    expect(expected).toContain('"traceIds":[');
    const row = await storedRow(id);
    expect(JSON.parse(row.metadata)).not.toHaveProperty("traceIds");
    expect(row.traces).toEqual([...traces].sort());
    await expectDocuments(id, expected);
    await expectMigrated(id, expected);

    // Given a replay, the session is kept when more spans arrive (superseded): it still shows its own list,
    // and the new session the whole mapping's.
    await db.prisma.replay.create({
      data: { sessionId: id, policySnapshot: {}, policyHash: "h", status: "completed" },
    });
    const fifth = all.filter((s) => !traces.includes(s.traceId));
    const rebuilt = await ingestOtlpSpans(db.prisma, fifth, "otlp-json");
    if (!rebuilt.ok) throw new Error("ingest failed");
    const newId = rebuilt.sessions[0]!.id;
    expect(newId).not.toBe(id);
    const head = (await sessionHead(db.prisma, id))!;
    const { supersededBy, superseded: _s, ...kept } = head.metadata as Record<string, unknown>;
    expect(supersededBy).toBe(newId);
    expect(JSON.stringify(kept)).toBe(expected);
    const whole = mapOtlpSpans(all);
    if (!whole.ok) throw new Error("map failed");
    await expectDocuments(newId, await asJsonb(whole.sessions[0]!.metadata));
  });

  it("a window or search of a trace-ingested session reads no trace id, and a reader's list goes into the metadata it read", async () => {
    // Trace ids of their own (the other tests' sessions use the recording's, shifted the same way).
    const spans = sessionOf("ai6-generate", `trace-ids-windows-${engine}`, 2).map((s) => ({
      ...s,
      traceId: `ab${s.traceId.slice(2)}`,
    }));
    const result = await ingestOtlpSpans(db.prisma, spans, "otlp-json");
    if (!result.ok) throw new Error("ingest failed");
    const id = result.sessions[0]!.id;
    /** The raw statements a client sends, as text (the trace ids are read by one). */
    const sent: string[] = [];
    const watched = db.prisma.$extends({
      query: {
        async $queryRaw({ args, query }) {
          sent.push(JSON.stringify(args));
          return (await query(args)) as unknown;
        },
      },
    }) as unknown as Db;
    const viewer = localAdmin("a test");
    const steps = await listSessionSteps(viewer, { sessionId: id, limit: 50 }, watched);
    const found = await searchSession(viewer, { sessionId: id, q: "refund", in: "steps" }, watched);
    expect([steps.steps.length > 0, found.matches > 0]).toEqual([true, true]);
    expect(sent.filter((text) => text.includes("SessionTrace"))).toEqual([]);
    // The overview a page shows has them, put into the metadata as it was read (not read again).
    const overview = (await sessionOverview(watched, id))!;
    expect(sent.filter((text) => text.includes("SessionTrace"))).toHaveLength(1);
    expect((overview.metadata as { traceIds: string[] }).traceIds).toEqual(
      [...new Set(spans.map((s) => s.traceId))].sort(),
    );
    const [older] = await withTraceIds(db.prisma, [{ ...overview, metadata: { read: "before" } }]);
    expect(older!.metadata).toEqual({
      read: "before",
      traceIds: (overview.metadata as { traceIds: string[] }).traceIds,
    });
  });

  it("an Agents SDK group sent run by run shows the whole mapping's metadata, its trace ids stored as rows", async () => {
    const group = `traces-${engine}`;
    const items: AgentsItem[] = agentsRunsOf(group, 3);
    const runs = [...new Set(items.map((i) => (i.object === "trace" ? i.id : i.traceId)))];
    expect(runs).toHaveLength(3);
    // Out of code-point order of the ids: the second run first.
    let id = "";
    for (const run of [runs[1]!, runs[0]!, runs[2]!]) {
      const result = await ingestAgentsItems(
        db.prisma,
        items.filter((i) => (i.object === "trace" ? i.id : i.traceId) === run),
      );
      if (!result.ok) throw new Error("ingest failed");
      // Every export takes the incremental path, the first (a new group) too.
      expect(result.incremental).toBe(true);
      id = result.sessions.find((s) => s.externalId === `group:${group}`)!.id;
    }
    const reference = mapOpenAiAgentsItems(items);
    if (!reference.ok) throw new Error("map failed");
    const session = reference.sessions.find((s) => s.externalId === `group:${group}`)!;
    const expected = await asJsonb(session.metadata);
    expect(expected).toContain(`"traceIds":${JSON.stringify([...runs].sort())}`);
    const row = await storedRow(id);
    expect(JSON.parse(row.metadata)).not.toHaveProperty("traceIds");
    expect(row.traces).toEqual([...runs].sort());
    await expectDocuments(id, expected);
    await expectMigrated(id, expected);
  });
});
