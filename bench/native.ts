/**
 * One native session document imported as a stream (lib/server/ingest/stream-import.ts, as POST /api/v1/sessions
 * runs it), on generated documents (lib/ingest/long-native.ts: every event kind, failed calls, usage, parentSeq,
 * `metadata` after the events).
 *
 *   npx tsx bench/native.ts cost [smallTurns] [largeTurns]
 *     The per-event cost of the import at ~100 events (45 turns) and ~10,000 (4,580 turns), on each engine of
 *     BENCH_ENGINES (default pglite,postgres): RUNS (3) runs alternating the sizes, each a new session; per run
 *     the ratio large/small of the CPU time per event of this process (the figure held to the target, ≤ 1.5×:
 *     on PGlite the database runs in this process, so its work is counted and other processes' is not) and of
 *     the wall time, then the median and min–max over the runs, and the load average before and after.
 *
 *   npx tsx bench/native.ts rss <MB>
 *     One document of about <MB> megabytes (tool results padded), generated a piece at a time as it is read
 *     (twice: the survey, then the import), imported into PGlite: prints its size, events, time, the heap and
 *     the buffers held after a window (garbage collected first; the buffers include PGlite's WebAssembly memory)
 *     and this process's peak RSS. Run it under
 *     `/usr/bin/time -v` for the peak RSS as the system saw it; compare 10 with 100.
 */
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { loadavg } from "node:os";
import { createTestDatabase, type TestEngine } from "../lib/db/testing";
import { longNativeParts, longNativeText } from "../lib/ingest/long-native";
import { bytesSource, importStream, type ByteSource } from "../lib/server/ingest/stream-import";

setFlagsFromString("--expose-gc");
const collect = runInNewContext("gc") as () => void;
const MB = 1024 * 1024;
const RUNS = 3;
const load = () =>
  loadavg()
    .map((l) => l.toFixed(2))
    .join(" ");
const cpuMs = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const spread = (xs: number[]) =>
  `${median(xs).toFixed(2)} (${Math.min(...xs).toFixed(2)}–${Math.max(...xs).toFixed(2)})`;

async function cost(small: number, large: number) {
  const engines = (process.env.BENCH_ENGINES ?? "pglite,postgres").split(",") as TestEngine[];
  const bodies = [small, large].map((turns) => longNativeText(turns));
  for (const engine of engines) {
    const db = await createTestDatabase(engine);
    try {
      const before = load();
      const warm = await importStream(db.prisma, bytesSource(bodies[0]!), { wholeLimit: 4096 });
      if (!warm.ok) throw new Error(JSON.stringify(warm.issues.slice(0, 3)));
      const per: { events: number; cpu: number[]; wall: number[] }[] = bodies.map(() => ({
        events: 0,
        cpu: [],
        wall: [],
      }));
      for (let run = 0; run < RUNS; run++) {
        for (const [i, body] of bodies.entries()) {
          collect();
          const [c, w] = [cpuMs(), performance.now()];
          const r = await importStream(db.prisma, bytesSource(body), { wholeLimit: 4096 });
          const [dc, dw] = [cpuMs() - c, performance.now() - w];
          if (!r.ok || r.format !== "native") throw new Error(JSON.stringify(r).slice(0, 500));
          per[i]!.events = r.sessions[0]!.eventCount;
          per[i]!.cpu.push(dc / per[i]!.events);
          per[i]!.wall.push(dw / per[i]!.events);
        }
      }
      const [s, l] = per as [(typeof per)[0], (typeof per)[0]];
      const ratios = (k: "cpu" | "wall") => s[k].map((x, run) => l[k][run]! / x);
      console.log(`${engine}: load before ${before}, after ${load()}`);
      for (const p of per)
        console.log(
          `  ${p.events} events: CPU ms/event ${spread(p.cpu)}, wall ms/event ${spread(p.wall)} (median, min–max of ${RUNS})`,
        );
      console.log(
        `  ratio ${l.events}/${s.events} per run: CPU ${ratios("cpu")
          .map((x) => x.toFixed(2))
          .join(" ")} → ${spread(ratios("cpu"))}; wall ${ratios("wall")
          .map((x) => x.toFixed(2))
          .join(" ")} → ${spread(ratios("wall"))}`,
      );
    } finally {
      await db.drop();
    }
  }
}

/** A document of about `mb` megabytes, generated as it is read (never whole). */
function generated(mb: number): ByteSource & { turns: number } {
  const pad = 2000;
  const sample = Buffer.byteLength(longNativeText(100, { pad }));
  const turns = Math.max(1, Math.round(((mb * MB) / sample) * 100));
  const encoder = new TextEncoder();
  function* chunks(): Generator<Uint8Array> {
    let batch = "";
    for (const part of longNativeParts(turns, { pad })) {
      batch += part;
      if (batch.length >= MB) {
        yield encoder.encode(batch);
        batch = "";
      }
    }
    yield encoder.encode(batch);
  }
  let size = 0;
  for (const c of chunks()) size += c.byteLength;
  return { size, turns, chunks };
}

async function rss(mb: number) {
  const source = generated(mb);
  const db = await createTestDatabase("pglite");
  try {
    collect();
    const start = process.memoryUsage();
    const held = { heap: 0, buffers: 0 };
    const t = performance.now();
    const result = await importStream(db.prisma, source, {
      wholeLimit: 4096,
      onProgress: () => {
        collect();
        const m = process.memoryUsage();
        held.heap = Math.max(held.heap, (m.heapUsed - start.heapUsed) / MB);
        held.buffers = Math.max(held.buffers, (m.arrayBuffers - start.arrayBuffers) / MB);
      },
    });
    if (!result.ok || result.format !== "native") throw new Error(JSON.stringify(result).slice(0, 500));
    console.log(
      `${(source.size / MB).toFixed(1)} MB, ${result.sessions[0]!.eventCount} events in ${((performance.now() - t) / 1000).toFixed(1)} s; ` +
        `held after a window at most: heap ${held.heap.toFixed(1)} MB, buffers ${held.buffers.toFixed(1)} MB (PGlite's memory is one); RSS before ${(start.rss / MB).toFixed(0)} MB, peak ${(process.resourceUsage().maxRSS / 1024).toFixed(0)} MB; load ${load()}`,
    );
  } finally {
    await db.drop();
  }
}

const [mode, a, b] = process.argv.slice(2);
if (mode === "cost") await cost(Number(a ?? 45), Number(b ?? 4580));
else if (mode === "rss") await rss(Number(a ?? 10));
else throw new Error("usage: npx tsx bench/native.ts cost [smallTurns] [largeTurns] | rss <MB>");
