/**
 * The demo refund agent's back office: Harbor & Pine's orders, its payment refunds and a clock, in memory.
 * Every call is counted in `calls`, so a test (or you) can see that a re-run under the recorded policy ran
 * none of them. The one order is 4821, as the recorded run looked it up.
 */

export interface OrderItem {
  sku: string;
  name: string;
  qty: number;
  price: number;
}

export interface Order {
  order_id: string;
  customer: { name: string; email: string };
  status: "delivered" | "returned" | "in_transit";
  delivered_at: string | null;
  items: OrderItem[];
  shipping: number;
  total_paid: number;
  payment: { method: string; last4: string };
  refunds: { amount: number; reason: string }[];
}

export const REFUND_REASONS = ["damaged", "not_received", "wrong_item", "changed_mind"] as const;
export type RefundReason = (typeof REFUND_REASONS)[number];

export interface OrderSystem {
  /** The tools' bodies that ran, by name, in order. */
  calls: string[];
  lookupOrder(orderId: string): Order;
  refundPayment(orderId: string, amount: number, reason: RefundReason): string;
  currentTime(timezone: string): { iso: string; timezone: string };
}

function order4821(): Order {
  return {
    order_id: "4821",
    customer: { name: "Dana Whitfield", email: "dana.whitfield@example.com" },
    status: "delivered",
    delivered_at: "2025-03-10T16:41:00-04:00",
    items: [
      { sku: "CER-POUR-02", name: "Ceramic pour-over set", qty: 1, price: 129.0 },
      { sku: "FLT-100", name: "Paper filters (100)", qty: 1, price: 9.5 },
    ],
    shipping: 0.0,
    total_paid: 138.5,
    payment: { method: "visa", last4: "4242" },
    refunds: [],
  };
}

/** `2025-03-11T10:02:08-04:00`: the time in `timezone` with its offset (throws a RangeError for an unknown zone). */
export function isoInZone(timezone: string, now: Date): string {
  const parts = new Intl.DateTimeFormat("en-US", {
    timeZone: timezone,
    hourCycle: "h23",
    year: "numeric",
    month: "2-digit",
    day: "2-digit",
    hour: "2-digit",
    minute: "2-digit",
    second: "2-digit",
    timeZoneName: "longOffset",
  }).formatToParts(now);
  const part = (type: Intl.DateTimeFormatPartTypes) => parts.find((p) => p.type === type)?.value ?? "";
  const offset = part("timeZoneName").replace(/^GMT/, "") || "+00:00";
  return `${part("year")}-${part("month")}-${part("day")}T${part("hour")}:${part("minute")}:${part("second")}${offset}`;
}

/** A fresh back office with order 4821 delivered and not refunded. */
export function harborPineOrders(now: () => Date = () => new Date()): OrderSystem {
  const orders = new Map([["4821", order4821()]]);
  const calls: string[] = [];
  const find = (orderId: string) => {
    const order = orders.get(orderId);
    if (!order) throw new Error(`No order ${orderId}.`);
    return order;
  };
  return {
    calls,
    lookupOrder(orderId) {
      calls.push("lookup_order");
      return structuredClone(find(orderId));
    },
    refundPayment(orderId, amount, reason) {
      calls.push("refund_payment");
      const order = find(orderId);
      const refunded = order.refunds.reduce((sum, r) => sum + r.amount, 0);
      if (order.status === "returned") throw new Error(`Order ${orderId} was returned and refunded already.`);
      if (amount <= 0 || amount > order.total_paid - refunded)
        throw new Error(`Refund of $${amount.toFixed(2)} exceeds what is left to refund on order ${orderId}.`);
      order.refunds.push({ amount, reason });
      return `refund issued: $${amount.toFixed(2)}`;
    },
    currentTime(timezone) {
      calls.push("get_current_time");
      return { iso: isoInZone(timezone, now()), timezone };
    },
  };
}

/** An order as the back office writes it: its fields in this order (a typed record's, not a map's). */
export const ORDER_SHAPE: Order = {
  ...order4821(),
  refunds: [{ amount: 0, reason: "damaged" }],
};

/**
 * `value` with its objects' keys in the order of `shape` (keys `shape` lacks follow, as they came; an array's
 * items take the shape of `shape`'s first item). The back office writes its records in their fields' order;
 * a replay hands the recorded output back from a database that keeps no key order (PostgreSQL's jsonb), and
 * the agent writes it for the model in the order its own service would have.
 */
export function inShapeOf(value: unknown, shape: unknown): unknown {
  if (Array.isArray(value)) return value.map((item) => inShapeOf(item, Array.isArray(shape) ? shape[0] : undefined));
  if (value === null || typeof value !== "object") return value;
  const record = value as Record<string, unknown>;
  const template = shape !== null && typeof shape === "object" && !Array.isArray(shape) ? shape : {};
  const keys = [
    ...Object.keys(template).filter((k) => k in record),
    ...Object.keys(record).filter((k) => !(k in template)),
  ];
  return Object.fromEntries(keys.map((k) => [k, inShapeOf(record[k], (template as Record<string, unknown>)[k])]));
}

/** Keys whose numbers are money: the recorded agent (Python) held them as floats, so `129.0`, not `129`. */
const MONEY = new Set(["price", "shipping", "total_paid", "amount"]);

/** A string as Python's json.dumps writes it (ensure_ascii: every non-ASCII character escaped). */
function pythonString(text: string): string {
  return JSON.stringify(text).replace(/[\u007f-\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`);
}

/**
 * A tool result as the recorded agent wrote it for the model: Python's `json.dumps` (", " and ": " between
 * items, ASCII escapes, money as floats). The recorded conversation holds these texts, so the model calls of a
 * re-run equal the recorded ones only if the agent writes its tools' results the same way.
 */
export function pythonJson(value: unknown, key?: string): string {
  if (value === null || value === undefined) return "null";
  if (typeof value === "boolean") return value ? "true" : "false";
  if (typeof value === "number") {
    if (!Number.isFinite(value)) return value > 0 ? "Infinity" : value < 0 ? "-Infinity" : "NaN";
    return key !== undefined && MONEY.has(key) && Number.isInteger(value) ? `${value}.0` : String(value);
  }
  if (typeof value === "string") return pythonString(value);
  if (Array.isArray(value)) return `[${value.map((v) => pythonJson(v, key)).join(", ")}]`;
  if (typeof value === "object")
    return `{${Object.entries(value)
      .filter(([, v]) => v !== undefined)
      .map(([k, v]) => `${pythonString(k)}: ${pythonJson(v, k)}`)
      .join(", ")}}`;
  return "null"; // a function, a symbol, a bigint: nothing JSON writes
}
