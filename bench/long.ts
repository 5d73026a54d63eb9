/**
 * Long sessions: what one event costs at 100, 1,000 and 10,000 tool turns of
 * an OpenAI chat log (lib/ingest/long-chat.ts: realistic message sizes, every
 * text different), on the embedded database and on PostgreSQL. Per size:
 *   import   ms per event: parse, check, store (one transaction), as POST /api/v1/sessions does
 *   db       bytes per event: the session's Event rows as stored (pg_column_size, after compression)
 *   read     ms per event: the session's events with full model inputs, as the engine and the page load them
 *   delta    bytes per event of GET /api/v1/sessions/:id?inputs=delta
 *   replay   ms per event: the engine replaying the session under the recorded policy
 * and the ratio of each per-event figure at the largest size to the smallest
 * (target: within 1.5×, i.e. linear). With BENCH_URL and BENCH_KEY (a running
 * server and an API key) it also imports through HTTP and times the session
 * page: bytes per event and time to first byte.
 *
 * Run: npx tsx bench/long.ts [turns…]   (or npm run bench:long; default 100 1000 10000)
 * BENCH_ENGINES=pglite,postgres (default both; postgres is skipped when 127.0.0.1:5432 does not answer).
 * BENCH_REPLAY_MAX_TURNS (default: every size): sizes above it skip the replay figure.
 */
import { presentSession } from "../lib/http/present";
import { importAndSave } from "../lib/db/imports";
import { getSession, sessionEvents } from "../lib/db/sessions";
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
  deltaBytes: number;
  replayMs: number | null;
  pageBytes: number | null;
  ttfbMs: number | null;
};

async function page(body: string): Promise<{ bytes: number; ttfbMs: number } | null> {
  const url = process.env.BENCH_URL;
  const key = process.env.BENCH_KEY;
  if (!url || !key) return null;
  const posted = await fetch(`${url}/api/v1/sessions`, {
    method: "POST",
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
    body,
  });
  const { sessions } = (await posted.json()) as { sessions: { id: string }[] };
  const t0 = performance.now();
  const res = await fetch(`${url}/sessions/${sessions[0]!.id}`);
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
}

async function run(engine: TestEngine): Promise<Row[]> {
  const db = await createTestDatabase(engine);
  try {
    const prisma = db.prisma;
    // Warm-up (JIT, the client's first queries): every step once at the smallest size, not counted.
    const warm = await importAndSave(prisma, JSON.stringify(longChatLog(TURNS[0]!)), { format: "openai-chat" });
    if (!warm.ok) throw new Error("warm-up import failed");
    const warmEvents = await sessionEvents(prisma, warm.sessions[0]!.id);
    await getSession(prisma, warm.sessions[0]!.id, { inputs: "delta" });
    await replay({ base: warmEvents, policy });
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
      const full = await sessionEvents(prisma, id);
      const readMs = performance.now() - t;
      const delta = (await getSession(prisma, id, { inputs: "delta" }))!;
      const deltaBytes = Buffer.byteLength(JSON.stringify({ session: presentSession(delta, { inputs: "delta" }) }));
      let replayMs: number | null = null;
      if (turns <= REPLAY_MAX) {
        t = performance.now();
        const r = await replay({ base: full, policy });
        replayMs = performance.now() - t;
        if (r.comparability !== "exact") throw new Error(`replay of ${turns} turns: ${r.comparability} (${r.status})`);
      }
      const served = engine === ENGINES[0] ? await page(body) : null;
      rows.push({
        turns,
        events,
        importMs,
        dbBytes: size!.bytes,
        readMs,
        deltaBytes,
        replayMs,
        pageBytes: served?.bytes ?? null,
        ttfbMs: served?.ttfbMs ?? null,
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
  console.log("  turns   events   import ms   db bytes   read ms   delta bytes   replay ms   page bytes   ttfb ms");
  for (const r of rows)
    console.log(
      `  ${String(r.turns).padStart(5)}  ${String(r.events).padStart(7)}  ${per(r.importMs, r, 3).padStart(10)}  ${per(r.dbBytes, r, 0).padStart(9)}  ${per(r.readMs, r, 4).padStart(8)}  ${per(r.deltaBytes, r, 0).padStart(12)}  ${per(r.replayMs, r, 4).padStart(10)}  ${per(r.pageBytes, r, 0).padStart(11)}  ${r.ttfbMs === null ? "—" : r.ttfbMs.toFixed(0).padStart(7)}`,
    );
  const first = rows[0]!;
  const last = rows.at(-1)!;
  const ratio = (f: (r: Row) => number | null) => {
    const a = f(first);
    const b = f(last);
    return a === null || b === null ? "—" : (b / last.events / (a / first.events)).toFixed(2);
  };
  console.log(
    `  ratio ${last.turns}/${first.turns} turns, per event (target ≤ 1.50): import ${ratio((r) => r.importMs)}, db bytes ${ratio((r) => r.dbBytes)}, read ${ratio((r) => r.readMs)}, delta bytes ${ratio((r) => r.deltaBytes)}, replay ${ratio((r) => r.replayMs)}`,
  );
}

const results: [string, Row[]][] = [];
for (const engine of ENGINES) {
  try {
    results.push([engine, await run(engine)]);
  } catch (error) {
    if (engine === "postgres" && String(error).includes("ECONNREFUSED"))
      console.log("postgres: not reachable, skipped");
    else throw error;
  }
}
for (const [engine, rows] of results) report(engine, rows);
if (TURNS.some((t) => t > REPLAY_MAX))
  console.log(`\nreplay above ${REPLAY_MAX} turns not run (BENCH_REPLAY_MAX_TURNS).`);
