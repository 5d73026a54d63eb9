/**
 * Long sessions: what one event costs at 100, 1,000 and 10,000 tool turns of
 * an OpenAI chat log (lib/ingest/long-chat.ts: realistic message sizes, every
 * text different), on the embedded database and on PostgreSQL. Per size:
 *   import   ms per event: read as a stream, check, store in windows (one transaction), as POST /api/v1/sessions
 *            does; 3 runs, and the ratio largest/smallest per run with its spread and the load average
 *   db       bytes per event: the session's Event rows as stored (pg_column_size, after compression)
 *   read     ms per event: the session's events in the stored form, as a replay loads them (lib/server/replays/replays.ts)
 *   delta    bytes per event of GET /api/v1/sessions/:id?inputs=delta
 *   replay   ms per event: the engine replaying that under the recorded policy, steps in the stored form (as a replay does)
 *   full read  ms per event, for the record: the events with every model input whole (sessionEvents). Not
 *            held to the target: each model call's input is then its own array of the whole conversation, so
 *            the result is the square of the session whatever reads it (what reads it does so at that cost).
 * and the ratio of each per-event figure at the largest size to the smallest
 * (target: within 1.5×, i.e. linear).
 *
 * Then GET /api/v1/sessions/:id streamed (the route's own functions, in this
 * process: lib/http/stream.ts over presentSessionJson), full and delta: time to
 * the first chunk and the growth of this process's RSS while the body is read
 * (max over the read minus before it), neither of which should grow with the
 * session (ratio largest/smallest of the totals, target ≤ 1.5). The full body
 * is the square of the session (every input whole: ~28 GB at 10,000 turns), so
 * it is read up to BENCH_STREAM_MAX_MB (default 1024) and the bytes read are
 * shown. Baseline in the same run: the RSS growth of the whole-document
 * presenter the route used before (delta only; the full document at 10,000
 * turns is past what one string can hold).
 *
 * Then the session page, the replay page and the comparison page, served by
 * `next start` (started here, on the build in $NEXT_DIST_DIR, default .next,
 * over a temporary embedded database holding one session per size and a replay
 * of each, made through lib/server as the API makes them, with the first tool
 * result edited so that every later model call differs): each page's HTML bytes
 * (total and per event) and time to first byte, and in Chromium the time from
 * navigation until the first screen (the first messages, steps or pairs)
 * shows; each the median of 5 runs, with min–max. The pages send one window of
 * steps, so their bytes and time should not grow with the run: the ratios
 * largest/smallest are of the totals (target ≤ 1.5), the first screen under
 * 1 s. The comparison's alignment is computed once per replay state and kept:
 * its build time (in this process, before the server starts) and the
 * comparison page's first, cold, request are reported apart, with their
 * ratio per event largest/smallest (target ≤ 1.5), and so is the time to make
 * an RCA report of each replay pinning its first divergence.
 *
 * Run: npx tsx bench/long.ts [turns…]   (or npm run bench:long; default 100 1000 10000)
 *   needs a production build for the page figures: `NEXT_DIST_DIR=.next-x npx next build` (or npm run build)
 * BENCH_ENGINES=pglite,postgres (default both; postgres is skipped when 127.0.0.1:5432 does not answer).
 * BENCH_REPLAY_MAX_TURNS (default: every size): sizes above it skip the replay figure.
 * BENCH_PAGES=only: the page figures alone; BENCH_PAGES=0: without them. BENCH_PORT (default 3191).
 */
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { presentSession } from "../lib/http/present";
import { loadavg } from "node:os";
import { bytesSource, importStream } from "../lib/server/ingest/stream-import";
import {
  getSession,
  sessionEventRows,
  sessionEvents,
  sessionEventsCompact,
  sessionHead,
} from "../lib/db/session-reads";
import type { Db } from "../lib/db/client";
import { presentSessionJson } from "../lib/http/present";
import { streamedJson } from "../lib/http/stream";
import { createTestDatabase, type TestEngine } from "../lib/db/testing";
import { longChatLog } from "../lib/ingest/long-chat";
import { replay, type Policy } from "../lib/replay";

