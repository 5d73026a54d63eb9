/**
 * Trace ingest benchmark: events per second for OTLP import of large traces
 * through the full path a `/v1/traces` request takes (decode the JSON body,
 * store every span idempotently, map the session, write the events, one
 * transaction), against a PGlite database; next to a raw batched insert of the
 * same rows into the same database: the Event rows and the TraceSpan rows the
 * ingest stored, read back and inserted again under a copy of the session, in
 * one transaction, each table as JSON records (`jsonb_to_recordset`, the
 * fastest insert this database gives us: 4× createMany's parameter per column)
 * in statements of about 4 MB. Prints both rates and their ratio, and the ratio
 * against the raw insert plus the request's decoding timed alone (the raw insert
 * reads no request): that one, the median of the sessions', is the last line,
 * `ratio X` (target ≥ 0.8). (Also the ratio against the Event rows alone, the old
 * baseline's rows.) Each session is new: its one export is its first. Then one session arriving as 1, 10 and 100 exports: 100 exports within
 * 1.5× of one, and 100 ÷ 10 exports ÷ the raw rows' own 100 ÷ 10 transactions (target ≤ 1.2), each round's
 * ingest against its own floor (and, on PGlite, in this process's CPU time, which holds the database's work
 * too); and the bytes of the stored spans, as JSON and as the database keeps them. Last, the
 * same for an OpenAI Agents SDK group (the recorded export repeated as RUNS
 * runs of one group): 1 vs 100 exports, and an export's cost early vs late. And an export into a
 * session whose call ids OTHERS other sessions' spans also name, ÷ one into a session nobody shares
 * with (target ≈ 1.0; BENCH_ONLY=callscope runs this line alone). BENCH_ONLY=otlp: the OTLP sections and the ratio.
 * Run: npx tsx bench/ingest.ts  (or npm run bench:ingest); BENCH_ENGINE=postgres runs it all on the
 * PostgreSQL server at 127.0.0.1:5432 (a database of its own, dropped after) instead of PGlite.
 *
 * The traces are the recorded AI SDK 6 export (real span shapes: prompts,
 * tool schemas, parallel tool calls, a failed call) repeated under fresh trace
 * ids within one session: SESSIONS sessions of TRACES_PER_SESSION traces.
 */
import { loadavg } from "node:os";
import { createTestDatabase, type TestDatabase } from "../lib/db/testing";
import { ingestAgentsItems, ingestOtlpSpans } from "../lib/server/ingest/traces";
import { insertEventRows } from "../lib/db/event-rows";
import { prismaSql } from "../lib/db/sql";
import { fallbacks } from "../lib/server/ingest/increment";
import type { Db } from "../lib/db/client";
import type { Prisma } from "../lib/db/generated/client";
import { decodeOtlpJson } from "../lib/ingest/otlp";
import { agentsRunsOf } from "../lib/ingest/testing";
import { agentsSection } from "./ingest-agents";
import { SESSIONS, sessionBody, TRACES_PER_SESSION } from "./ingest-bodies";
import { longSection, sharedCallIdsSection } from "./ingest-export-cost";
import { cpuMsSince, insertSpanRows, rawFloor, sessionColumns } from "./ingest-raw";

const BATCHES = [1, 10, 100] as const;
const ROUNDS = 5;

const ENGINE = process.env.BENCH_ENGINE === "postgres" ? "postgres" : "pglite";

