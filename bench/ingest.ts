/**
 * Trace ingest benchmark: events per second for OTLP import of large traces
 * through the full path a `/v1/traces` request takes (decode the JSON body,
 * store every span idempotently, map the session, write the events, one
 * transaction), against a PGlite database; next to a raw batched insert of the
 * same rows into the same database: the Event rows and the TraceSpan rows the
 * ingest stored, read back and inserted again under a copy of the session, in
 * one transaction, each table as JSON records (`jsonb_to_recordset`, the
 * fastest insert this database gives us: 4× createMany's parameter per column)
 * in statements of about 4 MB. Prints both rates and their ratio. Target:
 * ratio ≥ 0.8. (Also the ratio against the Event rows alone, the old baseline's
 * rows.) Then one session arriving as 1, 10 and 100 exports: 100 exports within
 * 1.5× of one; and the bytes of the stored spans, packed vs as JSON. Last, the
 * same for an OpenAI Agents SDK group (the recorded export repeated as RUNS
 * runs of one group): 1 vs 100 exports, and an export's cost early vs late. And an export into a
 * session whose call ids OTHERS other sessions' spans also name, ÷ one into a session nobody shares
 * with (target ≈ 1.0; BENCH_ONLY=callscope runs this line alone).
 * Run: npx tsx bench/ingest.ts  (or npm run bench:ingest); BENCH_ENGINE=postgres runs it all on the
 * PostgreSQL server at 127.0.0.1:5432 (a database of its own, dropped after) instead of PGlite.
 *
 * The traces are the recorded AI SDK 6 export (real span shapes: prompts,
 * tool schemas, parallel tool calls, a failed call) repeated under fresh trace
 * ids within one session: SESSIONS sessions of TRACES_PER_SESSION traces.
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import pg from "pg";
import { createTestDatabase, type TestDatabase } from "../lib/db/testing";
import { ingestAgentsItems, ingestOtlpSpans } from "../lib/server/ingest/traces";
import { insertEventRows } from "../lib/db/sessions";
import { prismaSql } from "../lib/db/sql";
import { fallbacks } from "../lib/server/ingest/increment";
import type { Db, DbClient } from "../lib/db/client";
import type { Prisma } from "../lib/db/generated/client";
import { decodeOtlpJson } from "../lib/ingest/otlp";
import { agentsRunsOf } from "../lib/ingest/testing";
import type { AgentsItem } from "../lib/ingest/openai-agents";

const SESSIONS = 7;
const TRACES_PER_SESSION = 100;
const BATCHES = [1, 10, 100] as const;
const FIXTURE = path.join(import.meta.dirname, "../lib/ingest/otlp/__fixtures__/ai6-generate.json");
// AGENTS_RUNS=200: a longer group (an export's cost should not change with it).
const AGENTS_RUNS = Number(process.env.AGENTS_RUNS ?? 40);

function hex(n: number, width: number): string {
  return n.toString(16).padStart(width, "0");
}

/** One export body: a session of many traces, as an exporter would send it in one request. */
function sessionBody(session: number, traceSeed = session, traces = TRACES_PER_SESSION): string {
  const template = readFileSync(FIXTURE, "utf8");
  const doc = JSON.parse(template) as { resourceSpans: { scopeSpans: { spans: unknown[] }[] }[] };
  const spans: unknown[] = [];
  for (let t = 0; t < traces; t++) {
    const traceId = `${hex(traceSeed + 1, 8)}${hex(t + 1, 8)}${"0".repeat(16)}`;
    // Each trace a minute after the one before, as an agent's turns come.
    const text = JSON.stringify(doc.resourceSpans[0]!.scopeSpans[0]!.spans)
      .replace(/"traceId":"[0-9a-f]{32}"/g, `"traceId":"${traceId}"`)
      .replace(
        /"(start|end)?[tT]imeUnixNano":"(\d+)"/g,
        (_m, which: string | undefined, ns: string) =>
          `"${which ? `${which}T` : "t"}imeUnixNano":"${BigInt(ns) + BigInt(t) * 60_000_000_000n}"`,
      )
      .replaceAll("session-ai6-generate", `bench-session-${session}`)
      // Each turn's tool calls get ids of their own, as a real agent's do.
      .replace(/call_(lookup|refund|time)_(\d+)/g, `call_$1_$2_${t}`);
    spans.push(...(JSON.parse(text) as unknown[]));
  }
  doc.resourceSpans[0]!.scopeSpans[0]!.spans = spans;
  return JSON.stringify(doc);
}

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

    // Interleaved: each session is ingested through the full path, then the
    // same Event rows are inserted raw under a copy of it, so both sides of
    // every pair run under the same load. The ratio is the median of the
    // per-session ratios (this machine is shared and noisy).
    const pairs: { events: number; spans: number; ingestMs: number; rawMs: number; rawEventsMs: number }[] = [];
    for (let s = 0; s < SESSIONS; s++) {
      const t0 = performance.now();
      const decoded = decodeOtlpJson(bodies[s]!);
      if (!decoded.ok) throw new Error(JSON.stringify(decoded.issues.slice(0, 3)));
      const result = await ingestOtlpSpans(prisma, decoded.spans, "otlp-json");
      if (!result.ok) throw new Error(JSON.stringify(result.issues.slice(0, 3)));
      const ingestMs = performance.now() - t0;

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
      await prisma.$transaction(async (tx) => {
        await insertEventRows(prismaSql(tx), batch);
        await insertSpanRows(tx, spanRows);
      });
      const rawMs = performance.now() - t1;
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
      pairs.push({ events: stored.events.length, spans: decoded.spans.length, ingestMs, rawMs, rawEventsMs });
    }

    const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
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
    console.log(
      `ratio (ingest rate / raw rate of all rows), per session: ${ratios.map((r) => r.toFixed(2)).join(" ")}`,
    );
    console.log(`ratio vs all rows, median of ${pairs.length}: ${median(ratios).toFixed(2)}  (target ≥ 0.80)`);
    console.log(`ratio vs Event rows alone, median of ${pairs.length}: ${median(eventRatios).toFixed(2)}`);

    // What the stored spans weigh: gzipped JSON (what is stored) vs the JSON the payload column held before.
    const bytes = await prisma.$queryRaw<{ packed: bigint; json: bigint; digest: bigint; n: bigint }[]>`
      SELECT sum(octet_length(packed))::bigint AS packed, 0::bigint AS json,
        sum(octet_length(digest::text))::bigint AS digest, count(*)::bigint AS n
      FROM "TraceSpan" WHERE "groupKey" LIKE 'otlp:session:bench-session-%'`;
    const jsonBytes = bodies.slice(0, SESSIONS).reduce((n, body) => {
      const d = decodeOtlpJson(body);
      return d.ok ? n + d.spans.reduce((m, sp) => m + Buffer.byteLength(JSON.stringify({ ...sp, path: "" })), 0) : n;
    }, 0);
    const b = bytes[0]!;
    console.log(
      `stored spans (${b.n}): packed ${(Number(b.packed) / 1e6).toFixed(2)} MB vs ${(jsonBytes / 1e6).toFixed(2)} MB as JSON (${(jsonBytes / Number(b.packed)).toFixed(1)}× smaller), digests ${(Number(b.digest) / 1e6).toFixed(2)} MB`,
    );

    // One session arriving as 1, 10 and 100 exports (an exporter flushing as the agent runs): the
    // same spans in trace order, split evenly. Each round runs the three in turn under fresh names;
    // the figure is the median over rounds of each total, and the ratios are to one export.
    const ROUNDS = 3;
    const totals = new Map<number, number[]>();
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

    await agentsSection(prisma, ROUNDS);
    await longSection(prisma);
    await sharedCallIdsSection(prisma);
  } finally {
    await db.drop();
  }
}

