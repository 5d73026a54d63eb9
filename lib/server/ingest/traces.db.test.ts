import { readFileSync } from "node:fs";
import path from "node:path";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { agentsRunsOf } from "@/lib/ingest/testing";
import { mapOpenAiAgentsItems } from "@/lib/ingest/openai-agents";
import { parseOpenAiAgentsExport, type AgentsItem } from "@/lib/ingest/openai-agents-parse";
import { decodeOtlpJson, mapOtlpSpans, spanSessionId, type OtlpSpan } from "@/lib/ingest/otlp";
import type { SessionEvent } from "@/lib/replay";
import { recordings, spansOf } from "@/lib/ingest/otlp/testing";
import type { ImportedSession } from "@/lib/ingest/types";
import { backfillCosts } from "@/lib/db/prices";
import { getSession, toSessionEvent, withFullInputs } from "@/lib/db/session-reads";
import { TEST_ENGINES, createTestDatabase, type TestDatabase } from "@/lib/db/testing";
import { ingestAgentsItems, ingestOtlpSpans, type TraceIngestResult } from "./traces";

/** A deterministic shuffle-and-split, with re-sent spans and early (unended) copies placed anywhere. */
function batchesOf(spans: readonly OtlpSpan[], seed: number): OtlpSpan[][] {
  let state = seed * 2654435761;
  const rand = () => {
    state = (state * 1103515245 + 12345) % 2147483648;
    return state / 2147483648;
  };
  const shuffled = [...spans].sort(() => rand() - 0.5);
  const batches: OtlpSpan[][] = [];
  for (let i = 0; i < shuffled.length;) {
    const size = 1 + Math.floor(rand() * 4);
    batches.push(shuffled.slice(i, i + size));
    i += size;
  }
  const partial = shuffled
    .filter(() => rand() < 0.4)
    .map((s) => ({ ...s, endTimeUnixNano: null, status: { code: 0, message: "" }, events: [] }));
  const dupes = shuffled.filter(() => rand() < 0.3);
  const cut = Math.floor(rand() * batches.length);
  return [...batches.slice(0, cut), partial, ...batches.slice(cut), dupes].filter((b) => b.length > 0);
}

function ok(result: TraceIngestResult) {
  if (!result.ok) throw new Error(JSON.stringify(result.issues));
  return result;
}