async function main() {
  const db = await createTestDatabase(ENGINE);
  console.log(`engine: ${ENGINE === "postgres" ? `PostgreSQL (${db.location})` : "PGlite (embedded)"}`);
  try {
    const prisma = db.prisma;
    // BENCH_ONLY=agents: the Agents SDK lines alone (the OTLP sections take most of the run).
    if (process.env.BENCH_ONLY === "long") return await longSection(prisma);
    if (process.env.BENCH_ONLY === "callscope") return await sharedCallIdsSection(prisma);
    if (process.env.BENCH_ONLY === "agents") {
      // Warm-up (JIT, first-use costs of the client), not counted.
      await ingestAgentsItems(prisma, agentsRunsOf("agents-warm-up", 4));
      return await agentsSection(prisma, 3);
    }
    const bodies = Array.from({ length: SESSIONS + 1 }, (_, i) => sessionBody(i));
    // Warm-up (JIT, first-use costs of the client): one session, not counted.
    const warm = decodeOtlpJson(bodies[SESSIONS]!);
    if (!warm.ok) throw new Error(JSON.stringify(warm.issues.slice(0, 3)));
    await ingestOtlpSpans(prisma, warm.spans, "otlp-json");

    const ratio = await otlpVsRaw(prisma, bodies);
    await batchedExports(db, prisma);

    // BENCH_ONLY=otlp: the OTLP sections alone, then the ratio.
    if (process.env.BENCH_ONLY !== "otlp") {
      await agentsSection(prisma, ROUNDS);
      await longSection(prisma);
      await sharedCallIdsSection(prisma);
    }
    console.log(
      `ratio ${ratio.median.toFixed(2)}  (OTLP ingest rate ÷ the rate of raw insert + decode of the same rows, median of ${ratio.n} sessions, ${ratio.min.toFixed(2)}–${ratio.max.toFixed(2)}; target ≥ 0.80; load average ${loadavg()
        .map((l) => l.toFixed(2))
        .join(", ")})`,
    );
  } finally {
    await db.drop();
  }
}

/**
 * The OTLP sessions through the full ingest path, next to a raw insert of the rows it stored; then
 * what the stored spans weigh.
 */
