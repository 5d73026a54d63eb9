import { gzipSync } from "node:zlib";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { spanJson } from "@/lib/db/trace-increment";
import { mapOtlpSpans, type OtlpSpan } from "@/lib/ingest/otlp";
import { recordings, spansOf } from "@/lib/ingest/otlp/testing";
import type { SessionEvent } from "@/lib/replay";
import { getSession, toSessionEvent } from "@/lib/db/session-reads";
import {
  TEST_ENGINES,
  createTestDatabase,
  storedSessionsWhole,
  type TestDatabase,
  indexEntriesRead,
} from "@/lib/db/testing";
import { ingestOtlpSpans, storeOtlpSpans, type TraceIngestResult } from "./traces";

// The incremental ingest (./trace-increment.ts) must give, after EVERY export,
// the session the full mapper gives for all the spans sent so far: events
// (order, parents, full inputs, occurrences) and the session's own fields.

const MINUTE = 60_000_000_000n;

/** `copies` runs of a recording in one session `name`, a minute apart, under trace ids of their own. */
function sessionOf(recording: string, name: string, copies: number, tag: number): OtlpSpan[] {
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
    // Each run's tool calls get ids of their own, as a real agent's do.
    const runSpans = spans.map(
      (s) => JSON.parse(JSON.stringify(s).replace(/call_(lookup|refund|time)_(\d+)/g, `call_$1_$2_${c}`)) as OtlpSpan,
    );
    for (const s of runSpans)
      out.push({
        ...s,
        traceId: `${tag.toString(16).padStart(8, "0")}${c.toString(16).padStart(4, "0")}${s.traceId.slice(12)}`,
        startTimeUnixNano: String(BigInt(s.startTimeUnixNano) + shift),
        endTimeUnixNano: s.endTimeUnixNano === null ? null : String(BigInt(s.endTimeUnixNano) + shift),
        attributes: rename(s.attributes),
        resource: rename(s.resource),
      });
  }
  return out;
}

/** The spans in the order they started. */
function byStart(spans: readonly OtlpSpan[]): OtlpSpan[] {
  return [...spans].sort((a, b) => (BigInt(a.startTimeUnixNano) < BigInt(b.startTimeUnixNano) ? -1 : 1));
}

function ok(result: TraceIngestResult) {
  if (!result.ok) throw new Error(JSON.stringify(result.issues));
  return result;
}

/** Events as the database keeps them: durations in whole milliseconds. */
function asStored(events: readonly SessionEvent[]): SessionEvent[] {
  return events.map((e) => ({ ...e, durationMs: e.durationMs === null ? null : Math.round(e.durationMs) }));
}

const ms = (iso: string | null) => (iso === null ? null : new Date(iso).toISOString());