describe.each(TEST_ENGINES)("trace ingest on %s", (engine) => {
  let db: TestDatabase;
  beforeAll(async () => {
    db = await createTestDatabase(engine);
  });
  afterAll(async () => {
    await db?.drop();
  });

  async function storedSession(format: string, externalId: string) {
    const rows = await db.prisma.session.findMany({ where: { format, externalId }, select: { id: true } });
    expect(rows).toHaveLength(1);
    const session = await getSession(db.prisma, rows[0]!.id);
    return { session: session!, events: session!.events.map(toSessionEvent) };
  }

  const names = ["ai7-genai-stream", "ai7-legacy-generate", "ai6-stream", "openinference-openai-chat-stream"];
  for (const name of names) {
    it(`${name}: any batching, order, duplicates or early copies give the session of the whole export`, async () => {
      const spans = spansOf(recordings("json").get(name)!);
      const reference = mapOtlpSpans(spans, { format: "otlp-json" });
      expect(reference.ok).toBe(true);
      if (!reference.ok) return;
      const expected: ImportedSession = reference.sessions[0]!;
      // Each seed: a fresh copy of the spans under new trace ids, so the runs do not share a group.
      for (const seed of [1, 2, 3]) {
        const suffix = `-${name}-${seed}`;
        const renamed = spans.map((s) => ({
          ...s,
          traceId: `${s.traceId.slice(0, 28)}${seed.toString(16).padStart(4, "0")}`,
          attributes: renameSession(s.attributes, suffix),
          resource: renameSession(s.resource, suffix),
        }));
        const externalId = mapOtlpSpans(renamed).ok
          ? (mapOtlpSpans(renamed) as { sessions: ImportedSession[] }).sessions[0]!.externalId!
          : "";
        let lastId: string | null = null;
        for (const batch of batchesOf(renamed, seed)) {
          const result = ok(await ingestOtlpSpans(db.prisma, batch, "otlp-json"));
          for (const s of result.sessions) if (s.externalId === externalId) lastId = s.id;
        }
        const { session, events } = await storedSession("otlp-json", externalId);
        expect(session.id).toBe(lastId);
        expect(events).toEqual(asStored(expected.events));
        expect(session.eventCount).toBe(expected.events.length);
        // One row per span, all pointing at the session.
        const rows = await db.prisma.traceSpan.findMany({ where: { sessionId: session.id }, select: { spanId: true } });
        expect(rows.map((r) => r.spanId).sort()).toEqual(renamed.map((s) => s.spanId).sort());
      }
    });
  }

  it("a child span that arrives before its root joins the root's session; the trace's own session goes", async () => {
    // As AI SDK 7 does with telemetry metadata, this trace names its session on one span only.
    const spans = spansOf(recordings("json").get("openinference-handwritten")!);
    const named = spans.filter((s) => spanSessionId(s) !== null);
    const unnamed = spans.filter((s) => !named.includes(s));
    expect(named.length).toBeGreaterThan(0);
    expect(unnamed.length).toBeGreaterThan(0);
    const first = ok(await ingestOtlpSpans(db.prisma, unnamed, "otlp-json"));
    expect(first.sessions.every((s) => s.externalId.startsWith("trace:"))).toBe(true);
    const second = ok(await ingestOtlpSpans(db.prisma, named, "otlp-json"));
    expect(second.sessions.map((s) => s.externalId)).toEqual([
      mapOtlpSpans(spans).ok && (mapOtlpSpans(spans) as { sessions: ImportedSession[] }).sessions[0]!.externalId,
    ]);
    for (const s of first.sessions) expect(await db.prisma.session.count({ where: { id: s.id } })).toBe(0);
    const reference = mapOtlpSpans(spans) as { sessions: ImportedSession[] };
    const { events } = await storedSession("otlp-json", reference.sessions[0]!.externalId!);
    expect(events).toEqual(asStored(reference.sessions[0]!.events));
  });

  it.runIf(engine === "postgres")(
    "a child span naming no session waits for an export writing the session its trace is stored in",
    async () => {
      const spans = spansOf(recordings("json").get("openinference-handwritten")!).map((s) => ({
        ...s,
        traceId: "7".repeat(32),
      }));
      const first = ok(await ingestOtlpSpans(db.prisma, spans, "otlp-json"));
      const keys = await db.prisma.traceSpan.findMany({
        where: { traceId: "7".repeat(32) },
        select: { groupKey: true },
        distinct: ["groupKey"],
      });
      expect(keys).toHaveLength(1);
      const groupKey = keys[0]!.groupKey;
      expect(groupKey).toMatch(/^otlp:session:/);
      expect(first.sessions).toHaveLength(1);
      // Another export holds the session's group; a child span of the trace (it names no session) is sent again.
      const child = spans.find((s) => spanSessionId(s) === null)!;
      const blocker = new pg.Client({
        connectionString: `postgres://postgres@127.0.0.1:5432/${db.pgConfig!.database}`,
      });
      await blocker.connect();
      try {
        await blocker.query("SELECT pg_advisory_lock(hashtextextended($1, 0))", [groupKey]);
        let settled = false;
        const late = ingestOtlpSpans(db.prisma, [child], "otlp-json").finally(() => {
          settled = true;
        });
        for (let tries = 0; ; tries++) {
          const { rows } = await blocker.query<{ n: number }>(
            `SELECT count(*)::int AS n FROM pg_stat_activity
              WHERE datname = current_database() AND wait_event = 'advisory' AND pid <> pg_backend_pid()`,
          );
          if (rows[0]!.n === 1) break;
          expect(settled).toBe(false);
          if (tries > 200) throw new Error("the export never waited for the session's group");
          await new Promise((r) => setTimeout(r, 25));
        }
        expect(settled).toBe(false);
        await blocker.query("SELECT pg_advisory_unlock(hashtextextended($1, 0))", [groupKey]);
        expect(ok(await late).sessions.map((x) => x.id)).toEqual(first.sessions.map((x) => x.id));
      } finally {
        await blocker.end();
      }
    },
  );

  it("a late root span never deletes or rebuilds a session that has replays: it is kept, marked superseded", async () => {
    const replayOf = (sessionId: string) =>
      db.prisma.replay.create({
        data: { sessionId, policySnapshot: {}, policyHash: "h", status: "completed" },
        select: { id: true },
      });
    // Regrouped: the trace's own session has a replay when the root naming the session arrives.
    const spans = spansOf(recordings("json").get("openinference-handwritten")!).map((s) => ({
      ...s,
      traceId: `${s.traceId.slice(0, 28)}beef`,
      attributes: renameSession(s.attributes, "-kept"),
      resource: renameSession(s.resource, "-kept"),
    }));
    const named = spans.filter((s) => spanSessionId(s) !== null);
    const unnamed = spans.filter((s) => !named.includes(s));
    const first = ok(await ingestOtlpSpans(db.prisma, unnamed, "otlp-json"));
    const traceSession = first.sessions[0]!;
    const eventsBefore = (await getSession(db.prisma, traceSession.id))!.events.map(toSessionEvent);
    const replay = await replayOf(traceSession.id);
    const second = ok(await ingestOtlpSpans(db.prisma, named, "otlp-json"));
    const regrouped = second.sessions[0]!;
    expect(regrouped.id).not.toBe(traceSession.id);
    const kept = await db.prisma.session.findUniqueOrThrow({
      where: { id: traceSession.id },
      include: { events: { orderBy: { seq: "asc" } } },
    });
    expect(withFullInputs(kept.events).map(toSessionEvent)).toEqual(eventsBefore);
    expect(kept.metadata).toMatchObject({
      supersededBy: regrouped.id,
      superseded: { reason: "regrouped", externalId: traceSession.externalId },
    });
    expect(await db.prisma.replay.count({ where: { id: replay.id, sessionId: traceSession.id } })).toBe(1);
    const reference = mapOtlpSpans(spans) as { sessions: ImportedSession[] };
    const { session, events } = await storedSession("otlp-json", reference.sessions[0]!.externalId!);
    expect(session.id).toBe(regrouped.id);
    expect(events).toEqual(asStored(reference.sessions[0]!.events));

    // Rebuilt: a session with a replay gets one more span; the new content is a new session.
    const more = spansOf(recordings("json").get("ai7-genai-stream")!).map((s) => ({
      ...s,
      traceId: `${s.traceId.slice(0, 28)}cafe`,
      attributes: renameSession(s.attributes, "-superseded"),
      resource: renameSession(s.resource, "-superseded"),
    }));
    const toolSpan = more.find((s) => s.attributes["gen_ai.tool.name"] === "get_time")!;
    const a = ok(
      await ingestOtlpSpans(
        db.prisma,
        more.filter((s) => s !== toolSpan),
        "otlp-json",
      ),
    );
    const original = a.sessions[0]!;
    const originalEvents = (await getSession(db.prisma, original.id))!.events.map(toSessionEvent);
    await replayOf(original.id);
    // A re-sent batch changes nothing: no new session.
    const again = ok(
      await ingestOtlpSpans(
        db.prisma,
        more.filter((s) => s !== toolSpan),
        "otlp-json",
      ),
    );
    expect(again.sessions.map((s) => s.id)).toEqual([original.id]);
    const b = ok(await ingestOtlpSpans(db.prisma, [toolSpan], "otlp-json"));
    const rebuilt = b.sessions[0]!;
    expect(rebuilt.id).not.toBe(original.id);
    expect(rebuilt.externalId).toBe(original.externalId);
    const keptOriginal = await db.prisma.session.findUniqueOrThrow({
      where: { id: original.id },
      include: { events: { orderBy: { seq: "asc" } } },
    });
    expect(withFullInputs(keptOriginal.events).map(toSessionEvent)).toEqual(originalEvents);
    expect(keptOriginal.metadata).toMatchObject({ supersededBy: rebuilt.id, superseded: { reason: "rebuilt" } });
    const full = mapOtlpSpans(more) as { sessions: ImportedSession[] };
    expect((await storedSession("otlp-json", full.sessions[0]!.externalId!)).events).toEqual(
      asStored(full.sessions[0]!.events),
    );
  });

  /** A session of `traces` turns of the recorded AI SDK 6 export, a minute apart, under its own trace ids. */
  function turnsOf(name: string, traces: number, tracePrefix: string): OtlpSpan[] {
    const doc = JSON.parse(readFileSync(recordings("json").get("ai6-generate")![0]!, "utf8")) as {
      resourceSpans: { scopeSpans: { spans: unknown[] }[] }[];
    };
    const template = JSON.stringify(doc.resourceSpans[0]!.scopeSpans[0]!.spans);
    const spans: unknown[] = [];
    for (let t = 0; t < traces; t++) {
      const text = template
        .replace(/"traceId":"[0-9a-f]{32}"/g, `"traceId":"${tracePrefix}${t.toString(16).padStart(31, "0")}"`)
        .replace(
          /"(start|end)?[tT]imeUnixNano":"(\d+)"/g,
          (_m, which: string | undefined, ns: string) =>
            `"${which ? `${which}T` : "t"}imeUnixNano":"${BigInt(ns) + BigInt(t) * 60_000_000_000n}"`,
        )
        .replaceAll("session-ai6-generate", name);
      spans.push(...(JSON.parse(text) as unknown[]));
    }
    doc.resourceSpans[0]!.scopeSpans[0]!.spans = spans;
    const decoded = decodeOtlpJson(JSON.stringify(doc));
    if (!decoded.ok) throw new Error(JSON.stringify(decoded.issues.slice(0, 3)));
    return decoded.spans;
  }

  it("a session built from 100 exports equals the one built from 1, and each export writes only the events it adds", async () => {
    const whole = turnsOf("one-export", 13, "a");
    const parts = turnsOf("hundred-exports", 13, "b");
    const one = ok(await ingestOtlpSpans(db.prisma, whole, "otlp-json")).sessions[0]!;
    let firstEventId: string | null = null;
    let written = 0;
    for (let b = 0; b < 100; b++) {
      const batch = parts.slice(Math.floor((b * parts.length) / 100), Math.floor(((b + 1) * parts.length) / 100));
      if (batch.length === 0) continue;
      const result = ok(await ingestOtlpSpans(db.prisma, batch, "otlp-json"));
      written++;
      const sessionId = result.sessions[0]?.id;
      if (!sessionId) continue;
      const first = await db.prisma.event.findUnique({ where: { sessionId_seq: { sessionId, seq: 0 } } });
      firstEventId ??= first?.id ?? null;
      // Later exports add turns after it: the first event's row is never rewritten.
      expect(first?.id).toBe(firstEventId);
    }
    expect(written).toBe(100);
    // An increment leaves the session's cost to the price sweep (a minute later in the app); run it now.
    await backfillCosts(db.prisma);
    const a = await storedSession("otlp-json", "session:one-export");
    const b = await storedSession("otlp-json", "session:hundred-exports");
    expect(b.session.id).not.toBe(one.id);
    expect(b.events).toHaveLength(13 * 8);
    expect(b.events).toEqual(a.events);
    const summary = (s: typeof a.session) => {
      const {
        id: _i,
        externalId: _e,
        createdAt: _c,
        searchText: _s,
        metadata,
        events: _ev,
        traceState: _ts,
        // Not yet: an export taken on the incremental path does not work the run's outcome out again (that read
        // every event of the session), so a session built from many exports keeps the outcome of its first.
        outcome: _o,
        outcomeReason: _or,
        outcomeSeq: _os,
        ...rest
      } = s;
      const { traceIds: _t, ...meta } = metadata as Record<string, unknown>;
      return { ...rest, metadata: meta };
    };
    // The same but for the session's name.
    expect(JSON.parse(JSON.stringify(summary(b.session)).replaceAll("hundred-exports", "one-export"))).toEqual(
      JSON.parse(JSON.stringify(summary(a.session))),
    );
  });

  it("re-sending an export writes nothing new and keeps the session id", async () => {
    const spans = spansOf(recordings("bin").get("ai7-genai-generate")!);
    const a = ok(await ingestOtlpSpans(db.prisma, spans, "otlp-protobuf"));
    const rowsBefore = await db.prisma.traceSpan.count();
    const b = ok(await ingestOtlpSpans(db.prisma, spans, "otlp-json"));
    expect(b.inserted).toBe(0);
    expect(b.sessions.map((s) => s.id)).toEqual(a.sessions.map((s) => s.id));
    expect(await db.prisma.traceSpan.count()).toBe(rowsBefore);
    // The group keeps the format it was first stored as.
    expect((await db.prisma.session.findUnique({ where: { id: a.sessions[0]!.id } }))?.format).toBe("otlp-protobuf");
  });

  it("a span with a mistyped attribute refuses the whole request, naming the attribute, and writes nothing", async () => {
    const spans = spansOf(recordings("json").get("ai6-generate")!).map((s) => ({ ...s, traceId: "ab".repeat(16) }));
    const tool = spans.findIndex((s) => s.attributes["ai.toolCall.name"] !== undefined);
    const bad = spans.map((s, i) =>
      i === tool ? { ...s, attributes: { ...s.attributes, "ai.toolCall.name": 42 } } : s,
    );
    const [spansBefore, sessionsBefore] = [await db.prisma.traceSpan.count(), await db.prisma.session.count()];
    const result = await ingestOtlpSpans(db.prisma, bad, "otlp-json");
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.issues.some((i) => i.path.includes("ai.toolCall.name"))).toBe(true);
    expect(await db.prisma.traceSpan.count()).toBe(spansBefore);
    expect(await db.prisma.session.count()).toBe(sessionsBefore);
  });

  it("OpenAI Agents SDK: a group sent as 100 exports equals the one sent as 1, and a resend writes nothing", async () => {
    const whole = agentsRunsOf(`agents-one-${engine}`, 20);
    const parts = agentsRunsOf(`agents-hundred-${engine}`, 20);
    ok(await ingestAgentsItems(db.prisma, whole));
    let last: TraceIngestResult | null = null;
    for (let b = 0; b < 100; b++) {
      const batch = parts.slice(Math.floor((b * parts.length) / 100), Math.floor(((b + 1) * parts.length) / 100));
      if (batch.length > 0) last = ok(await ingestAgentsItems(db.prisma, batch));
    }
    const reference = mapOpenAiAgentsItems(parts);
    if (!reference.ok) throw new Error("the copies do not map");
    expect(reference.sessions).toHaveLength(1);
    const a = await storedSession("openai-agents", `group:agents-one-${engine}`);
    const b = await storedSession("openai-agents", `group:agents-hundred-${engine}`);
    expect(b.events).toEqual(asStored(reference.sessions[0]!.events));
    expect(b.events).toEqual(a.events);
    expect(b.session.eventCount).toBe(reference.sessions[0]!.events.length);
    expect(b.session.title).toBe(a.session.title);
    expect(b.session.status).toBe(a.session.status);
    expect(last && last.ok && last.sessions.map((s) => s.id)).toEqual([b.session.id]);
    // Only the group's own session: the traces' sessions made before their trace item arrived are gone.
    expect(
      await db.prisma.session.count({
        where: { format: "openai-agents", externalId: { contains: `agents-hundred-${engine}` } },
      }),
    ).toBe(1);
    // A resend (in other batches) inserts nothing and keeps the session.
    const rowsBefore = await db.prisma.traceSpan.count({ where: { sessionId: b.session.id } });
    for (let i = 0; i < parts.length; i += 37) {
      const again = ok(await ingestAgentsItems(db.prisma, parts.slice(i, i + 37)));
      expect(again.inserted).toBe(0);
      expect(again.sessions.map((s) => s.id)).toEqual([b.session.id]);
    }
    expect(await db.prisma.traceSpan.count({ where: { sessionId: b.session.id } })).toBe(rowsBefore);
    expect((await storedSession("openai-agents", `group:agents-hundred-${engine}`)).events).toEqual(b.events);
  });

  it("OpenAI Agents SDK items: any batching gives the session of the whole export", async () => {
    const body: unknown = JSON.parse(
      readFileSync(path.join(import.meta.dirname, "../../ingest/__fixtures__/openai-agents-chat.json"), "utf8"),
    );
    const parsed = parseOpenAiAgentsExport(body);
    if (!parsed.ok) throw new Error("fixture does not parse");
    const reference = mapOpenAiAgentsItems(parsed.items);
    if (!reference.ok) throw new Error("fixture does not map");
    // Spans first (their trace, with its group id, last), in two orders.
    const spans = parsed.items.filter((i) => i.object === "trace.span");
    const traces = parsed.items.filter((i) => i.object === "trace");
    const batches: AgentsItem[][] = [spans.slice(0, 3), spans.slice(3).reverse(), traces, spans.slice(1, 4)];
    let sessionId: string | null = null;
    for (const batch of batches) {
      const result = ok(await ingestAgentsItems(db.prisma, batch));
      sessionId = result.sessions.at(-1)?.id ?? sessionId;
    }
    const { session, events } = await storedSession("openai-agents", reference.sessions[0]!.externalId!);
    expect(session.id).toBe(sessionId);
    expect(events).toEqual(asStored(reference.sessions[0]!.events));
    // Before the trace item arrived, the spans made a trace session; it is gone now.
    // (Counted among this fixture's own groups: other tests store Agents SDK sessions in the same database.)
    const own = [reference.sessions[0]!.externalId!, ...traces.map((t) => `trace:${t.id}`)];
    expect(await db.prisma.session.count({ where: { format: "openai-agents", externalId: { in: own } } })).toBe(1);
  });
});

function renameSession(attrs: Record<string, unknown>, suffix: string): Record<string, unknown> {
  const out: Record<string, unknown> = { ...attrs };
  for (const key of ["session.id", "gen_ai.conversation.id", "ai.telemetry.metadata.sessionId"]) {
    if (typeof out[key] === "string") out[key] = `${out[key]}${suffix}`;
  }
  return out;
}

/** Events as the database keeps them: durations in whole milliseconds. */
function asStored(events: readonly SessionEvent[]): SessionEvent[] {
  return events.map((e) => ({ ...e, durationMs: e.durationMs === null ? null : Math.round(e.durationMs) }));
}