const SIZES = process.argv
  .slice(2)
  .map(Number)
  .filter((n) => n > 0);
const TURNS = SIZES.length > 0 ? SIZES : [100, 1000, 10_000];
const ENGINES = (process.env.BENCH_ENGINES ?? "pglite,postgres").split(",") as TestEngine[];
const REPLAY_MAX = Number(process.env.BENCH_REPLAY_MAX_TURNS ?? Infinity);
const IMPORT_RUNS = 3;
const IMPORT = { wholeLimit: 20 * 1024 * 1024 };
const load = () =>
  loadavg()
    .map((l) => l.toFixed(2))
    .join(", ");

const policy: Policy = {
  model: "recorded-only",
  drift: "continue_to_terminal",
  tools: { default: { type: "history", scope: "baseline", on_miss: "fail" } },
};

type Row = {
  turns: number;
  events: number;
  /** One figure per run (IMPORT_RUNS). */
  importMs: number[];
  dbBytes: number;
  readMs: number;
  fullReadMs: number;
  deltaBytes: number;
  replayMs: number | null;
  stream: Record<"full" | "delta", StreamFigures>;
  wholeDeltaRssMb: number;
};

type StreamFigures = { ttfbMs: number[]; rssMb: number; bytes: number; whole: boolean };

const STREAM_MAX_BYTES = Number(process.env.BENCH_STREAM_MAX_MB ?? 1024) * 1024 * 1024;
const rss = () => process.memoryUsage.rss();
const MB = 1024 * 1024;
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const spread = (xs: number[], digits = 0) =>
  `${median(xs).toFixed(digits)} (${Math.min(...xs).toFixed(digits)}–${Math.max(...xs).toFixed(digits)})`;

// A full collection before each RSS figure (the standard way to reach gc() without --expose-gc).
setFlagsFromString("--expose-gc");
const collect = runInNewContext("gc") as () => void;

/** GET /api/v1/sessions/:id as the route streams it, read here: first chunk time, RSS growth, bytes read. */
async function measureStream(prisma: Db, id: string, inputs: "full" | "delta"): Promise<StreamFigures> {
  collect();
  const before = rss();
  let peak = before;
  const t = performance.now();
  const head = (await sessionHead(prisma, id))!;
  const response = await streamedJson(presentSessionJson(head, sessionEventRows(prisma, id), { inputs }), {
    where: "bench",
  });
  const reader = response.body!.getReader();
  let ttfbMs = 0;
  let bytes = 0;
  let whole = true;
  for (let first = true; ; first = false) {
    const { done, value } = await reader.read();
    if (first) ttfbMs = performance.now() - t;
    if (done) break;
    bytes += value.byteLength;
    peak = Math.max(peak, rss());
    if (bytes >= STREAM_MAX_BYTES) {
      whole = false;
      await reader.cancel();
      break;
    }
  }
  // Two more first chunks (the body not read), for the median of three.
  const ttfbs = [ttfbMs];
  for (let i = 0; i < 2; i++) {
    const t0 = performance.now();
    const again = await streamedJson(
      presentSessionJson((await sessionHead(prisma, id))!, sessionEventRows(prisma, id), { inputs }),
      { where: "bench" },
    );
    const r = again.body!.getReader();
    await r.read();
    ttfbs.push(performance.now() - t0);
    await r.cancel();
  }
  return { ttfbMs: ttfbs, rssMb: (peak - before) / MB, bytes, whole };
}

/** The whole-document presenter the route used before it streamed: RSS growth while it builds the delta document. */
async function measureWholeDelta(prisma: Db, id: string): Promise<number> {
  collect();
  const before = rss();
  const delta = (await getSession(prisma, id, { inputs: "delta" }))!;
  const body = new TextEncoder().encode(JSON.stringify({ session: presentSession(delta, { inputs: "delta" }) }));
  const peak = rss();
  if (body.byteLength === 0) throw new Error("empty document");
  return (peak - before) / MB;
}