/** The Agents SDK path: one group of AGENTS_RUNS runs as 1 and as 100 exports, per round. */
async function agentsSection(prisma: Db, ROUNDS: number) {
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
  const agentTotals = new Map<number, number[]>();
  const agentThirds: { first: number[]; last: number[] } = { first: [], last: [] };
  let agentItems = 0;
  let incremental = 0;
  for (let round = 0; round < ROUNDS; round++) {
    for (const batches of [1, 100]) {
      const items = agentsRunsOf(`agents-bench-${round}-${batches}`, AGENTS_RUNS);
      agentItems = items.length;
      const t0 = performance.now();
      for (let b = 0; b < batches; b++) {
        const part = items.slice(
          Math.floor((b * items.length) / batches),
          Math.floor(((b + 1) * items.length) / batches),
        );
        if (part.length === 0) continue;
        const te = performance.now();
        const result = await ingestAgentsItems(prisma, part);
        if (!result.ok) throw new Error(JSON.stringify(result.issues.slice(0, 3)));
        if (batches === 100 && result.incremental) incremental++;
        if (batches === 100 && b > 0 && b <= 33) agentThirds.first.push(performance.now() - te);
        if (batches === 100 && b >= 67) agentThirds.last.push(performance.now() - te);
      }
      const list = agentTotals.get(batches) ?? [];
      list.push(performance.now() - t0);
      agentTotals.set(batches, list);
    }
  }
  const [aFirst, aLast] = [median(agentThirds.first), median(agentThirds.last)];
  const aOne = median(agentTotals.get(1)!);
  const aHundred = median(agentTotals.get(100)!);
  console.log(
    `Agents SDK, one group of ${agentItems} items: 1 export ${aOne.toFixed(0)} ms, 100 exports ${aHundred.toFixed(0)} ms (medians of ${ROUNDS}): ${(aHundred / aOne).toFixed(2)}× one export`,
  );
  console.log(
    `Agents SDK, 100 exports: median export ${aFirst.toFixed(1)} ms in the first third vs ${aLast.toFixed(1)} ms in the last: ${(aLast / aFirst).toFixed(2)}× (1.00 = flat)`,
  );
  const reasons = [...fallbacks].filter(([reason]) => reason.startsWith("agents: "));
  console.log(
    `Agents SDK, 100 exports: ${incremental} of ${100 * ROUNDS} incremental; full rebuilds by reason (whole run): ${reasons.map(([reason, n]) => `${reason.slice(8)} ${n}`).join(", ") || "none"}`,
  );
}

