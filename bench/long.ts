/**
 * Long sessions: what one event costs at 100, 1,000 and 10,000 tool turns of
 * an OpenAI chat log (lib/ingest/long-chat.ts: realistic message sizes, every
 * text different), on the embedded database and on PostgreSQL. Per size:
 *   import   ms per event: parse, check, store (one transaction), as POST /api/v1/sessions does
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
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { chromium } from "@playwright/test";
import { CHROMIUM_ARGS, CHROMIUM_PATH } from "../e2e/chromium";
import { openDatabase } from "../lib/db/client";
import { presentSession } from "../lib/http/present";
import { importAndSave } from "../lib/server/ingest/imports";
import { getSession, sessionEventRows, sessionEvents, sessionEventsCompact, sessionHead } from "../lib/db/sessions";
import type { Db } from "../lib/db/client";
import { presentSessionJson } from "../lib/http/present";
import { streamedJson } from "../lib/http/stream";
import { createTestDatabase, type TestEngine } from "../lib/db/testing";
import { longChatLog } from "../lib/ingest/long-chat";
import { replay, type Policy } from "../lib/replay";
import { startServer, type BenchServer } from "./server";
import { loadReplayComparison } from "../lib/db/replays";
import { createReport } from "../lib/db/reports";
import { localAdmin } from "../lib/server/principal";
import { startReplay, StartReplayInput } from "../lib/server/replays/replays";

const SIZES = process.argv
  .slice(2)
  .map(Number)
  .filter((n) => n > 0);
const TURNS = SIZES.length > 0 ? SIZES : [100, 1000, 10_000];
const ENGINES = (process.env.BENCH_ENGINES ?? "pglite,postgres").split(",") as TestEngine[];
const REPLAY_MAX = Number(process.env.BENCH_REPLAY_MAX_TURNS ?? Infinity);

const policy: Policy = {
  model: "recorded-only",
  drift: "continue_to_terminal",
  tools: { default: { type: "history", scope: "baseline", on_miss: "fail" } },
};

type Row = {
  turns: number;
  events: number;
  importMs: number;
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
    const warm = await importAndSave(prisma, JSON.stringify(longChatLog(TURNS[0]!)), { format: "openai-chat" });
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
      let t = performance.now();
      const result = await importAndSave(prisma, body, { format: "openai-chat" });
      const importMs = performance.now() - t;
      if (!result.ok) throw new Error(JSON.stringify(result.issues.slice(0, 3)));
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
      console.log(`  ${engine}: ${turns} turns done (${events} events, import ${importMs.toFixed(0)} ms)`);
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
      `  ${String(r.turns).padStart(5)}  ${String(r.events).padStart(7)}  ${per(r.importMs, r, 3).padStart(10)}  ${per(r.dbBytes, r, 0).padStart(9)}  ${per(r.readMs, r, 4).padStart(8)}  ${per(r.deltaBytes, r, 0).padStart(12)}  ${per(r.replayMs, r, 4).padStart(10)}   ${per(r.fullReadMs, r, 4).padStart(10)}`,
    );
  const first = rows[0]!;
  const last = rows.at(-1)!;
  const ratio = (f: (r: Row) => number | null) => {
    const a = f(first);
    const b = f(last);
    return a === null || b === null ? "—" : (b / last.events / (a / first.events)).toFixed(2);
  };
  console.log(
    `  ratio ${last.turns}/${first.turns} turns, per event (target ≤ 1.50): import ${ratio((r) => r.importMs)}, db bytes ${ratio((r) => r.dbBytes)}, read ${ratio((r) => r.readMs)}, delta bytes ${ratio((r) => r.deltaBytes)}, replay ${ratio((r) => r.replayMs)}; for the record, full read ${ratio((r) => r.fullReadMs)}`,
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

// ---------------------------------------------------------------------------
// The session page, served by next start.

const ADMIN = { email: "bench@bench.test", password: "bench-admin-password" };

const PAGE_KINDS = ["session", "replay", "compare"] as const;
type PageKind = (typeof PAGE_KINDS)[number];
type PageRow = {
  kind: PageKind;
  turns: number;
  events: number;
  bytes: number[];
  ttfbMs: number[];
  firstScreenMs: number[];
  /** The comparison page: the first request after the server started (its alignment built), and the build in this process. */
  coldTtfbMs?: number;
  buildMs?: number;
};
/** Where each page kind is, and what shows its first screen. */
const PAGE_PATH: Record<PageKind, (id: { session: string; replay: string }) => string> = {
  session: (id) => `/sessions/${id.session}`,
  replay: (id) => `/replays/${id.replay}`,
  compare: (id) => `/replays/${id.replay}/compare`,
};
const FIRST_SCREEN: Record<PageKind, string> = {
  session: '[data-testid="chat-item"]',
  replay: '[data-testid="replay-step"]',
  compare: '[data-testid="compare-row"]',
};

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const spread = (xs: number[], digits = 0) =>
  `${median(xs).toFixed(digits)} (${Math.min(...xs).toFixed(digits)}–${Math.max(...xs).toFixed(digits)})`;

