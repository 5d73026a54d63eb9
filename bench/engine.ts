/**
 * Replay engine benchmark: a 10,000-event session with realistic argument
 * sizes, replayed under recorded-only + history/baseline (the invariant path).
 * Prints the replay time, the floor (canonicalize + hash every tool call's
 * arguments once — work any replay must do to know the cache keys) and their
 * ratio. Target: ratio ≤ 1.5. Run: npx tsx bench/engine.ts
 */
import { cacheKey, compareRuns, replay, toolCallArgs, type Policy, type SessionEvent } from "../lib/replay";
import { buildSession, type CallSpec, type TurnSpec } from "../lib/replay/session-builder";

const EVENTS = 10_000;
const ITERATIONS = 15;

// Deterministic pseudo-random numbers (mulberry32), so every run measures the same session.
function rng(seed: number) {
  return () => {
    seed |= 0;
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
const random = rng(42);
const pick = <T>(xs: readonly T[]): T => xs[Math.floor(random() * xs.length)]!;
const words = "order refund customer shipping address invoice priority account status payment region warehouse".split(
  " ",
);
const text = (n: number) => Array.from({ length: n }, () => pick(words)).join(" ");

/** Arguments of 200 B – 3 KB: search queries with filters, orders with line items, documents. */
function args(tool: string, k: number): unknown {
  switch (tool) {
    case "search_orders":
      return {
        query: text(8),
        filters: {
          status: pick(["open", "shipped", "refunded"]),
          region: pick(["eu", "us", "apac"]),
          since: "2026-01-01",
        },
        limit: 20,
        page: k % 5,
      };
    case "get_order":
      return { order_id: `ord_${k % 400}`, include: ["items", "payments", "shipments"] };
    case "update_ticket":
      return {
        ticket_id: `t_${k}`,
        body: text(60),
        tags: Array.from({ length: 6 }, () => pick(words)),
        items: Array.from({ length: 8 }, (_, i) => ({
          sku: `sku_${(k + i) % 97}`,
          qty: 1 + (i % 3),
          price: 9.99 + i,
          note: text(5),
        })),
      };
    default:
      return { at: "now", tz: "UTC" };
  }
}
const TOOLS = ["search_orders", "get_order", "update_ticket", "clock"] as const;

function makeSession(): SessionEvent[] {
  const turns: TurnSpec[] = [{ user: "Customer asks about a refund." }];
  let events = 1;
  let k = 0;
  while (events < EVENTS - 3) {
    const n = Math.max(1, Math.min(1 + Math.floor(random() * 3), EVENTS - 3 - events - 1));
    const calls: CallSpec[] = [];
    for (let c = 0; c < n; c++, k++) {
      const tool = pick(TOOLS);
      // Polling-style repeats: every 7th call repeats an earlier identical call.
      const a = k % 7 === 0 ? args("get_order", 3) : args(tool, k);
      const name = k % 7 === 0 ? "get_order" : tool;
      calls.push(
        k % 23 === 0
          ? { name, args: a, error: { type: "Timeout", message: "upstream timed out" } }
          : { name, args: a, result: { ok: true, data: text(30), rows: k % 5 } },
      );
    }
    turns.push({ model: text(12), calls, order: calls.map((_, i) => i).reverse() });
    events += 1 + n;
  }
  turns.push({ model: "All done." }, { final: "Refund issued." });
  return buildSession(turns, { windowMessages: 12 });
}

const policy: Policy = {
  model: "recorded-only",
  drift: "continue_to_terminal",
  tools: { default: { type: "history", scope: "baseline", on_miss: "fail" } },
};

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

async function main() {
  const base = makeSession();
  const toolCalls = base.filter((e) => e.kind === "tool_call");
  const argBytes = toolCalls.map((e) => JSON.stringify(toolCallArgs(e)).length);
  console.log(
    `session: ${base.length} events, ${toolCalls.length} tool calls, args ${Math.min(...argBytes)}–${Math.max(...argBytes)} B (mean ${Math.round(argBytes.reduce((a, b) => a + b, 0) / argBytes.length)} B)`,
  );

  const floorTimes: number[] = [];
  const replayTimes: number[] = [];
  const compareTimes: number[] = [];
  let sink = 0;
  // Warm-up, then alternate floor and replay so both see the same machine state.
  for (let i = 0; i < ITERATIONS + 2; i++) {
    let t = performance.now();
    for (const e of toolCalls) sink += cacheKey(e.name, toolCallArgs(e))?.length ?? 0;
    const floor = performance.now() - t;

    t = performance.now();
    const r = await replay({ base, policy });
    const replayMs = performance.now() - t;
    if (r.comparability !== "exact") throw new Error(`expected an exact replay, got ${r.comparability} (${r.status})`);

    t = performance.now();
    const c = compareRuns(base, r.steps);
    const compareMs = performance.now() - t;
    sink += c.pairs.length;
    if (i >= 2) {
      floorTimes.push(floor);
      replayTimes.push(replayMs);
      compareTimes.push(compareMs);
    }
  }
  const f = median(floorTimes);
  const r = median(replayTimes);
  console.log(`floor (canonicalize + hash each call's args once): ${f.toFixed(1)} ms (median of ${ITERATIONS})`);
  console.log(`replay (recorded-only, history/baseline, exact):   ${r.toFixed(1)} ms (median of ${ITERATIONS})`);
  console.log(`ratio replay/floor: ${(r / f).toFixed(2)} (target ≤ 1.5) ${r / f <= 1.5 ? "PASS" : "FAIL"}`);
  console.log(`compare (align + diff + metrics): ${median(compareTimes).toFixed(1)} ms`);
  if (sink === 0) console.log("");
  if (r / f > 1.5) process.exitCode = 1;
}

void main();