/** One way to run a statement inside a transaction: through the ingest's client, or on the driver. */
type Exec = (sql: string, params: unknown[]) => Promise<unknown>;

/**
 * The rows of one ingested session written raw under copies of it, in 1 and in 100 transactions, each
 * transaction also updating the session row (as an export does): through the ingest's client and on the
 * driver itself (PGlite's own transaction). Milliseconds by "client-1", "client-100", "driver-1", "driver-100".
 */
async function rawFloor(db: TestDatabase, name: string, tag: string): Promise<Map<string, number>> {
  const prisma = db.prisma;
  const stored = await prisma.session.findFirstOrThrow({
    where: { externalId: `session:${name}` },
    include: { events: { orderBy: { seq: "asc" } }, spans: { orderBy: [{ startNs: "asc" }, { spanId: "asc" }] } },
  });
  const out = new Map<string, number>();
  const eventSql = `
    INSERT INTO "Event" (id, "sessionId", seq, kind, name, input, output, error, status, "startedAt", "durationMs",
      "inputTokens", "outputTokens", "costUsd", "parentSeq", "cacheKey", occurrence, "inputPrefixSeq", "inputPrefixCount", "inputDigest")
    SELECT md5(random()::text), $2, seq, kind, name, input, output, error, status, "startedAt", "durationMs",
      "inputTokens", "outputTokens", "costUsd", "parentSeq", "cacheKey", occurrence, "inputPrefixSeq", "inputPrefixCount", "inputDigest"
    FROM jsonb_to_recordset($1::jsonb) AS x(seq int, kind text, name text,
      input jsonb, output jsonb, error jsonb, status text, "startedAt" timestamptz, "durationMs" int, "inputTokens" int,
      "outputTokens" int, "costUsd" float8, "parentSeq" int, "cacheKey" text, occurrence int, "inputPrefixSeq" int,
      "inputPrefixCount" int, "inputDigest" text)`;
  const spanSql = `
    INSERT INTO "TraceSpan" (id, "groupKey", "traceId", "spanId", "sessionId", packed, digest, "startNs", "lastNs", role, "callIds")
    SELECT md5(random()::text), $3 || "groupKey", "traceId", "spanId", $2, decode(packed, 'base64'), digest,
      "startNs"::bigint, "lastNs"::bigint, role, "callIds"
    FROM jsonb_to_recordset($1::jsonb) AS x("groupKey" text, "traceId" text, "spanId" text, packed text, digest jsonb,
      "startNs" text, "lastNs" text, role text, "callIds" text[])`;
  const sessionSql = `UPDATE "Session" SET "eventCount" = $2, "searchText" = $3, metadata = $4::jsonb, "traceState" = $5::jsonb WHERE id = $1`;
  const events = stored.events.map(({ id: _id, sessionId: _sid, ...e }) => JSON.stringify(e));
  const spans = stored.spans.map((r) =>
    JSON.stringify({
      groupKey: r.groupKey,
      traceId: r.traceId,
      spanId: r.spanId,
      packed: r.packed ? Buffer.from(r.packed).toString("base64") : null,
      digest: r.digest,
      startNs: r.startNs === null ? null : String(r.startNs),
      lastNs: r.lastNs === null ? null : String(r.lastNs),
      role: r.role,
      callIds: r.callIds,
    }),
  );
  const metadata = JSON.stringify(stored.metadata);
  const traceState = JSON.stringify(stored.traceState);
  for (const via of ["client", "driver"] as const)
    for (const parts of [1, 100]) {
      const what = `${via}-${parts}`;
      const copy = await prisma.session.create({
        data: { ...sessionColumns(stored), externalId: `${tag}-${what}:${stored.id}` },
        select: { id: true },
      });
      const slice = (xs: string[], b: number) =>
        `[${xs.slice(Math.floor((b * xs.length) / parts), Math.floor(((b + 1) * xs.length) / parts)).join(",")}]`;
      const write = async (exec: Exec, b: number) => {
        await exec(spanSql, [slice(spans, b), copy.id, `${tag}-${what}:`]);
        await exec(eventSql, [slice(events, b), copy.id]);
        await exec(sessionSql, [
          copy.id,
          Math.floor(((b + 1) * events.length) / parts),
          stored.searchText,
          metadata,
          traceState,
        ]);
      };
      // The driver's own transaction: PGlite's, or one connection of the server's (as lib/db/sql.ts takes from its pool).
      const client = db.pglite ? null : new pg.Client(db.pgConfig!);
      await client?.connect();
      const t0 = performance.now();
      for (let b = 0; b < parts; b++) {
        if (via === "client")
          await prisma.$transaction((tx) => write((sql, params) => tx.$executeRawUnsafe(sql, ...params), b));
        else if (db.pglite) await db.pglite.transaction((tx) => write((sql, params) => tx.query(sql, params), b));
        else {
          await client!.query("BEGIN");
          await write((sql, params) => client!.query(sql, params), b);
          await client!.query("COMMIT");
        }
      }
      out.set(what, performance.now() - t0);
      await client?.end();
    }
  return out;
}