async function pages(): Promise<{
  rows: PageRow[];
  baseline: PageRow;
  buildMs: Map<number, number>;
  reportMs: Map<number, number>;
} | null> {
  const dist = process.env.NEXT_DIST_DIR || ".next";
  if (!existsSync(path.join(dist, "BUILD_ID"))) {
    console.log(`\npage: no production build in ${dist}/ (run \`npm run build\`, or set NEXT_DIST_DIR): skipped`);
    return null;
  }
  const port = Number(process.env.BENCH_PORT ?? 3191);
  const dir = mkdtempSync(path.join(tmpdir(), "branchpoint-bench-long-"));
  let server: BenchServer | null = null;
  try {
    // One session per size and a replay of it, stored before the server starts (the server is not what is measured
    // here). The replay edits the first tool result: every later model call is sent another input.
    const sessions: { turns: number; id: string; replayId: string; events: number }[] = [];
    const buildMs = new Map<number, number>();
    const reportMs = new Map<number, number>();
    const db = await openDatabase({ dir, url: "" });
    try {
      for (const turns of TURNS) {
        const result = await importAndSave(db.prisma, JSON.stringify(longChatLog(turns)), { format: "openai-chat" });
        if (!result.ok) throw new Error("import failed");
        const id = result.sessions[0]!.id;
        const input = {
          sessionId: id,
          policy,
          edits: [{ seq: 1, op: "replace_tool_result", value: { status: "lost" } }],
        };
        const started = await startReplay(localAdmin("bench"), StartReplayInput.parse(input), db.prisma);
        const t = performance.now();
        const compared = await loadReplayComparison(db.prisma, started.id);
        buildMs.set(turns, performance.now() - t);
        // An RCA report of it, pinning its first divergence: made from the comparison, the pairs it shows whole.
        const r0 = performance.now();
        await createReport(db.prisma, {
          replayId: started.id,
          title: `${turns} turns`,
          sections: { pinnedPairs: [compared!.comparison.firstDivergence!.id] },
          createdBy: "bench",
        });
        reportMs.set(turns, performance.now() - r0);
        if (compared?.replay.status !== "completed")
          throw new Error(`replay of ${turns} turns: ${compared?.replay.status}`);
        sessions.push({ turns, id, replayId: started.id, events: result.sessions[0]!.eventCount });
        console.log(`  pages: ${turns} turns stored and replayed`);
      }
    } finally {
      await db.close();
    }
    server = await startServer({ port, dataDir: dir, admin: ADMIN });
    const base = server.base;
    // Pages are for signed-in users: sign in as the admin the server made at start.
    const signIn = await fetch(`${base}/api/auth/sign-in/email`, {
      method: "POST",
      headers: { "content-type": "application/json", origin: base },
      body: JSON.stringify(ADMIN),
    });
    if (!signIn.ok) throw new Error(`sign-in: HTTP ${signIn.status} ${await signIn.text()}`);
    const cookie = signIn.headers
      .getSetCookie()
      .map((c) => c.split(";")[0])
      .join("; ");

    const html = async (where: string | null) => {
      const t0 = performance.now();
      const url = where === null ? `${base}/sessions` : `${base}${where}`;
      const res = await fetch(url, { headers: { cookie } });
      if (!res.ok) throw new Error(`${url}: HTTP ${res.status}`);
      const reader = res.body!.getReader();
      let bytes = 0;
      let ttfbMs = 0;
      for (let first = true; ; first = false) {
        const { done, value } = await reader.read();
        if (first) ttfbMs = performance.now() - t0;
        if (done) break;
        bytes += value.byteLength;
      }
      return { bytes, ttfbMs };
    };
    const browser = await chromium.launch({ executablePath: CHROMIUM_PATH, args: CHROMIUM_ARGS });
    const context = await browser.newContext({ viewport: { width: 1400, height: 1000 } });
    const signedIn = await context.request.post(`${base}/api/auth/sign-in/email`, { data: ADMIN });
    if (!signedIn.ok()) throw new Error(`sign-in in Chromium: HTTP ${signedIn.status()}`);
    const page = await context.newPage();
    const firstScreen = async (where: string | null, kind: PageKind | null) => {
      await page.goto(`${base}/import`); // a neutral page first, so each measurement starts from a loaded app
      const t0 = performance.now();
      await page.goto(where === null ? `${base}/sessions` : `${base}${where}`, { waitUntil: "commit" });
      await page
        .locator(kind === null ? '[data-testid="session-row"]' : FIRST_SCREEN[kind])
        .first()
        .waitFor({ state: "visible" });
      const ms = performance.now() - t0;
      // What the page loads after its first screen (the replay page's coverage) finishes before the next
      // measurement: one process serves them all.
      await page.waitForLoadState("networkidle");
      return ms;
    };
    const rows: PageRow[] = PAGE_KINDS.flatMap((kind) =>
      sessions.map((s) => ({ kind, turns: s.turns, events: s.events, bytes: [], ttfbMs: [], firstScreenMs: [] })),
    );
    const pathOf = (row: PageRow) => {
      const s = sessions.find((x) => x.turns === row.turns)!;
      return PAGE_PATH[row.kind]({ session: s.id, replay: s.replayId });
    };
    // Warm-up (the routes' first compile, caches): every page once, not counted. The comparison's first request
    // builds its alignment: its time is reported apart.
    for (const row of rows) {
      const served = await html(pathOf(row));
      if (row.kind === "compare") row.coldTtfbMs = served.ttfbMs;
      await firstScreen(pathOf(row), row.kind);
    }
    // The baseline, measured in the same runs: the sessions list (three rows), a page that reads no events.
    await html(null);
    await firstScreen(null, null);
    const baseline: PageRow = { kind: "session", turns: 0, events: 0, bytes: [], ttfbMs: [], firstScreenMs: [] };
    for (let run = 0; run < 5; run++) {
      const listed = await html(null);
      baseline.bytes.push(listed.bytes);
      baseline.ttfbMs.push(listed.ttfbMs);
      baseline.firstScreenMs.push(await firstScreen(null, null));
      for (const row of rows) {
        const served = await html(pathOf(row));
        row.bytes.push(served.bytes);
        row.ttfbMs.push(served.ttfbMs);
        row.firstScreenMs.push(await firstScreen(pathOf(row), row.kind));
      }
    }
    await browser.close();
    return { rows, baseline, buildMs, reportMs };
  } finally {
    await server?.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

const PAGE_TITLE: Record<PageKind, string> = {
  session: "session page",
  replay: "replay page",
  compare: "comparison page",
};

function reportPages({
  rows: all,
  baseline,
  buildMs,
  reportMs,
}: {
  rows: PageRow[];
  baseline: PageRow;
  buildMs: Map<number, number>;
  reportMs: Map<number, number>;
}) {
  console.log(
    `\nbaseline, the sessions list (a page that reads no events): ${spread(baseline.bytes)} bytes, TTFB ${spread(baseline.ttfbMs)} ms, first rows ${spread(baseline.firstScreenMs)} ms`,
  );
  for (const kind of PAGE_KINDS) {
    const rows = all.filter((r) => r.kind === kind);
    console.log(`\n${PAGE_TITLE[kind]} (next start, embedded database): median of 5 (min–max)`);
    console.log("  turns   events   HTML bytes              bytes/event   TTFB ms          first screen ms (Chromium)");
    for (const r of rows)
      console.log(
        `  ${String(r.turns).padStart(5)}  ${String(r.events).padStart(7)}  ${spread(r.bytes).padEnd(22)}  ${(median(r.bytes) / r.events).toFixed(1).padStart(11)}   ${spread(r.ttfbMs).padEnd(15)}  ${spread(r.firstScreenMs)}`,
      );
    const first = rows[0]!;
    const last = rows.at(-1)!;
    const ratio = (f: (r: PageRow) => number[]) => (median(f(last)) / median(f(first))).toFixed(2);
    const worst = Math.max(...rows.flatMap((r) => r.firstScreenMs));
    console.log(
      `  ratio ${last.turns}/${first.turns} turns, whole page (target ≤ 1.50): HTML bytes ${ratio((r) => r.bytes)}, TTFB ${ratio((r) => r.ttfbMs)}, first screen ${ratio((r) => r.firstScreenMs)}; per event: HTML bytes ${(median(last.bytes) / last.events / (median(first.bytes) / first.events)).toFixed(3)}`,
    );
    console.log(
      `  first screen in Chromium at ${last.turns} turns: ${median(last.firstScreenMs).toFixed(0)} ms median, ${Math.max(...last.firstScreenMs).toFixed(0)} ms worst (target < 1000 ms; worst over all sizes ${worst.toFixed(0)} ms); ratio to the baseline's first rows ${(median(last.firstScreenMs) / median(baseline.firstScreenMs)).toFixed(2)}, TTFB ${(median(last.ttfbMs) / median(baseline.ttfbMs)).toFixed(2)}`,
    );
    if (kind === "compare")
      console.log(
        `  the alignment, built once per replay state (one run each): ${rows.map((r) => `${r.turns} turns ${buildMs.get(r.turns)!.toFixed(0)} ms in this process, first page request TTFB ${r.coldTtfbMs!.toFixed(0)} ms`).join("; ")}; per event ${rows.map((r) => (buildMs.get(r.turns)! / r.events).toFixed(3)).join(" / ")} ms`,
      );
    if (kind === "compare") {
      // What the first request costs per step: flat from the smallest run to the largest when the alignment reads
      // digests and summaries only (a step's output or tool input is read for the rows a window shows).
      const perEvent = (r: PageRow, ms: number) => ms / r.events;
      console.log(
        `  first comparison request per event, ${last.turns} ÷ ${first.turns} turns (target ≤ 1.50): alignment built ${(perEvent(last, buildMs.get(last.turns)!) / perEvent(first, buildMs.get(first.turns)!)).toFixed(2)}, first page request ${(perEvent(last, last.coldTtfbMs!) / perEvent(first, first.coldTtfbMs!)).toFixed(2)}`,
      );
      console.log(
        `  an RCA report of the replay (one run each): ${rows.map((r) => `${r.turns} turns ${reportMs.get(r.turns)!.toFixed(0)} ms`).join(", ")}; per event ${rows.map((r) => perEvent(r, reportMs.get(r.turns)!).toFixed(3)).join(" / ")} ms, ${last.turns} ÷ ${first.turns} ${(perEvent(last, reportMs.get(last.turns)!) / perEvent(first, reportMs.get(first.turns)!)).toFixed(2)}`,
      );
    }
  }
}

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
const pageRows = PAGES === "0" ? null : await pages();
for (const [engine, rows] of results) report(engine, rows);
if (TURNS.some((t) => t > REPLAY_MAX) && PAGES !== "only")
  console.log(`\nreplay above ${REPLAY_MAX} turns not run (BENCH_REPLAY_MAX_TURNS).`);
if (pageRows) reportPages(pageRows);
