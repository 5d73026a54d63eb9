/**
 * The price table's rules, pure (no database): which price a model call takes, and what its tokens
 * cost, in integers. lib/db/prices.ts does the same in SQL for many sessions at once; the tests hold
 * the two to the same answers.
 *
 * Units: a price is integer micro-dollars (10^-6 USD) per million tokens, so tokens × price is in
 * 10^-12 USD ("picodollars") and exact. A session's estimate is the sum over its model calls of
 * (inputTokens − cachedInputTokens − cacheWriteInputTokens) × input price + cachedInputTokens × cached input
 * price + cacheWriteInputTokens × cache-write price (each the input price when the rule has none) +
 * outputTokens × output price, rounded ONCE, at the end, to the nearest micro-dollar, halves up (all terms
 * are non-negative). Cached reads and cache writes are both parts of inputTokens: reads are counted first,
 * up to the input, then writes up to what is left, so no more tokens are priced than the input. Dollars appear only at the edges (forms, display).
 */
import { z } from "zod";

export const PRICE_MATCHES = ["exact", "prefix"] as const;
export type PriceMatch = (typeof PRICE_MATCHES)[number];

/** Where a session's cost came from: the source's own figures, the price table, or nowhere. */
export const COST_SOURCES = ["source", "price_table", "none"] as const;
export type CostSource = (typeof COST_SOURCES)[number];

export type PriceRule = {
  /** Lower-case model name or name prefix. */
  model: string;
  match: PriceMatch;
  validFrom: Date;
  /** Micro-dollars per million tokens. */
  inputMicros: number;
  outputMicros: number;
  cachedInputMicros: number | null;
  /** Prompt cache writes' price; null: the input price. */
  cacheWriteInputMicros: number | null;
};

/** A price's highest value: $1,000 per million tokens (about 50 times today's dearest list price). */
export const MAX_PRICE_MICROS = 1_000_000_000;
export const MICROS_PER_USD = 1_000_000;
const PICOS_PER_MICRO = 1_000_000n;

/** The characters after which a prefix rule's name may go on: `gpt-4.1` matches `gpt-4.1-2025-04-14`. */
export const PREFIX_BOUNDARIES = ["-", ":", "@"] as const;

/**
 * A recorded model name as the table compares it: lower case, without a provider path
 * (`openai/gpt-4o` and `models/gemini-2.5-pro` are `gpt-4o` and `gemini-2.5-pro`).
 */
export function normalizeModel(name: string): string {
  const lower = name.trim().toLowerCase();
  return lower.slice(lower.lastIndexOf("/") + 1);
}

/** Whether a rule applies to a (normalized) model name. */
export function ruleMatches(rule: Pick<PriceRule, "model" | "match">, model: string): boolean {
  if (model === rule.model) return true;
  return rule.match === "prefix" && PREFIX_BOUNDARIES.some((b) => model.startsWith(rule.model + b));
}

/**
 * The price of a model at an instant: of the rules valid then (validFrom at or before it) that match
 * the name, the most specific (the longest name; exact before prefix), and of its versions the latest.
 * Null: no rule matches.
 */
export function pickPrice<R extends PriceRule>(rules: readonly R[], modelName: string, at: Date): R | null {
  const model = normalizeModel(modelName);
  let best: R | null = null;
  for (const r of rules) {
    if (r.validFrom.getTime() > at.getTime() || !ruleMatches(r, model)) continue;
    if (!best || compareRules(r, best) < 0) best = r;
  }
  return best;
}

/** Negative when `a` goes before `b`: longer name, then exact, then later validFrom. */
function compareRules(a: PriceRule, b: PriceRule): number {
  if (a.model.length !== b.model.length) return b.model.length - a.model.length;
  if (a.match !== b.match) return a.match === "exact" ? -1 : 1;
  return b.validFrom.getTime() - a.validFrom.getTime();
}

export type CallTokens = {
  inputTokens: number;
  cachedInputTokens?: number;
  cacheWriteInputTokens?: number;
  outputTokens: number;
};

/**
 * A call's cached reads and cache writes as priced: the reads up to its input, then the writes up to what
 * the reads leave (the two are parts of the input; together never more than it).
 */
export function cacheParts(t: Omit<CallTokens, "outputTokens">): { cached: number; written: number } {
  const cached = Math.min(t.cachedInputTokens ?? 0, t.inputTokens);
  return { cached, written: Math.min(t.cacheWriteInputTokens ?? 0, t.inputTokens - cached) };
}

