/**
 * Health under a long replay on the embedded database (PGlite: one connection,
 * one process). The health check's own query (`SELECT 1` through the app's
 * client), sent every 100 ms, timed from when it was due (so time the event
 * loop was blocked counts, as it would for an HTTP request), first on an idle
 * database, then while a replay of a BENCH_TURNS-turn session (default 5,000
 * turns: 10,000 steps) runs in the same process as the web server runs it.
 * Prints p50, p95 and max for each, per run (BENCH_RUNS, default 3).
 *
 * Run: npx tsx bench/health-load.ts
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { openDatabase, type Db } from "../lib/db/client";
import { importAndSave } from "../lib/server/ingest/imports";
import { longChatLog } from "../lib/ingest/long-chat";
import type { Policy } from "../lib/replay";
import { localAdmin } from "../lib/server/principal";
import { StartReplayInput } from "../lib/server/replays/replay-inputs";
import { startReplay } from "../lib/server/replays/replays";

const TURNS = Number(process.env.BENCH_TURNS ?? 5000);
const RUNS = Number(process.env.BENCH_RUNS ?? 3);
const EVERY_MS = 100;

const policy: Policy = {
  model: "recorded-only",
  drift: "continue_to_terminal",
  tools: { default: { type: "history", scope: "baseline", on_miss: "fail" } },
};

/** Health probes every EVERY_MS until `stop` resolves; each latency is measured from when the probe was due. */
async function probe(prisma: Db, stop: Promise<unknown>): Promise<number[]> {
  const latencies: number[] = [];
  let done = false;
  void stop.finally(() => (done = true));
  let due = performance.now();
  while (!done) {
    await new Promise((r) => setTimeout(r, Math.max(0, due - performance.now())));
    const start = due;
    await prisma.$queryRaw`SELECT 1`;
    latencies.push(performance.now() - start);
    due = Math.max(due + EVERY_MS, performance.now());
  }
  return latencies;
}

function figures(ms: number[]): string {
  const s = [...ms].sort((a, b) => a - b);
  const q = (p: number) => s[Math.min(s.length - 1, Math.floor(p * s.length))]!;
  return `p50 ${q(0.5).toFixed(0).padStart(5)} ms  p95 ${q(0.95).toFixed(0).padStart(5)} ms  max ${s.at(-1)!.toFixed(0).padStart(5)} ms  (${s.length} probes)`;
}

const dir = mkdtempSync(path.join(tmpdir(), "branchpoint-bench-health-"));
const db = await openDatabase({ dir, url: "" });
try {
  const imported = await importAndSave(db.prisma, JSON.stringify(longChatLog(TURNS)), { format: "openai-chat" });
  if (!imported.ok) throw new Error("import failed");
  const sessionId = imported.sessions[0]!.id;
  console.log(`health under a replay on PGlite: ${TURNS} turns, ${imported.sessions[0]!.eventCount} events`);
  for (let run = 1; run <= RUNS; run++) {
    const idle = await probe(db.prisma, new Promise((r) => setTimeout(r, 3000)));
    const t0 = performance.now();
    const replaying = startReplay(
      localAdmin("bench"),
      StartReplayInput.parse({
        sessionId,
        policy,
        edits: [{ seq: 1, op: "replace_tool_result", value: { status: "lost" } }],
      }),
      db.prisma,
    );
    const busy = await probe(db.prisma, replaying);
    const replayMs = performance.now() - t0;
    console.log(`  run ${run}  idle:   ${figures(idle)}`);
    console.log(`  run ${run}  replay: ${figures(busy)}  (replay ${(replayMs / 1000).toFixed(1)} s)`);
  }
} finally {
  await db.close();
  rmSync(dir, { recursive: true, force: true });
}