async function otlpVsRaw(
  prisma: Db,
  bodies: readonly string[],
): Promise<{ median: number; min: number; max: number; n: number }> {
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

  // Interleaved: each session is ingested through the full path, then the
  // same Event rows are inserted raw under a copy of it, so both sides of
  // every pair run under the same load. The ratio is the median of the
  // per-session ratios (this machine is shared and noisy).
  const pairs: {
    events: number;
    spans: number;
    ingestMs: number;
    rawMs: number;
    rawEventsMs: number;
    decodeMs: number;
    incremental: boolean;
    /** CPU time of this process (PGlite runs in it: all the work; on PostgreSQL the server's is not counted). */
    cpu: { ingest: number; raw: number; decode: number };
  }[] = [];
  for (let s = 0; s < SESSIONS; s++) {
    const t0 = performance.now();
    const c0 = process.cpuUsage();
    const decoded = decodeOtlpJson(bodies[s]!);
    if (!decoded.ok) throw new Error(JSON.stringify(decoded.issues.slice(0, 3)));
    const result = await ingestOtlpSpans(prisma, decoded.spans, "otlp-json");
    if (!result.ok) throw new Error(JSON.stringify(result.issues.slice(0, 3)));
    const ingestMs = performance.now() - t0;
    const ingestCpu = cpuMsSince(c0);
    // The request's decoding alone (the raw insert does not read the request), timed again on its own.
    const td = performance.now();
    const cd = process.cpuUsage();
    if (!decodeOtlpJson(bodies[s]!).ok) throw new Error("decode");
    const decodeMs = performance.now() - td;
    const decodeCpu = cpuMsSince(cd);

    const stored = await prisma.session.findFirstOrThrow({
      where: { externalId: `session:bench-session-${s}` },
      include: { events: { orderBy: { seq: "asc" } }, spans: true },
    });
    const copy = await prisma.session.create({
      data: { ...sessionColumns(stored), externalId: `raw:${stored.id}` },
      select: { id: true },
    });
    const batch = stored.events.map(
      ({ id: _id, sessionId: _sid, ...e }) => ({ ...e, sessionId: copy.id }) as Prisma.EventCreateManyInput,
    );
    const spanRows = stored.spans.map(({ id: _id, sessionId: _sid, receivedAt: _r, ...r }) => ({
      ...r,
      groupKey: `raw:${r.groupKey}`,
      sessionId: copy.id,
    }));
    const t1 = performance.now();
    const c1 = process.cpuUsage();
    await prisma.$transaction(async (tx) => {
      await insertEventRows(prismaSql(tx), batch);
      await insertSpanRows(tx, spanRows);
    });
    const rawMs = performance.now() - t1;
    const rawCpu = cpuMsSince(c1);
    const t2 = performance.now();
    const copy2 = await prisma.session.create({
      data: { ...sessionColumns(stored), externalId: `raw-events:${stored.id}` },
      select: { id: true },
    });
    await prisma.$transaction(async (tx) => {
      await insertEventRows(
        prismaSql(tx),
        batch.map((e) => ({ ...e, sessionId: copy2.id })),
      );
    });
    const rawEventsMs = performance.now() - t2;
    pairs.push({
      events: stored.events.length,
      spans: decoded.spans.length,
      ingestMs,
      rawMs,
      rawEventsMs,
      decodeMs,
      incremental: result.incremental,
      cpu: { ingest: ingestCpu, raw: rawCpu, decode: decodeCpu },
    });
  }

  const events = pairs.reduce((n, p) => n + p.events, 0);
  const spans = pairs.reduce((n, p) => n + p.spans, 0);
  const ingestMs = pairs.reduce((n, p) => n + p.ingestMs, 0);
  const rawMs = pairs.reduce((n, p) => n + p.rawMs, 0);
  const rawEventsMs = pairs.reduce((n, p) => n + p.rawEventsMs, 0);
  const ratios = pairs.map((p) => p.rawMs / p.ingestMs);
  const eventRatios = pairs.map((p) => p.rawEventsMs / p.ingestMs);
  console.log(
    `OTLP ingest (decode + store ${spans} spans + map, ${SESSIONS} sessions of ${TRACES_PER_SESSION} traces): ${events} events in ${ingestMs.toFixed(0)} ms = ${(events / (ingestMs / 1000)).toFixed(0)} events/s`,
  );
  console.log(
    `raw insert of the same Event + TraceSpan rows (jsonb_to_recordset, interleaved): ${events} events in ${rawMs.toFixed(0)} ms = ${(events / (rawMs / 1000)).toFixed(0)} events/s`,
  );
  console.log(
    `raw insert of the same Event rows alone:                                          ${events} events in ${rawEventsMs.toFixed(0)} ms = ${(events / (rawEventsMs / 1000)).toFixed(0)} events/s`,
  );
  console.log(`ratio (ingest rate / raw rate of all rows), per session: ${ratios.map((r) => r.toFixed(2)).join(" ")}`);
  console.log(`ratio vs all rows, median of ${pairs.length}: ${median(ratios).toFixed(2)}  (target ≥ 0.80)`);
  console.log(`ratio vs Event rows alone, median of ${pairs.length}: ${median(eventRatios).toFixed(2)}`);
  const withDecode = pairs.map((p) => (p.rawMs + p.decodeMs) / p.ingestMs);
  console.log(
    `ratio vs all rows + decoding the request, per session: ${withDecode.map((r) => r.toFixed(2)).join(" ")}; ${pairs.filter((p) => p.incremental).length} of ${pairs.length} on the incremental path`,
  );

  // On PGlite every part runs in this process: the same ratio by CPU time, which other work on the machine moves less.
  if (ENGINE === "pglite") {
    const cpuRatios = pairs.map((p) => (p.cpu.raw + p.cpu.decode) / p.cpu.ingest);
    console.log(
      `ratio vs all rows + decoding the request, by this process's CPU time (PGlite), per session: ${cpuRatios.map((r) => r.toFixed(2)).join(" ")}; median ${median(cpuRatios).toFixed(2)}`,
    );
  }

  // What the stored spans weigh: their JSON bytes, and what the database keeps of them (compressed, TOAST).
  const bytes = await prisma.$queryRaw<{ packed: bigint; disk: bigint; digest: bigint; n: bigint }[]>`
    SELECT sum(octet_length(packed))::bigint AS packed, sum(pg_column_size(packed))::bigint AS disk,
      sum(octet_length(digest::text))::bigint AS digest, count(*)::bigint AS n
    FROM "TraceSpan" WHERE "groupKey" LIKE 'otlp:session:bench-session-%'`;
  const b = bytes[0]!;
  console.log(
    `stored spans (${b.n}): ${(Number(b.packed) / 1e6).toFixed(2)} MB of JSON, ${(Number(b.disk) / 1e6).toFixed(2)} MB as the database keeps them (${(Number(b.packed) / Number(b.disk)).toFixed(1)}× smaller), digests ${(Number(b.digest) / 1e6).toFixed(2)} MB`,
  );
  return {
    median: median(withDecode),
    min: Math.min(...withDecode),
    max: Math.max(...withDecode),
    n: withDecode.length,
  };
}