describe.each(TEST_ENGINES)("incremental trace ingest on %s", (engine) => {
  let db: TestDatabase;
  let tag = 0x100;
  beforeAll(async () => {
    db = await createTestDatabase(engine);
  });
  afterAll(async () => {
    await db?.drop();
  });

  /** Every session the spans sent so far make, as stored, equals the full mapper's. */
  async function expectSessionsOf(sent: readonly OtlpSpan[]) {
    const reference = mapOtlpSpans(sent);
    if (!reference.ok) return;
    for (const expected of reference.sessions) {
      const rows = await db.prisma.session.findMany({
        where: { format: "otlp-json", externalId: expected.externalId },
        select: { id: true },
      });
      expect(rows).toHaveLength(1);
      const stored = (await getSession(db.prisma, rows[0]!.id))!;
      expect(stored.events.map(toSessionEvent)).toEqual(asStored(expected.events));
      expect(stored.title).toBe(expected.title);
      expect(stored.metadata).toEqual(expected.metadata);
      expect(stored.startedAt?.toISOString() ?? null).toBe(ms(expected.startedAt));
      expect(stored.endedAt?.toISOString() ?? null).toBe(ms(expected.endedAt));
      expect(stored.agent.name).toBe(expected.agent.name);
      // (Not the agent's adapter: agents are shared by name, and keep the adapter they were first stored with.)
      expect(stored.eventCount).toBe(expected.events.length);
      expect(stored.toolCallCount).toBe(expected.events.filter((e) => e.kind === "tool_call").length);
    }
  }

  /**
   * `ordered` from `from` on as exports of 5 spans, each on the incremental path (`afterEach` told the spans sent
   * so far after each); the spans sent, the first `from` counted as sent already.
   */
  async function sendInFives(
    ordered: readonly OtlpSpan[],
    from: number,
    afterEach?: (sent: readonly OtlpSpan[]) => Promise<void>,
  ): Promise<OtlpSpan[]> {
    const sent = ordered.slice(0, from);
    for (let i = from; i < ordered.length; i += 5) {
      const batch = ordered.slice(i, i + 5);
      expect(ok(await ingestOtlpSpans(db.prisma, batch, "otlp-json")).incremental).toBe(true);
      sent.push(...batch);
      await afterEach?.(sent);
    }
    return sent;
  }

  it("a session sent as 100 exports equals the one sent as 1, and every export is incremental but those adding to spans without a session", async () => {
    const name = `hundred-${engine}`;
    const spans = sessionOf("ai6-stream", name, 25, tag++);
    const one = sessionOf("ai6-stream", `one-${engine}`, 25, tag++);
    ok(await ingestOtlpSpans(db.prisma, one, "otlp-json"));
    // As an exporter sends them: each span when it ends.
    const ordered = [...spans].sort((a, b) =>
      BigInt(a.endTimeUnixNano ?? a.startTimeUnixNano) < BigInt(b.endTimeUnixNano ?? b.startTimeUnixNano) ? -1 : 1,
    );
    const paths: boolean[] = [];
    const expected: boolean[] = [];
    for (let b = 0; b < 100; b++) {
      const batch = ordered.slice(Math.floor((b * ordered.length) / 100), Math.floor(((b + 1) * ordered.length) / 100));
      if (batch.length === 0) continue;
      // The full rebuild only while spans are stored but no session yet (no model or tool step among them):
      // the first export starts the group on the incremental path, and once the session exists each export
      // re-maps only its window.
      const stored = await db.prisma.traceSpan.count({ where: { groupKey: `otlp:session:${name}` } });
      const session = await db.prisma.session.count({ where: { externalId: `session:${name}` } });
      expected.push(stored === 0 || session === 1);
      paths.push(ok(await ingestOtlpSpans(db.prisma, batch, "otlp-json")).incremental);
    }
    expect(paths).toEqual(expected);
    expect(paths[0]).toBe(true);
    expect(paths.filter((p) => !p).length).toBeLessThan(5);
    await expectSessionsOf(spans);
    const read = async (externalId: string) => {
      const row = await db.prisma.session.findFirstOrThrow({ where: { externalId }, select: { id: true } });
      return (await getSession(db.prisma, row.id))!;
    };
    const a = await read(`session:one-${engine}`);
    const b = await read(`session:${name}`);
    // Events, order, parents and full inputs are the same; only the session's name differs.
    expect(b.events.map(toSessionEvent)).toEqual(a.events.map(toSessionEvent));
    expect(b.events.length).toBe(a.events.length);
  });

  it("a new session's first export takes the incremental path and stores exactly what the full rebuild stores", async () => {
    // Two new sessions in one request, sent once on each path under other names and trace ids.
    const [a, b] = [tag++, tag++];
    const request = (t: number, which: string) => [
      ...sessionOf("ai6-generate", `first-${which}-${engine}`, 3, t),
      ...sessionOf("ai7-genai-stream", `second-${which}-${engine}`, 2, t + 0x1000),
    ];
    const incremental = ok(await ingestOtlpSpans(db.prisma, request(a, "inc"), "otlp-json"));
    const full = ok(
      await db.prisma.$transaction((tx) =>
        storeOtlpSpans(tx, request(b, "full"), "otlp-json", { lock: false, increment: false }),
      ),
    );
    expect(incremental.incremental).toBe(true);
    expect(full.incremental).toBe(false);
    const hex = (t: number) => t.toString(16).padStart(8, "0");
    /** Text of the stored rows of one path with its names and trace ids made the incremental one's. */
    const asIncremental = (text: string, which: string, t: number) =>
      text
        .replaceAll(`-${which}-`, "-inc-")
        .replaceAll(hex(t), hex(a))
        .replaceAll(hex(t + 0x1000), hex(a + 0x1000));
    // Everything stored of a session, its names and trace ids made the incremental one's.
    const storedOf = async (result: typeof full, which: string, t: number) => {
      const ids = result.sessions.map((x) => x.id);
      const sessions = await storedSessionsWhole(db.prisma, ids);
      const packed = await db.prisma.traceSpan.findMany({
        where: { sessionId: { in: ids } },
        orderBy: [{ traceId: "asc" }, { spanId: "asc" }],
        select: { packed: true },
      });
      const text = JSON.stringify({ sessions, packed: packed.map((p) => spanJson(p.packed!)) }, (_k, v: unknown) =>
        typeof v === "bigint" ? v.toString() : v,
      );
      return asIncremental(text, which, t);
    };
    const stored = await storedOf(incremental, "inc", a);
    expect(stored).toBe(await storedOf(full, "full", b));
    const parsed = JSON.parse(stored) as {
      sessions: { externalId: string; eventCount: number; cluster: unknown; traceState: unknown }[];
    };
    // The named session and the second recording's two runs (it names no session: a group per trace), each
    // a failed run in a cluster.
    const keyOf = (externalId: string) => (externalId.startsWith(`trace:${hex(a + 0x1000)}`) ? "trace" : externalId);
    expect(parsed.sessions.map((s) => [keyOf(s.externalId), s.eventCount, s.cluster !== null])).toEqual([
      [`session:first-inc-${engine}`, 24, true],
      ["trace", 8, true],
      ["trace", 8, true],
    ]);
    expect(parsed.sessions.every((s) => s.traceState !== null)).toBe(true);
    // Reported as the full rebuild reports them: in the same order, with the same counts.
    const reported = (result: typeof full) => JSON.stringify(result.sessions.map(({ id: _id, ...x }) => x));
    expect(reported(incremental)).toBe(asIncremental(reported(full), "full", b));
    expect([incremental.received, incremental.inserted, incremental.updated]).toEqual([
      full.received,
      full.inserted,
      full.updated,
    ]);
    await expectSessionsOf(request(a, "inc"));
  });

  it("an export that adds to a session scans no table whole, though its plans were made while the tables were small", async () => {
    // A database of its own: the plans of the per-export statements are made on its first incremental export.
    const own = await createTestDatabase(engine);
    try {
      const spans = sessionOf("ai6-generate", `small-${engine}`, 3, tag++);
      const traces = [...new Set(spans.map((s) => s.traceId))];
      const ofTrace = (t: number) => spans.filter((s) => s.traceId === traces[t]);
      expect(ok(await ingestOtlpSpans(own.prisma, ofTrace(0), "otlp-json")).incremental).toBe(true);
      expect(ok(await ingestOtlpSpans(own.prisma, ofTrace(1), "otlp-json")).incremental).toBe(true);
      // The tables grow well past what a whole scan would be cheap for.
      ok(await ingestOtlpSpans(own.prisma, sessionOf("ai6-generate", `big-${engine}`, 80, tag++), "otlp-json"));
      const scans = await own.prisma.$transaction(async (tx) => {
        // (Without the advisory locks: this is about the export's own reads.)
        expect(ok(await storeOtlpSpans(tx, ofTrace(2), "otlp-json", { lock: false })).incremental).toBe(true);
        // Rows read by scans of the table's heap (the engines differ on whether a bitmap scan's rows count here,
        // so the bound is a fraction of the table: one whole scan would read all of it).
        return tx.$queryRaw<{ relname: string; read: bigint }[]>`
          SELECT relname, seq_tup_read AS read FROM pg_stat_xact_user_tables
          WHERE relname IN ('TraceSpan', 'Event') ORDER BY relname`;
      });
      const spansStored = 83 * ofTrace(0).length;
      expect(scans.map((r) => r.relname)).toEqual(["Event", "TraceSpan"]);
      expect(await own.prisma.traceSpan.count()).toBe(spansStored);
      // Of ~660 rows in each table, the export reads its own trace's and a few of the last model call's.
      for (const r of scans) expect(Number(r.read), r.relname).toBeLessThan(spansStored / 10);
    } finally {
      await own.drop();
    }
  });

  it("an export reads only its own session's spans naming its call ids, however many other sessions reuse them", async () => {
    // Providers that number tool calls per conversation (call_0, call_1, …) give every session the same ids:
    // 50 other sessions here name exactly the call ids of `shared`, none those of `own`.
    const others = Array.from({ length: 50 }, () => sessionOf("ai6-generate", `reused-${engine}-${tag}`, 3, tag++));
    ok(await ingestOtlpSpans(db.prisma, others.flat(), "otlp-json"));
    const shared = sessionOf("ai6-generate", `shared-ids-${engine}`, 3, tag++);
    const own = sessionOf("ai6-generate", `own-ids-${engine}`, 3, tag++).map(
      (s) => JSON.parse(JSON.stringify(s).replace(/call_(lookup|refund|time)_/g, "own_$1_")) as OtlpSpan,
    );
    const namedBy = (spans: readonly OtlpSpan[]) =>
      new Set(JSON.stringify(spans).match(/\b[a-z]+_(lookup|refund|time)_\d+_\d+/g));
    expect([...namedBy(shared)].every((id) => namedBy(others[0]!).has(id))).toBe(true);
    expect([...namedBy(own)].some((id) => namedBy(others.flat()).has(id))).toBe(false);
    // What the third export of each reads of the TraceSpan table, index by index: the counts after it less
    // those before (the engine keeps counting across transactions until it reports them).
    const readsOfThird = async (spans: readonly OtlpSpan[]) => {
      const traces = [...new Set(spans.map((s) => s.traceId))];
      const ofTrace = (t: number) => spans.filter((s) => s.traceId === traces[t]);
      for (const t of [0, 1]) ok(await ingestOtlpSpans(db.prisma, ofTrace(t), "otlp-json"));
      return db.prisma.$transaction(async (tx) => {
        const counts = async () =>
          (
            await tx.$queryRaw<{ relation: string; scans: bigint; read: bigint }[]>`
              SELECT c.relname AS relation, pg_stat_get_xact_numscans(c.oid) AS scans,
                (CASE WHEN c.relkind = 'r' THEN pg_stat_get_xact_tuples_fetched(c.oid)
                  ELSE pg_stat_get_xact_tuples_returned(c.oid) END) AS read
              FROM pg_class c WHERE c.oid = '"TraceSpan"'::regclass
                OR c.oid IN (SELECT indexrelid FROM pg_index WHERE indrelid = '"TraceSpan"'::regclass)`
          ).map((r) => ({ relation: r.relation, scans: Number(r.scans), read: Number(r.read) }));
        const before = await counts();
        expect(ok(await storeOtlpSpans(tx, ofTrace(2), "otlp-json", { lock: false })).incremental).toBe(true);
        const after = await counts();
        return Object.fromEntries(
          after.map((r) => {
            const b = before.find((x) => x.relation === r.relation)!;
            return [r.relation, { scans: r.scans - b.scans, read: r.read - b.read }];
          }),
        );
      });
    };
    const ofShared = await readsOfThird(shared);
    const ofOwn = await readsOfThird(own);
    // The window's call ids are looked up by session and call id: none of the 50 sessions' spans is read,
    // and the export reads what the same export into a session nobody shares call ids with reads.
    expect(ofShared["TraceSpan_sessionCallKeys_idx"]).toEqual({ scans: 1, read: 0 });
    expect(ofShared).toEqual(ofOwn);
    await expectSessionsOf(shared);
    await expectSessionsOf(own);
  });

  it("an export reads as many index entries into a session of 60 traces as into one of 3, though no statistics know them", async () => {
    // A database of its own whose tables are never analyzed (as before autovacuum's first run on them, or
    // between its runs for a session that grew since): the planner thinks a session has a row or two.
    const own = await createTestDatabase(engine);
    try {
      await own.prisma.$executeRawUnsafe(`ALTER TABLE "Event" SET (autovacuum_enabled = false)`);
      await own.prisma.$executeRawUnsafe(`ALTER TABLE "TraceSpan" SET (autovacuum_enabled = false)`);
      const lastTraceOf = (copies: number) => {
        const spans = sessionOf("ai6-generate", `stale-stats-${copies}-${engine}`, copies, tag++);
        const last = spans.at(-1)!.traceId;
        return { first: spans.filter((s) => s.traceId !== last), last: spans.filter((s) => s.traceId === last) };
      };
      const [short, long] = [lastTraceOf(3), lastTraceOf(60)];
      for (const s of [short, long]) ok(await ingestOtlpSpans(own.prisma, s.first, "otlp-json"));
      // Index entries each index of the two tables gives the export of the last trace.
      const readsOf = (spans: readonly OtlpSpan[]) =>
        own.prisma.$transaction((tx) =>
          indexEntriesRead(tx, async () =>
            expect(ok(await storeOtlpSpans(tx, spans, "otlp-json", { lock: false })).incremental).toBe(true),
          ),
        );
      const ofShort = await readsOf(short.last);
      const ofLong = await readsOf(long.last);
      // The prefix's first and last model call and last final answer are one index entry each (5: the first
      // model call and the final answer are read again for the anchors), the anchors one each by the seq key,
      // its last model span 2 (its start, then its row). Before, on PostgreSQL, the long session's export read
      // 649 entries of the kind index (every model call and final answer before its window).
      expect(ofLong["Event_sessionId_kind_seq_idx"]).toBe(5);
      expect(ofLong["Event_sessionId_seq_key"]).toBe(2);
      expect(ofLong["TraceSpan_sessionId_role_startNs_idx"]).toBe(2);
      expect(ofLong).toEqual(ofShort);
    } finally {
      await own.drop();
    }
  });

  it("a session's trace ids are kept once, in its metadata, each export merging in only its own", async () => {
    const name = `trace-ids-${engine}`;
    const spans = sessionOf("ai6-generate", name, 4, tag++);
    const traces = [...new Set(spans.map((s) => s.traceId))];
    // Out of order: the list stays sorted whatever order the traces come in.
    for (const t of [2, 0, 3, 1])
      ok(
        await ingestOtlpSpans(
          db.prisma,
          spans.filter((s) => s.traceId === traces[t]),
          "otlp-json",
        ),
      );
    const row = await db.prisma.session.findFirstOrThrow({
      where: { externalId: `session:${name}` },
      select: { id: true, metadata: true, traceState: true },
    });
    // As read (the stored metadata leaves them out: they are rows of their own).
    const read = (await getSession(db.prisma, row.id))!;
    expect((read.metadata as { traceIds: string[] }).traceIds).toEqual([...traces].sort());
    expect(row.metadata).not.toHaveProperty("traceIds");
    // Not also in the aggregate, which every export reads and writes whole.
    expect((row.traceState as { spans: { traceIds: string[] } }).spans.traceIds).toEqual([]);
    await expectSessionsOf(spans);
  });

  it("a resent or earlier span re-maps from where it lands (and an ended copy replaces a partial one)", async () => {
    const name = `late-${engine}`;
    const spans = sessionOf("ai7-genai-stream", name, 4, tag++);
    const ordered = byStart(spans);
    const late = ordered[Math.floor(ordered.length / 3)]!;
    const rest = ordered.filter((s) => s !== late);
    const partial = { ...late, endTimeUnixNano: null, status: { code: 0, message: "" }, events: [] };
    ok(await ingestOtlpSpans(db.prisma, [...rest.slice(0, 5), partial], "otlp-json"));
    await expectSessionsOf([...rest.slice(0, 5), partial]);
    ok(await ingestOtlpSpans(db.prisma, rest.slice(5), "otlp-json"));
    await expectSessionsOf([...rest, partial]);
    const result = ok(await ingestOtlpSpans(db.prisma, [late], "otlp-json"));
    expect(result.updated).toBe(1);
    await expectSessionsOf(spans);
  });

  it("a session stored before its aggregate existed gets it from its rows on its next export, and stays exact", async () => {
    const name = `legacy-${engine}`;
    const spans = sessionOf("ai6-stream", name, 6, tag++);
    const ordered = byStart(spans);
    const half = Math.floor(ordered.length / 2);
    ok(await ingestOtlpSpans(db.prisma, ordered.slice(0, half), "otlp-json"));
    // As a session written by the version before `traceState`: no aggregate.
    const cleared = await db.prisma.$executeRaw`
      UPDATE "Session" SET "traceState" = NULL WHERE "externalId" = ${`session:${name}`}`;
    expect(cleared).toBe(1);
    await sendInFives(ordered, half, expectSessionsOf);
    const row = await db.prisma.session.findFirstOrThrow({
      where: { externalId: `session:${name}` },
      select: { traceState: true },
    });
    expect(row.traceState).toMatchObject({ spans: { spans: ordered.length } });
  });

  it("spans stored gzipped, as before spans were stored as JSON, are read by the next export and by a full rebuild", async () => {
    const name = `gzipped-${engine}`;
    const spans = sessionOf("ai6-stream", name, 4, tag++);
    const ordered = byStart(spans);
    const half = Math.floor(ordered.length / 2);
    ok(await ingestOtlpSpans(db.prisma, ordered.slice(0, half), "otlp-json"));
    const groupKey = `otlp:session:${name}`;
    const rows = await db.prisma.traceSpan.findMany({ where: { groupKey }, select: { id: true, packed: true } });
    expect(rows).toHaveLength(half);
    // A new row is the span's JSON as UTF-8, without its place in the request.
    const first = ordered[0]!;
    const firstRow = await db.prisma.traceSpan.findFirstOrThrow({
      where: { groupKey, traceId: first.traceId, spanId: first.spanId },
      select: { packed: true },
    });
    const { path: _path, ...stored } = first;
    expect(Buffer.from(firstRow.packed!).toString("utf8")).toBe(JSON.stringify(stored));
    // As the version before stored them: gzipped.
    for (const row of rows)
      await db.prisma.traceSpan.update({
        where: { id: row.id },
        data: { packed: new Uint8Array(gzipSync(Buffer.from(row.packed!))) },
      });
    expect(spanJson((await db.prisma.traceSpan.findUniqueOrThrow({ where: { id: rows[0]!.id } })).packed!)).toBe(
      Buffer.from(rows[0]!.packed!).toString("utf8"),
    );
    // The rest as exports of 5 spans: each reads gzipped rows in its window.
    const sent = await sendInFives(ordered, half);
    await expectSessionsOf(sent);
    // A full rebuild reads every row of the group, the gzipped half too.
    const rebuilt = ok(
      await db.prisma.$transaction((tx) =>
        storeOtlpSpans(tx, ordered.slice(0, 1), "otlp-json", { lock: false, increment: false }),
      ),
    );
    expect(rebuilt.incremental).toBe(false);
    await expectSessionsOf(sent);
  });

  it("property: any split of a real recording, in export order or shuffled, gives the full mapper's session after every export", async () => {
    const names = ["ai6-stream", "ai7-genai-stream", "ai7-legacy-generate", "ai6-generate"];
    let incremental = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...names),
        fc.integer({ min: 1, max: 3 }),
        fc.boolean(),
        fc.array(fc.integer({ min: 1, max: 7 }), { minLength: 1, maxLength: 30 }),
        fc.array(fc.nat(), { minLength: 60, maxLength: 60 }),
        async (recording, copies, shuffled, sizes, keys) => {
          const name = `prop-${engine}-${tag}`;
          const spans = sessionOf(recording, name, copies, tag++);
          const order = shuffled
            ? spans.map((s, i) => ({ s, k: keys[i % keys.length]! * 1000 + i })).sort((a, b) => a.k - b.k)
            : spans.map((s) => ({ s, k: 0 }));
          const sent: OtlpSpan[] = [];
          let i = 0;
          for (let b = 0; i < order.length; b++) {
            const size = sizes[b % sizes.length]!;
            const batch = order.slice(i, i + size).map((o) => o.s);
            i += size;
            if (ok(await ingestOtlpSpans(db.prisma, batch, "otlp-json")).incremental) incremental++;
            sent.push(...batch);
            await expectSessionsOf(sent);
          }
        },
      ),
      { numRuns: engine === "pglite" ? 12 : 8, seed: engine === "pglite" ? 15 : 16 },
    );
    // The exports that took the incremental path were checked too (not only full rebuilds).
    expect(incremental).toBeGreaterThan(20);
  });
});