/**
 * An export's cost against how many traces its session has: a session of SHORT and one of LONG traces
 * (stored in one export each), then LATE exports of one new trace each to both; the median export of
 * the long one ÷ the short one's. Target: flat (≤ 1.20×), for OTLP and the Agents SDK.
 */
async function longSection(prisma: Db) {
  const SHORT = 100;
  const LONG = Number(process.env.LONG_TRACES ?? 2000);
  const LATE = 31;
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
  const sizes = [SHORT, LONG] as const;
  // The late exports alternate between the two sessions, so that both sides run under the same load.
  const interleaved = async (exportTo: (n: number, late: number) => Promise<void>) => {
    const times = new Map<number, number[]>(sizes.map((n) => [n, []]));
    for (let late = 0; late < LATE; late++)
      for (const n of sizes) {
        const t0 = performance.now();
        await exportTo(n, late);
        times.get(n)!.push(performance.now() - t0);
      }
    const [short, long] = sizes.map((n) => median(times.get(n)!));
    return `median ${long!.toFixed(1)} vs ${short!.toFixed(1)} ms = ${(long! / short!).toFixed(2)}×  (target ≤ 1.20×)`;
  };

  // OTLP: the recorded trace repeated, one export of the first N traces, then one export per trace.
  const otlpLate = new Map<number, string[]>();
  for (const [i, n] of sizes.entries()) {
    const name = `long-otlp-${n}`;
    const doc = JSON.parse(
      sessionBody(900 + i, 5000 + i * 10, n + LATE).replaceAll(`bench-session-${900 + i}`, name),
    ) as { resourceSpans: { scopeSpans: { spans: { traceId: string }[] }[] }[] };
    const spans = doc.resourceSpans[0]!.scopeSpans[0]!.spans;
    const traceIds = [...new Set(spans.map((sp) => sp.traceId))];
    const bodyOf = (ids: Set<string>) => {
      const part = structuredClone(doc);
      part.resourceSpans[0]!.scopeSpans[0]!.spans = spans.filter((sp) => ids.has(sp.traceId));
      return JSON.stringify(part);
    };
    await otlpIngest(bodyOf(new Set(traceIds.slice(0, n))));
    otlpLate.set(
      n,
      traceIds.slice(n).map((t) => bodyOf(new Set([t]))),
    );
  }
  const otlpLine = await interleaved(async (n, late) => {
    const result = await otlpIngest(otlpLate.get(n)![late]!);
    if (!result.incremental) throw new Error(`long-otlp-${n}: an export fell back to the full rebuild`);
  });

  // Agents SDK: runs of the recorded export in one group, the first N in one export, then one run per export.
  const agentsLate = new Map<number, AgentsItem[][]>();
  for (const n of sizes) {
    const items = agentsRunsOf(`long-agents-${n}`, n + LATE);
    const per = items.length / (n + LATE);
    const first = await ingestAgentsItems(prisma, items.slice(0, n * per));
    if (!first.ok) throw new Error(JSON.stringify(first.issues.slice(0, 3)));
    agentsLate.set(
      n,
      Array.from({ length: LATE }, (_, r) => items.slice((n + r) * per, (n + r + 1) * per)),
    );
  }
  const agentsLine = await interleaved(async (n, late) => {
    const result = await ingestAgentsItems(prisma, agentsLate.get(n)![late]!);
    if (!result.ok || !result.incremental) throw new Error(`long-agents-${n}: an export was not incremental`);
  });
  console.log(`OTLP, an export of one trace to a session of ${LONG} traces vs ${SHORT}: ${otlpLine}`);
  console.log(`Agents SDK, an export of one run to a group of ${LONG} traces vs ${SHORT}: ${agentsLine}`);

  async function otlpIngest(body: string) {
    const decoded = decodeOtlpJson(body);
    if (!decoded.ok) throw new Error(JSON.stringify(decoded.issues.slice(0, 3)));
    const result = await ingestOtlpSpans(prisma, decoded.spans, "otlp-json");
    if (!result.ok) throw new Error(JSON.stringify(result.issues.slice(0, 3)));
    return result;
  }
}