async function run(engine: TestEngine): Promise<Row[]> {
  const db = await createTestDatabase(engine);
  try {
    const prisma = db.prisma;
    // Warm-up (JIT, the client's first queries): every step once at the smallest size, not counted.
    const warm = await importStream(prisma, bytesSource(JSON.stringify(longChatLog(TURNS[0]!))), IMPORT);
    if (!warm.ok) throw new Error("warm-up import failed");
    const warmEvents = await sessionEventsCompact(prisma, warm.sessions[0]!.id);
    await sessionEvents(prisma, warm.sessions[0]!.id);
    await getSession(prisma, warm.sessions[0]!.id, { inputs: "delta" });
    await replay({ base: warmEvents, policy, inputs: "compact" });
    await measureStream(prisma, warm.sessions[0]!.id, "full");
    await measureStream(prisma, warm.sessions[0]!.id, "delta");
    const rows: Row[] = [];
    for (const turns of TURNS) {
      const body = JSON.stringify(longChatLog(turns));
      // The import as POST /api/v1/sessions runs it (read as a stream, written in windows), IMPORT_RUNS times:
      // the first session is the one measured further.
      const importMs: number[] = [];
      let result: Awaited<ReturnType<typeof importStream>> | null = null;
      let t = 0;
      for (let run = 0; run < IMPORT_RUNS; run++) {
        t = performance.now();
        const r = await importStream(prisma, bytesSource(body), IMPORT);
        importMs.push(performance.now() - t);
        if (!r.ok) throw new Error(JSON.stringify(r.issues.slice(0, 3)));
        result ??= r;
      }
      if (!result?.ok) throw new Error("no import");
      const { id, eventCount: events } = result.sessions[0]!;
      const [size] = await prisma.$queryRaw<{ bytes: number }[]>`
        SELECT sum(pg_column_size(e.*))::float8 AS bytes FROM "Event" e WHERE "sessionId" = ${id}`;
      t = performance.now();
      const stored = await sessionEventsCompact(prisma, id);
      const readMs = performance.now() - t;
      collect();
      t = performance.now();
      const full = await sessionEvents(prisma, id);
      const fullReadMs = performance.now() - t;
      if (full.length !== stored.length) throw new Error("the two reads differ");
      collect();
      const delta = (await getSession(prisma, id, { inputs: "delta" }))!;
      const deltaBytes = Buffer.byteLength(JSON.stringify({ session: presentSession(delta, { inputs: "delta" }) }));
      let replayMs: number | null = null;
      if (turns <= REPLAY_MAX) {
        t = performance.now();
        const r = await replay({ base: stored, policy, inputs: "compact" });
        replayMs = performance.now() - t;
        if (r.comparability !== "exact") throw new Error(`replay of ${turns} turns: ${r.comparability} (${r.status})`);
      }
      const stream = {
        delta: await measureStream(prisma, id, "delta"),
        full: await measureStream(prisma, id, "full"),
      };
      const wholeDeltaRssMb = await measureWholeDelta(prisma, id);
      rows.push({
        stream,
        wholeDeltaRssMb,
        turns,
        events,
        importMs,
        dbBytes: size!.bytes,
        readMs,
        fullReadMs,
        deltaBytes,
        replayMs,
      });
      console.log(`  ${engine}: ${turns} turns done (${events} events, import ${spread(importMs)} ms)`);
    }
    return rows;
  } finally {
    await db.drop();
  }
}