/**
 * One model call's cost in 10^-12 USD, exact. Its cached reads take the rule's cached price and its cache
 * writes the rule's cache-write price, each the input price when the rule has none (cacheParts: never more
 * of them than the input).
 */
export function callPicos(tokens: CallTokens, price: PriceRule): bigint {
  const parts = cacheParts(tokens);
  const cached = BigInt(parts.cached);
  const written = BigInt(parts.written);
  return (
    (BigInt(tokens.inputTokens) - cached - written) * BigInt(price.inputMicros) +
    cached * BigInt(price.cachedInputMicros ?? price.inputMicros) +
    written * BigInt(price.cacheWriteInputMicros ?? price.inputMicros) +
    BigInt(tokens.outputTokens) * BigInt(price.outputMicros)
  );
}

/** 10^-12 USD to the nearest micro-dollar, halves up (the one rounding of an estimate). */
export function roundToMicros(picos: bigint): bigint {
  return (picos + PICOS_PER_MICRO / 2n) / PICOS_PER_MICRO;
}

export type ModelCallUsage = CallTokens & { model: string };

/**
 * A session's estimate from its model calls' tokens: micro-dollars, and the models that had tokens but
 * no price (their tokens are left out). `micros` is null when no call was priced.
 */
export function estimateMicros(
  calls: readonly ModelCallUsage[],
  rules: readonly PriceRule[],
  sessionStart: Date,
): { micros: bigint | null; unpriced: string[] } {
  let picos = 0n;
  let priced = false;
  const unpriced = new Set<string>();
  for (const c of calls) {
    if (c.inputTokens === 0 && c.outputTokens === 0) continue;
    const price = pickPrice(rules, c.model, sessionStart);
    if (!price) {
      unpriced.add(normalizeModel(c.model));
      continue;
    }
    priced = true;
    picos += callPicos(c, price);
  }
  return { micros: priced ? roundToMicros(picos) : null, unpriced: [...unpriced].sort() };
}

/** Micro-dollars as USD for display: `$2.50`, `$0.075`, `$0.000125` (no float arithmetic). */
export function formatMicrosUsd(micros: number | bigint): string {
  const n = BigInt(micros);
  const sign = n < 0n ? "-" : "";
  const abs = n < 0n ? -n : n;
  const whole = abs / 1_000_000n;
  let frac = (abs % 1_000_000n).toString().padStart(6, "0").replace(/0+$/, "");
  if (frac.length < 2) frac = frac.padEnd(2, "0");
  return `${sign}$${whole.toLocaleString("en-US")}.${frac}`;
}

/**
 * A price typed in dollars (`2.5`, `0.075`, `$1,000`) as integer micro-dollars, exactly: the text is
 * read as a decimal, never through a float. An error message when it is not a price.
 */
export function parseUsdToMicros(text: string): { ok: true; micros: number } | { ok: false; message: string } {
  const t = text.trim().replace(/^\$/, "").replaceAll(",", "");
  if (t === "") return { ok: false, message: "Give a price in dollars per million tokens, such as 2.50." };
  if (t.startsWith("-")) return { ok: false, message: "A price cannot be negative." };
  const m = /^(\d{1,7})(?:\.(\d*))?$|^\.(\d+)$/.exec(t);
  if (!m) return { ok: false, message: `"${text.slice(0, 40)}" is not an amount in dollars, such as 2.50.` };
  const whole = m[1] ?? "0";
  const frac = m[2] ?? m[3] ?? "";
  if (frac.length > 6 && /[1-9]/.test(frac.slice(6)))
    return { ok: false, message: "At most 6 decimal places: a price is counted in micro-dollars." };
  const micros = Number(whole) * MICROS_PER_USD + Number(frac.slice(0, 6).padEnd(6, "0"));
  if (micros > MAX_PRICE_MICROS) return { ok: false, message: "At most $1,000 per million tokens." };
  return { ok: true, micros };
}