/**
 * An export into a session whose call ids OTHERS other sessions' spans name too (a provider that reuses
 * short tool-call ids: vLLM, Ollama), ÷ the same export into a session whose call ids nobody else names.
 * Both sessions get BASE traces in one export, then LATE exports of one trace each, interleaved; the
 * other sessions hold copies of every span of those traces that names a call id. Target: ≈ 1.0.
 */
async function sharedCallIdsSection(prisma: Db) {
  const OTHERS = Number(process.env.SHARED_SESSIONS ?? 1000);
  const BASE = 5;
  const LATE = 21;
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
  // The same recorded trace under trace ids of its own for each session, the call ids renamed per turn
  // only: every session built from `body` names the same call ids in the same turns.
  const body = (name: string, seed: number, ownIds: boolean) => {
    const text = sessionBody(950, seed, BASE + LATE).replaceAll("bench-session-950", name);
    return ownIds ? text.replace(/call_(lookup|refund|time)_/g, "own_$1_") : text;
  };
  const splitOf = (text: string) => {
    const doc = JSON.parse(text) as { resourceSpans: { scopeSpans: { spans: { traceId: string }[] }[] }[] };
    const spans = doc.resourceSpans[0]!.scopeSpans[0]!.spans;
    const traceIds = [...new Set(spans.map((sp) => sp.traceId))];
    const bodyOf = (ids: string[]) => {
      const part = structuredClone(doc);
      part.resourceSpans[0]!.scopeSpans[0]!.spans = spans.filter((sp) => ids.includes(sp.traceId));
      return JSON.stringify(part);
    };
    const lateTraces = traceIds.slice(BASE);
    return { first: bodyOf(traceIds.slice(0, BASE)), late: lateTraces.map((t) => bodyOf([t])), lateTraces };
  };
  const ingest = async (text: string) => {
    const decoded = decodeOtlpJson(text);
    if (!decoded.ok) throw new Error(JSON.stringify(decoded.issues.slice(0, 3)));
    const result = await ingestOtlpSpans(prisma, decoded.spans, "otlp-json");
    if (!result.ok) throw new Error(JSON.stringify(result.issues.slice(0, 3)));
    return result;
  };

  // The other sessions: one stored through the ingest, then copies of it (the session row, and its spans
  // that name a call id in the late turns: what the late exports' reads could meet).
  await ingest(body("callscope-other", 7000, false));
  const template = await prisma.session.findFirstOrThrow({ where: { externalId: "session:callscope-other" } });
  await prisma.session.createMany({
    data: Array.from({ length: OTHERS - 1 }, (_, i) => ({
      ...sessionColumns({ ...template, events: [] }),
      externalId: `callscope-other:${i}`,
    })),
  });
  const { lateTraces } = splitOf(body("callscope-other", 7000, false));
  await prisma.$executeRaw`
    INSERT INTO "TraceSpan" (id, "groupKey", "traceId", "spanId", "sessionId", "startNs", "lastNs", role, "callIds")
    SELECT md5(random()::text), 'callscope:' || o.id, t."traceId", t."spanId", o.id, t."startNs", t."lastNs", t.role, t."callIds"
    FROM "TraceSpan" t, "Session" o
    WHERE t."sessionId" = ${template.id} AND t."traceId" = ANY(${lateTraces}::text[]) AND cardinality(t."callIds") > 0
      AND o."externalId" LIKE 'callscope-other:%'`;
  const [{ n: shared }] = await prisma.$queryRaw<[{ n: bigint }]>`
    SELECT count(*) AS n FROM "TraceSpan" WHERE "traceId" = ANY(${lateTraces}::text[]) AND cardinality("callIds") > 0`;

  // The two sessions measured: the same shape, one naming the others' call ids, one its own.
  const sides = {
    shared: splitOf(body("callscope-shared", 7100, false)),
    own: splitOf(body("callscope-own", 7200, true)),
  };
  for (const side of Object.values(sides)) await ingest(side.first);
  const times = { shared: [] as number[], own: [] as number[] };
  for (let late = 0; late < LATE; late++)
    // Each side first in every other pair: neither gains from going second.
    for (const which of late % 2 === 0 ? (["shared", "own"] as const) : (["own", "shared"] as const)) {
      const t0 = performance.now();
      const result = await ingest(sides[which].late[late]!);
      times[which].push(performance.now() - t0);
      if (!result.incremental) throw new Error(`callscope-${which}: an export fell back to the full rebuild`);
    }
  const [a, b] = [median(times.shared), median(times.own)];
  console.log(
    `OTLP, an export into a session whose call ids ${OTHERS} other sessions share (${shared} spans name them) vs one nobody shares: median ${a.toFixed(1)} vs ${b.toFixed(1)} ms = ${(a / b).toFixed(2)}×  (target ≈ 1.00)`,
  );
}