function report(engine: string, rows: Row[]) {
  const per = (v: number | null, r: Row, digits: number) => (v === null ? "—" : (v / r.events).toFixed(digits));
  console.log(`\n${engine}: per event`);
  console.log("  turns   events   import ms   db bytes   read ms   delta bytes   replay ms   (full read ms)");
  for (const r of rows)
    console.log(
      `  ${String(r.turns).padStart(5)}  ${String(r.events).padStart(7)}  ${per(median(r.importMs), r, 3).padStart(10)}  ${per(r.dbBytes, r, 0).padStart(9)}  ${per(r.readMs, r, 4).padStart(8)}  ${per(r.deltaBytes, r, 0).padStart(12)}  ${per(r.replayMs, r, 4).padStart(10)}   ${per(r.fullReadMs, r, 4).padStart(10)}`,
    );
  const first = rows[0]!;
  const last = rows.at(-1)!;
  const ratio = (f: (r: Row) => number | null) => {
    const a = f(first);
    const b = f(last);
    return a === null || b === null ? "—" : (b / last.events / (a / first.events)).toFixed(2);
  };
  // Import: run i at the largest size against run i at the smallest, each per event; median of the runs (min–max).
  const importRatios = first.importMs.map((a, i) => last.importMs[i]! / last.events / (a / first.events));
  console.log(
    `  import ms per event, ${IMPORT_RUNS} runs, median (min–max): ${rows
      .map(
        (r) =>
          `${r.turns} turns ${spread(
            r.importMs.map((ms) => ms / r.events),
            3,
          )}`,
      )
      .join("; ")}`,
  );
  console.log(
    `  import ratio ${last.turns}/${first.turns} turns per event (target ≤ 1.50): ${spread(importRatios, 2)}; load average ${load()}`,
  );
  console.log(
    `  ratio ${last.turns}/${first.turns} turns, per event (target ≤ 1.50): import ${ratio((r) => median(r.importMs))}, db bytes ${ratio((r) => r.dbBytes)}, read ${ratio((r) => r.readMs)}, delta bytes ${ratio((r) => r.deltaBytes)}, replay ${ratio((r) => r.replayMs)}; for the record, full read ${ratio((r) => r.fullReadMs)}`,
  );
  console.log(`\n${engine}: GET /api/v1/sessions/:id streamed (whole figures, not per event)`);
  console.log(
    "  turns   inputs   first chunk ms, median of 3 (min–max)   RSS growth MB   body read               whole presenter RSS MB",
  );
  for (const r of rows)
    for (const inputs of ["delta", "full"] as const) {
      const f = r.stream[inputs];
      const read = `${(f.bytes / MB).toFixed(1)} MB${f.whole ? "" : " (cut)"}`;
      console.log(
        `  ${String(r.turns).padStart(5)}   ${inputs.padEnd(6)}  ${spread(f.ttfbMs, 1).padStart(38)}  ${f.rssMb.toFixed(1).padStart(14)}   ${read.padEnd(22)}  ${inputs === "delta" ? r.wholeDeltaRssMb.toFixed(1) : "—"}`,
      );
    }
  const whole = (f: (r: Row) => number) => (f(last) / Math.max(f(first), 1e-9)).toFixed(2);
  const rssRatio = (f: (r: Row) => number) => (Math.max(f(last), 1) / Math.max(f(first), 1)).toFixed(2);
  console.log(
    `  ratio ${last.turns}/${first.turns} turns (target ≤ 1.50): first chunk delta ${whole((r) => median(r.stream.delta.ttfbMs))}, full ${whole((r) => median(r.stream.full.ttfbMs))}; RSS growth (floored at 1 MB) delta ${rssRatio((r) => r.stream.delta.rssMb)}, full ${rssRatio((r) => r.stream.full.rssMb)}; baseline, whole presenter delta ${rssRatio((r) => r.wholeDeltaRssMb)}`,
  );
}

import { pages, reportPages } from "./long-pages";

const PAGES = process.env.BENCH_PAGES ?? "1";
const results: [string, Row[]][] = [];
if (PAGES !== "only")
  for (const engine of ENGINES) {
    try {
      results.push([engine, await run(engine)]);
    } catch (error) {
      if (engine === "postgres" && String(error).includes("ECONNREFUSED"))
        console.log("postgres: not reachable, skipped");
      else throw error;
    }
  }
console.log(`load average at start: ${load()}`);
const pageRows = PAGES === "0" ? null : await pages(TURNS, policy);
for (const [engine, rows] of results) report(engine, rows);
if (TURNS.some((t) => t > REPLAY_MAX) && PAGES !== "only")
  console.log(`\nreplay above ${REPLAY_MAX} turns not run (BENCH_REPLAY_MAX_TURNS).`);
if (pageRows) reportPages(pageRows);