/** A price in integer micro-dollars per million tokens: one message, the first problem. */
const micros = (what: string) =>
  z.number({ error: `${what} must be a number of micro-dollars per million tokens.` }).superRefine((v, ctx) => {
    const problem =
      v < 0
        ? `${what} cannot be negative.`
        : v > MAX_PRICE_MICROS
          ? `${what} is at most ${MAX_PRICE_MICROS} micro-dollars ($1,000 per million tokens).`
          : !Number.isInteger(v)
            ? `${what} must be a whole number of micro-dollars (2.50 USD is 2500000).`
            : null;
    if (problem) ctx.addIssue({ code: "custom", message: problem });
  });

/** A date (`2025-06-10`, midnight UTC) or an instant with its offset, from 2000 to 2100. */
const validFrom = z
  .string({ error: "validFrom must be a date such as 2025-06-10." })
  .trim()
  .transform((v, ctx) => {
    const iso = /^\d{4}-\d{2}-\d{2}$/.test(v) ? `${v}T00:00:00Z` : v;
    const ok = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,3})?)?(Z|[+-]\d{2}:\d{2})$/.test(iso);
    const d = new Date(iso);
    if (!ok || Number.isNaN(d.getTime()) || (iso.length === 20 && d.toISOString().slice(0, 10) !== v.slice(0, 10))) {
      ctx.addIssue({ code: "custom", message: "validFrom must be a date such as 2025-06-10 (or an ISO instant)." });
      return z.NEVER;
    }
    if (d.getUTCFullYear() < 2000 || d.getUTCFullYear() > 2100) {
      ctx.addIssue({ code: "custom", message: "validFrom must be between 2000 and 2100." });
      return z.NEVER;
    }
    return d;
  });

/** A new version of a price, as the API and the settings form send it. */
export const PriceInput = z
  .object({
    model: z
      .string({ error: "model must be a model name such as gpt-4.1." })
      .trim()
      .toLowerCase()
      .min(1, { error: "Name the model, such as gpt-4.1." })
      .max(100, { error: "A model name is at most 100 characters." })
      .regex(/^[a-z0-9][a-z0-9.:@+-]*$/, {
        error:
          "A model name has letters, digits and . : @ + - only (no provider path: openai/gpt-4o is written gpt-4o).",
      }),
    match: z.enum(PRICE_MATCHES, { error: "match must be exact or prefix." }).default("prefix"),
    validFrom,
    inputMicros: micros("inputMicros"),
    outputMicros: micros("outputMicros"),
    cachedInputMicros: micros("cachedInputMicros").nullable().default(null),
    cacheWriteInputMicros: micros("cacheWriteInputMicros").nullable().default(null),
  })
  .strict();
export type PriceInput = z.output<typeof PriceInput>;

export type CostUsage = {
  /** Whether any step carries the source's own cost (then the session's cost is the source's). */
  sourced: boolean;
  /**
   * The model calls' tokens per recorded model name (as recorded: the table's rules normalize it). Each call's
   * cached reads and cache writes are counted as cacheParts counts them (together up to its input tokens).
   */
  calls: ({ model: string } & Required<CallTokens>)[];
};

/** What a session's cost is worked out from, one step at a time, for a writer that has every step in hand. */
export function costUsageTracker() {
  let sourced = false;
  const byName = new Map<string, Required<CallTokens>>();
  return {
    add(e: {
      kind: string;
      name: string;
      usage: {
        inputTokens?: number;
        cachedInputTokens?: number;
        cacheWriteInputTokens?: number;
        outputTokens?: number;
        costUsd?: number;
      } | null;
    }) {
      if (e.usage?.costUsd !== undefined) sourced = true;
      const input = e.usage?.inputTokens ?? 0;
      const output = e.usage?.outputTokens ?? 0;
      if (e.kind !== "model_call" || (input === 0 && output === 0)) return;
      const t = byName.get(e.name) ?? {
        inputTokens: 0,
        cachedInputTokens: 0,
        cacheWriteInputTokens: 0,
        outputTokens: 0,
      };
      const parts = cacheParts({ ...e.usage, inputTokens: input });
      t.inputTokens += input;
      t.cachedInputTokens += parts.cached;
      t.cacheWriteInputTokens += parts.written;
      t.outputTokens += output;
      byName.set(e.name, t);
    },
    result(): CostUsage {
      return { sourced, calls: [...byName].map(([model, t]) => ({ model, ...t })) };
    },
  };
}

export function costUsage(events: readonly Parameters<ReturnType<typeof costUsageTracker>["add"]>[0][]): CostUsage {
  const t = costUsageTracker();
  for (const e of events) t.add(e);
  return t.result();
}