type StoredSession = Prisma.SessionGetPayload<{ include: { events: true } }>;

type SpanRowCopy = {
  groupKey: string;
  traceId: string;
  spanId: string;
  sessionId: string;
  payload: unknown;
  packed: Uint8Array | null;
  digest: unknown;
  startNs: bigint | null;
  lastNs: bigint | null;
  role: string | null;
  callIds: string[];
};

/** TraceSpan rows as JSON records, about 4 MB a statement (as insertEventRows does for events). */
async function insertSpanRows(tx: DbClient, rows: readonly SpanRowCopy[]): Promise<void> {
  let batch: string[] = [];
  let bytes = 0;
  const flush = async () => {
    if (batch.length === 0) return;
    await tx.$executeRaw`
      INSERT INTO "TraceSpan" (id, "groupKey", "traceId", "spanId", "sessionId", payload, packed, digest, "startNs", "lastNs", role, "callIds")
      SELECT md5(random()::text), "groupKey", "traceId", "spanId", "sessionId", payload, decode(packed, 'base64'), digest,
        "startNs"::bigint, "lastNs"::bigint, role, "callIds"
      FROM jsonb_to_recordset(${`[${batch.join(",")}]`}::jsonb) AS x("groupKey" text, "traceId" text, "spanId" text,
        "sessionId" text, payload jsonb, packed text, digest jsonb, "startNs" text, "lastNs" text, role text, "callIds" text[])`;
    batch = [];
    bytes = 0;
  };
  for (const row of rows) {
    const text = JSON.stringify({
      ...row,
      packed: row.packed ? Buffer.from(row.packed).toString("base64") : null,
      startNs: row.startNs === null ? null : String(row.startNs),
      lastNs: row.lastNs === null ? null : String(row.lastNs),
    });
    if (bytes + text.length > 4_000_000) await flush();
    batch.push(text);
    bytes += text.length + 1;
  }
  await flush();
}

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