/**
 * One session arriving as 1, 10 and 100 exports (an exporter flushing as the agent runs): the
 * same spans in trace order, split evenly. Each round runs the three in turn under fresh names;
 * the figure is the median over rounds of each total, and the ratios are to one export.
 */
async function batchedExports(db: TestDatabase, prisma: Db) {
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
  const totals = new Map<number, number[]>();
  const cpuTotals = new Map<number, number[]>();
  const incrementals = new Map<number, number>();
  // Per-export times of the 100-export runs: flat when an export's cost does not grow with its session.
  const thirds: { first: number[]; last: number[] } = { first: [], last: [] };
  // The floor, measured in the same rounds: the rows an ingest wrote, written raw in 1 and in 100
  // transactions (through the ingest's client and on the driver itself), and the requests' decoding alone.
  const floor = new Map<string, number[]>();
  const decodeMs: { one: number[]; hundred: number[] } = { one: [], hundred: [] };
  let spansPerSession = 0;
  for (let round = 0; round < ROUNDS; round++) {
    for (const batches of BATCHES) {
      const name = `batched-${round}-${batches}`;
      // Fresh trace ids for every run: a span id already stored would be a re-send, not new work.
      const seed = 1000 + round * 10 + batches;
      const doc = JSON.parse(sessionBody(SESSIONS + 1, seed).replaceAll(`bench-session-${SESSIONS + 1}`, name)) as {
        resourceSpans: { scopeSpans: { spans: unknown[] }[] }[];
      };
      const spans = doc.resourceSpans[0]!.scopeSpans[0]!.spans;
      spansPerSession = spans.length;
      const bodiesOf = Array.from({ length: batches }, (_, b) => {
        const part = structuredClone(doc);
        const from = Math.floor((b * spans.length) / batches);
        const to = Math.floor(((b + 1) * spans.length) / batches);
        part.resourceSpans[0]!.scopeSpans[0]!.spans = spans.slice(from, to);
        return JSON.stringify(part);
      });
      if (batches !== 10) {
        const td = performance.now();
        for (const body of bodiesOf) if (!decodeOtlpJson(body).ok) throw new Error("decode");
        (batches === 1 ? decodeMs.one : decodeMs.hundred).push(performance.now() - td);
      }
      const t0 = performance.now();
      const c0 = process.cpuUsage();
      let incremental = 0;
      for (const [i, body] of bodiesOf.entries()) {
        const te = performance.now();
        const decoded = decodeOtlpJson(body);
        if (!decoded.ok) throw new Error(JSON.stringify(decoded.issues.slice(0, 3)));
        const result = await ingestOtlpSpans(prisma, decoded.spans, "otlp-json");
        if (!result.ok) throw new Error(JSON.stringify(result.issues.slice(0, 3)));
        if (result.incremental) incremental++;
        if (batches === 100 && i > 0 && i <= 33) thirds.first.push(performance.now() - te);
        if (batches === 100 && i >= 67) thirds.last.push(performance.now() - te);
      }
      incrementals.set(batches, incremental);
      const list = totals.get(batches) ?? [];
      list.push(performance.now() - t0);
      totals.set(batches, list);
      cpuTotals.set(batches, [...(cpuTotals.get(batches) ?? []), cpuMsSince(c0)]);
    }
    for (const [what, ms] of await rawFloor(db, `batched-${round}-1`, `floor-${round}`))
      floor.set(what, [...(floor.get(what) ?? []), ms]);
  }
  console.log(
    `full rebuilds by reason (whole run): ${[...fallbacks].map(([reason, n]) => `${reason} ${n}`).join(", ") || "none"}`,
  );
  const [first, last] = [median(thirds.first), median(thirds.last)];
  console.log(
    `100 exports: median export ${first.toFixed(1)} ms in the first third (exports 2–34) vs ${last.toFixed(1)} ms in the last (68–100): ${(last / first).toFixed(2)}× (1.00 = an export's cost does not grow with its session)`,
  );
  const one = median(totals.get(1)!);
  for (const batches of BATCHES) {
    const ms = median(totals.get(batches)!);
    console.log(
      `one session of ${spansPerSession} spans in ${String(batches).padStart(3)} export(s): ${ms.toFixed(0).padStart(6)} ms (median of ${ROUNDS}), ${(ms / one).toFixed(2)}× one export  (target for 100: ≤ 1.50×); ${incrementals.get(batches)} of ${batches} incremental`,
    );
  }

  // The floor: what this database costs for 100 transactions instead of 1, whoever writes them.
  const f = (what: string) => median(floor.get(what)!);
  const ingest1 = median(totals.get(1)!);
  const ingest100 = median(totals.get(100)!);
  console.log(
    `floor: the same Event + TraceSpan rows written raw (plus the session row each time): 1 transaction ${f("client-1").toFixed(0)} ms, 100 transactions ${f("client-100").toFixed(0)} ms through the ingest's client (${(f("client-100") / f("client-1")).toFixed(2)}×); on the driver itself ${f("driver-1").toFixed(0)} vs ${f("driver-100").toFixed(0)} ms (${(f("driver-100") / f("driver-1")).toFixed(2)}×) — next to ingest 100÷1: ${(ingest100 / ingest1).toFixed(2)}×`,
  );
  // 100 exports ÷ 10 of the same spans, next to the same rows' own 100 ÷ 10 transactions on the driver.
  const ingest10 = median(totals.get(10)!);
  const raw100to10 = f("driver-100") / f("driver-10");
  // Each round's own ratio too: the ingest and its floor measured minutes apart would let the machine's load decide.
  const byRound = (ingest: Map<number, number[]>, suffix: string) => {
    const ratios = ingest
      .get(100)!
      .map(
        (ms, r) =>
          ms / ingest.get(10)![r]! / (floor.get(`driver-100${suffix}`)![r]! / floor.get(`driver-10${suffix}`)![r]!),
      );
    return `${median(ratios).toFixed(2)} (${Math.min(...ratios).toFixed(2)}–${Math.max(...ratios).toFixed(2)} over ${ROUNDS} rounds)`;
  };
  console.log(
    `100 ÷ 10 exports: ingest ${(ingest100 / ingest10).toFixed(2)}×, the raw rows on the driver ${raw100to10.toFixed(2)}× (${f("driver-10").toFixed(0)} vs ${f("driver-100").toFixed(0)} ms): ${(ingest100 / ingest10 / raw100to10).toFixed(2)}; ` +
      `by round: ${byRound(totals, "")}` +
      // With PGlite the database runs in this process: its CPU time is the whole work, and other processes' load stays out.
      (ENGINE === "pglite" ? `; by round, in this process's CPU time: ${byRound(cpuTotals, ":cpu")}` : "") +
      ` (target ≤ 1.20)`,
  );
  const perExport = (ingest100 - ingest1) / 99;
  const clientPerExport = (f("client-100") - f("client-1")) / 99;
  const driverPerExport = (f("driver-100") - f("driver-1")) / 99;
  console.log(
    `cost an export adds (100 exports − 1, ÷ 99): ingest ${perExport.toFixed(2)} ms, raw on the driver ${driverPerExport.toFixed(2)} ms (the increment's transaction), raw through Prisma ${clientPerExport.toFixed(2)} ms: ingest's overhead per export above raw's on the driver ${(perExport - driverPerExport).toFixed(2)} ms`,
  );
  const d1 = median(decodeMs.one);
  const d100 = median(decodeMs.hundred);
  console.log(
    `decoding the request alone (not in the raw insert): 1 export ${d1.toFixed(0)} ms = ${((100 * d1) / f("client-1")).toFixed(0)}% of the raw insert of its rows (1 transaction), 100 exports ${d100.toFixed(0)} ms; ingest ÷ (raw + decode), 1 export: ${(ingest1 / (f("client-1") + d1)).toFixed(2)}×`,
  );
}

await main();
