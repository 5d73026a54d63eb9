/**
 * The engine benchmark's sessions, policy and floor, shared by `bench/engine.ts` (CPU time) and
 * `bench/instructions.ts` (instructions counted under valgrind). Sessions come from one seeded
 * generator: the same calls in the same order give the same sessions in every process.
 */
import { hash } from "node:crypto";
import { canonicalJson, type Message, type Policy, type SessionEvent } from "../lib/replay";
import { buildSession, type CallSpec, type TurnSpec } from "../lib/replay/session-builder";

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
export const text = (n: number) => Array.from({ length: n }, () => pick(words)).join(" ");

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

export function makeSession(EVENTS: number): SessionEvent[] {
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

export const policy: Policy = {
  model: "recorded-only",
  drift: "continue_to_terminal",
  tools: { default: { type: "history", scope: "baseline", on_miss: "fail" } },
};

/**
 * The floor: every event of the session walked once; for each model call, the tool calls its output
 * requests (what the engine pairs and keys), each keyed as `cacheKey` keys it: canonical JSON of the
 * arguments, then one node:crypto one-shot SHA-256 (`crypto.hash`, what `sha256Hex` calls on Node)
 * of the name and that text, as hex. Nothing else: no step objects, no lookups.
 */
export function floorKeys(events: readonly SessionEvent[]): number {
  let sink = 0;
  for (const e of events) {
    if (e.kind !== "model_call") continue;
    const requested = (e.output as Message | null)?.toolCalls;
    if (requested === undefined) continue;
    for (const call of requested) {
      const canonical = canonicalJson(call.args);
      if (canonical === undefined) continue;
      sink += hash("sha256", `${JSON.stringify(call.name)}\n${canonical}`, "hex").length;
    }
  }
  return sink;
}
