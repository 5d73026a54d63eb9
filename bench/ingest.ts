/**
 * Trace ingest benchmark: events per second for OTLP import of large traces
 * through the full path a `/v1/traces` request takes (decode the JSON body,
 * store every span idempotently, rebuild the session from all stored spans of
 * its group, write the events, one transaction), against a PGlite database;
 * next to a raw batched insert of the same Event rows into the same database.
 * Prints both rates and their ratio. Target: ratio ≥ 0.5.
 * Run: npx tsx bench/ingest.ts  (or npm run bench:ingest)
 *
 * The traces are the recorded AI SDK 6 export (real span shapes: prompts,
 * tool schemas, parallel tool calls, a failed call) repeated under fresh trace
 * ids within one session: SESSIONS sessions of TRACES_PER_SESSION traces.
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import { createTestDatabase } from "../lib/db/testing";
import { ingestOtlpSpans } from "../lib/db/traces";
import type { Prisma } from "../lib/db/generated/client";
import { decodeOtlpJson } from "../lib/ingest/otlp";

const SESSIONS = 4;
const TRACES_PER_SESSION = 150;
const FIXTURE = path.join(import.meta.dirname, "../lib/ingest/otlp/__fixtures__/ai6-generate.json");

function hex(n: number, width: number): string {
  return n.toString(16).padStart(width, "0");
}

/** One export body: a session of many traces, as an exporter would send it in one request. */
function sessionBody(session: number): string {
  const template = readFileSync(FIXTURE, "utf8");
  const doc = JSON.parse(template) as { resourceSpans: { scopeSpans: { spans: unknown[] }[] }[] };
  const spans: unknown[] = [];
  for (let t = 0; t < TRACES_PER_SESSION; t++) {
    const traceId = `${hex(session + 1, 8)}${hex(t + 1, 8)}${"0".repeat(16)}`;
    const text = JSON.stringify(doc.resourceSpans[0]!.scopeSpans[0]!.spans)
      .replace(/"traceId":"[0-9a-f]{32}"/g, `"traceId":"${traceId}"`)
      .replaceAll("session-ai6-generate", `bench-session-${session}`);
    spans.push(...(JSON.parse(text) as unknown[]));
  }
  doc.resourceSpans[0]!.scopeSpans[0]!.spans = spans;
  return JSON.stringify(doc);
}

async function main() {
  const db = await createTestDatabase("pglite");
  try {
    const prisma = db.prisma;
    const bodies = Array.from({ length: SESSIONS + 1 }, (_, i) => sessionBody(i));
    // Warm-up (JIT, first-use costs of the client): one session, not counted.
    const warm = decodeOtlpJson(bodies[SESSIONS]!);
    if (!warm.ok) throw new Error(JSON.stringify(warm.issues.slice(0, 3)));
    await ingestOtlpSpans(prisma, warm.spans, "otlp-json");

    let events = 0;
    let spans = 0;
    const t0 = performance.now();
    for (let s = 0; s < SESSIONS; s++) {
      const decoded = decodeOtlpJson(bodies[s]!);
      if (!decoded.ok) throw new Error(JSON.stringify(decoded.issues.slice(0, 3)));
      spans += decoded.spans.length;
      const result = await ingestOtlpSpans(prisma, decoded.spans, "otlp-json");
      if (!result.ok) throw new Error(JSON.stringify(result.issues.slice(0, 3)));
      events += result.sessions.reduce((n, x) => n + x.eventCount, 0);
    }
    const ingestMs = performance.now() - t0;

    // The same Event rows, inserted raw in batches, under copies of the sessions.
    const stored = await prisma.session.findMany({ where: { externalId: { startsWith: "session:bench-session-" } }, include: { events: { orderBy: { seq: "asc" } } } });
    const rows: Prisma.EventCreateManyInput[][] = [];
    for (const s of stored.filter((x) => x.externalId !== `session:bench-session-${SESSIONS}`)) {
      const copy = await prisma.session.create({
        data: { ...sessionColumns(s), externalId: `raw:${s.id}` },
        select: { id: true },
      });
      rows.push(s.events.map(({ id: _id, sessionId: _sid, ...e }) => ({ ...e, sessionId: copy.id }) as Prisma.EventCreateManyInput));
    }
    const rawEvents = rows.reduce((n, r) => n + r.length, 0);
    const t1 = performance.now();
    for (const batch of rows) {
      await prisma.$transaction(async (tx) => {
        await tx.event.createMany({ data: batch });
      });
    }
    const rawMs = performance.now() - t1;

    const ingestRate = events / (ingestMs / 1000);
    const rawRate = rawEvents / (rawMs / 1000);
    console.log(`OTLP ingest (decode + store ${spans} spans + rebuild, ${SESSIONS} sessions of ${TRACES_PER_SESSION} traces): ${events} events in ${ingestMs.toFixed(0)} ms = ${ingestRate.toFixed(0)} events/s`);
    console.log(`raw batched Event insert (same rows, same database):                      ${rawEvents} events in ${rawMs.toFixed(0)} ms = ${rawRate.toFixed(0)} events/s`);
    console.log(`ratio (ingest / raw): ${(ingestRate / rawRate).toFixed(2)}  (target ≥ 0.50)`);
  } finally {
    await db.drop();
  }
}

type StoredSession = Prisma.SessionGetPayload<{ include: { events: true } }>;

function sessionColumns(s: StoredSession) {
  return {
    agentId: s.agentId,
    agentVersionId: s.agentVersionId,
    format: s.format,
    status: s.status,
    eventCount: s.eventCount,
    modelCallCount: s.modelCallCount,
    toolCallCount: s.toolCallCount,
    errorCount: s.errorCount,
    metadata: s.metadata as Prisma.InputJsonValue,
  };
}

await main();
