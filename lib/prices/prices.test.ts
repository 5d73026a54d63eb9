import { describe, expect, it } from "vitest";
import { DEFAULT_PRICES } from "./defaults";
import {
  cacheParts,
  callPicos,
  costUsage,
  estimateMicros,
  formatMicrosUsd,
  normalizeModel,
  parseUsdToMicros,
  pickPrice,
  PriceInput,
  roundToMicros,
  type PriceRule,
} from "./prices";

const rule = (model: string, validFrom: string, input: number, output: number, match: "exact" | "prefix" = "prefix") =>
  ({
    model,
    match,
    validFrom: new Date(validFrom),
    inputMicros: input,
    outputMicros: output,
    cachedInputMicros: null,
    cacheWriteInputMicros: null,
  }) satisfies PriceRule;

const RULES = [
  rule("gpt-4.1", "2023-01-01", 2_000_000, 8_000_000),
  rule("gpt-4.1-mini", "2023-01-01", 400_000, 1_600_000),
  rule("gpt-4o", "2023-01-01", 2_500_000, 10_000_000),
  rule("gpt-4o-2024-05-13", "2023-01-01", 5_000_000, 15_000_000, "exact"),
  rule("o3", "2025-04-16", 10_000_000, 40_000_000),
  rule("o3", "2025-06-10", 2_000_000, 8_000_000),
  rule("o3-pro", "2023-01-01", 20_000_000, 80_000_000, "exact"),
];
const at = new Date("2025-07-01T00:00:00Z");
const picked = (name: string, when = at) => {
  const p = pickPrice(RULES, name, when);
  return p && `${p.model}/${p.match}@${p.validFrom.toISOString().slice(0, 10)}`;
};

describe("which price a model call takes", () => {
  it("matches dated variants by prefix at a boundary, the longest rule winning, an exact rule before a prefix", () => {
    expect([
      picked("gpt-4.1"),
      picked("gpt-4.1-2025-04-14"),
      picked("gpt-4.1-mini-2025-04-14"),
      picked("GPT-4.1-Mini"),
      picked("openai/gpt-4o"),
      picked("gpt-4o-2024-05-13"),
      picked("gpt-4o-2024-08-06"),
      picked("gpt-4o@2024"),
      picked("gpt-4o:ft-acme"),
      // Not at a boundary: gpt-4.10 is not gpt-4.1, gpt-4oo not gpt-4o.
      picked("gpt-4.10"),
      picked("gpt-4oo"),
      picked("o3-pro"),
      // o3-pro's rule is exact: a dated o3-pro falls back to o3's prefix rule.
      picked("o3-pro-2025-06-10"),
      picked("claude-sonnet-4"),
      picked(""),
    ]).toEqual([
      "gpt-4.1/prefix@2023-01-01",
      "gpt-4.1/prefix@2023-01-01",
      "gpt-4.1-mini/prefix@2023-01-01",
      "gpt-4.1-mini/prefix@2023-01-01",
      "gpt-4o/prefix@2023-01-01",
      "gpt-4o-2024-05-13/exact@2023-01-01",
      "gpt-4o/prefix@2023-01-01",
      "gpt-4o/prefix@2023-01-01",
      "gpt-4o/prefix@2023-01-01",
      null,
      null,
      "o3-pro/exact@2023-01-01",
      "o3/prefix@2025-06-10",
      null,
      null,
    ]);
  });

  it("takes the latest version valid at the session's start: on or after validFrom, never before", () => {
    expect([
      picked("o3", new Date("2025-04-15T23:59:59.999Z")),
      picked("o3", new Date("2025-04-16T00:00:00Z")),
      picked("o3", new Date("2025-06-09T23:59:59.999Z")),
      picked("o3", new Date("2025-06-10T00:00:00Z")),
      picked("o3-2025-04-16", new Date("2026-01-01T00:00:00Z")),
    ]).toEqual([null, "o3/prefix@2025-04-16", "o3/prefix@2025-04-16", "o3/prefix@2025-06-10", "o3/prefix@2025-06-10"]);
  });

  it("reads names the way the database does: lower case, no provider path", () => {
    expect(["OpenAI/GPT-4o", " models/gemini-2.5-pro ", "gpt-4.1"].map(normalizeModel)).toEqual([
      "gpt-4o",
      "gemini-2.5-pro",
      "gpt-4.1",
    ]);
  });
});

describe("the arithmetic, in integers", () => {
  it("prices a call exactly in 10^-12 USD and rounds once to the nearest micro-dollar, halves up", () => {
    // 612 × $2.00/M + 58 × $8.00/M = $0.001224 + $0.000464 = $0.001688
    expect(callPicos({ inputTokens: 612, outputTokens: 58 }, RULES[0]!)).toBe(1_688_000_000n);
    expect([0n, 499_999n, 500_000n, 1_499_999n, 1_500_000n, 2_500_000n].map(roundToMicros)).toEqual([
      0n,
      0n,
      1n,
      1n,
      2n,
      3n,
    ]);
  });

  it("sums a session's calls before rounding, once, halves up", () => {
    // gpt-4.1-mini input at $0.40/M: 1 token is 0.4 micro-dollars. Three calls: 1.2 → 1 (each rounded alone: 0).
    const calls = [1, 1, 1].map(() => ({ model: "gpt-4.1-mini", inputTokens: 1, outputTokens: 0 }));
    expect(estimateMicros(calls, RULES, at)).toEqual({ micros: 1n, unpriced: [] });
    // 5 tokens: 2.0 exactly.
    const five = [{ model: "gpt-4.1-mini-x", inputTokens: 5, outputTokens: 0 }];
    expect(estimateMicros(five, RULES, at)).toEqual({ micros: 2n, unpriced: [] });
    // 1 token at $2.50/M is 2.5 micro-dollars: 3.
    expect(
      estimateMicros(
        [{ model: "gpt-4o", inputTokens: 1, outputTokens: 0 }],
        [rule("gpt-4o", "2023-01-01", 2_500_000, 0)],
        at,
      ),
    ).toEqual({ micros: 3n, unpriced: [] });
  });

  it("leaves out models without a price and says which; no priced call is no estimate", () => {
    const calls = [
      { model: "gpt-4.1-2025-04-14", inputTokens: 1_000_000, outputTokens: 250_000 },
      { model: "acme-llm-7b", inputTokens: 5_000, outputTokens: 5_000 },
      { model: "Acme-LLM-7B", inputTokens: 1, outputTokens: 0 },
      { model: "mystery", inputTokens: 0, outputTokens: 0 },
    ];
    // $2.00 + 0.25 × $8.00 = $4.00
    expect(estimateMicros(calls, RULES, at)).toEqual({ micros: 4_000_000n, unpriced: ["acme-llm-7b"] });
    expect(estimateMicros(calls.slice(1), RULES, at)).toEqual({ micros: null, unpriced: ["acme-llm-7b"] });
  });

  it("prices cached input tokens at the cached rate, else at the input rate, never more of them than the input", () => {
    const cachedRule = { ...rule("gpt-4.1", "2023-01-01", 2_000_000, 8_000_000), cachedInputMicros: 500_000 };
    // 1000 input of which 800 cached, 50 output: 200 × $2.00 + 800 × $0.50 + 50 × $8.00 per M = 400 + 400 + 400 µ$.
    const tokens = { inputTokens: 1000, cachedInputTokens: 800, outputTokens: 50 };
    expect(callPicos(tokens, cachedRule)).toBe(1_200_000_000n);
    // No cached rate: all 1000 input tokens at $2.00: 2000 + 400 µ$.
    expect(callPicos(tokens, RULES[0]!)).toBe(2_400_000_000n);
    // A cached count above the input is held to the input: all 1000 at the cached rate.
    expect(callPicos({ inputTokens: 1000, cachedInputTokens: 5000, outputTokens: 0 }, cachedRule)).toBe(500_000_000n);
    expect(estimateMicros([{ model: "gpt-4.1-x", ...tokens }], [cachedRule], at)).toEqual({
      micros: 1200n,
      unpriced: [],
    });
    // The writer's sums count each call's cached tokens up to its own input.
    expect(
      costUsage([
        { kind: "model_call", name: "gpt-4.1", usage: { inputTokens: 100, cachedInputTokens: 60, outputTokens: 1 } },
        { kind: "model_call", name: "gpt-4.1", usage: { inputTokens: 10, cachedInputTokens: 99 } },
      ]).calls,
    ).toEqual([
      { model: "gpt-4.1", inputTokens: 110, cachedInputTokens: 70, cacheWriteInputTokens: 0, outputTokens: 1 },
    ]);
  });

  it("prices cache writes at the cache-write rate, else at the input rate, reads first, never more than the input", () => {
    // claude-sonnet-4's list prices: $3.00 input, $0.30 cache reads, $3.75 cache writes, $15.00 output.
    const sonnet = {
      ...rule("claude-sonnet-4", "2023-01-01", 3_000_000, 15_000_000),
      cachedInputMicros: 300_000,
      cacheWriteInputMicros: 3_750_000,
    };
    // Anthropic's usage {input_tokens: 100, cache_read_input_tokens: 2000, cache_creation_input_tokens: 1000,
    // output_tokens: 50} as imported: 3100 input of which 2000 read and 1000 written.
    // 100 × 3.00 + 2000 × 0.30 + 1000 × 3.75 + 50 × 15.00 per M = 300 + 600 + 3750 + 750 µ$ = 5400 µ$.
    const tokens = { inputTokens: 3100, cachedInputTokens: 2000, cacheWriteInputTokens: 1000, outputTokens: 50 };
    expect(callPicos(tokens, sonnet)).toBe(5_400_000_000n);
    // No cache-write rate: the 1000 written at $3.00: 300 + 600 + 3000 + 750 µ$.
    expect(callPicos(tokens, { ...sonnet, cacheWriteInputMicros: null })).toBe(4_650_000_000n);
    // Reads are counted first, up to the input; writes up to what the reads leave: 2000 read, 1000 of the
    // 5000 written (600 + 3750 µ$), nothing at the input rate.
    expect(
      callPicos({ inputTokens: 3000, cachedInputTokens: 2000, cacheWriteInputTokens: 5000, outputTokens: 0 }, sonnet),
    ).toBe(4_350_000_000n);
    expect(
      callPicos({ inputTokens: 10, cachedInputTokens: 50, cacheWriteInputTokens: 50, outputTokens: 0 }, sonnet),
    ).toBe(3_000_000n);
    expect(cacheParts({ inputTokens: 10, cachedInputTokens: 4, cacheWriteInputTokens: 9 })).toEqual({
      cached: 4,
      written: 6,
    });
    // 7 tokens written at $3.75/M: 26.25 µ$, and 1 at $0.30/M: 0.3 µ$; 26.55 → 27 once, at the end.
    expect(
      estimateMicros(
        [
          {
            model: "claude-sonnet-4-5",
            inputTokens: 8,
            cachedInputTokens: 1,
            cacheWriteInputTokens: 7,
            outputTokens: 0,
          },
        ],
        [sonnet],
        at,
      ),
    ).toEqual({ micros: 27n, unpriced: [] });
    expect(
      costUsage([
        {
          kind: "model_call",
          name: "claude-sonnet-4",
          usage: { inputTokens: 100, cachedInputTokens: 60, cacheWriteInputTokens: 30 },
        },
        {
          kind: "model_call",
          name: "claude-sonnet-4",
          usage: { inputTokens: 10, cachedInputTokens: 4, cacheWriteInputTokens: 99 },
        },
      ]).calls,
    ).toEqual([
      { model: "claude-sonnet-4", inputTokens: 110, cachedInputTokens: 64, cacheWriteInputTokens: 36, outputTokens: 0 },
    ]);
  });

  it("stays exact where floats would not: 2^31-1 tokens at $1,000 per million", () => {
    const big = rule("big", "2023-01-01", 1_000_000_000, 1_000_000_000);
    const calls = [{ model: "big", inputTokens: 2_147_483_647, outputTokens: 2_147_483_647 }];
    // 2 × 2147483647 × 10^9 picos = 4294967294 × 10^3 micro-dollars.
    expect(estimateMicros(calls, [big], at)).toEqual({ micros: 4_294_967_294_000n, unpriced: [] });
  });
});

describe("dollars at the edges", () => {
  it("reads typed dollars as exact micro-dollars and refuses what is not a price", () => {
    expect(["2.50", "$1,000", "0.075", ".5", "3", "0.000001", "1.2500000"].map(parseUsdToMicros)).toEqual(
      [2_500_000, 1_000_000_000, 75_000, 500_000, 3_000_000, 1, 1_250_000].map((micros) => ({ ok: true, micros })),
    );
    expect(["", "-1", "0.0000001", "1e3", "1000.01", "abc", "__proto__"].map(parseUsdToMicros)).toEqual([
      { ok: false, message: "Give a price in dollars per million tokens, such as 2.50." },
      { ok: false, message: "A price cannot be negative." },
      { ok: false, message: "At most 6 decimal places: a price is counted in micro-dollars." },
      { ok: false, message: '"1e3" is not an amount in dollars, such as 2.50.' },
      { ok: false, message: "At most $1,000 per million tokens." },
      { ok: false, message: '"abc" is not an amount in dollars, such as 2.50.' },
      { ok: false, message: '"__proto__" is not an amount in dollars, such as 2.50.' },
    ]);
  });

  it("shows micro-dollars as dollars without float arithmetic", () => {
    expect([2_500_000, 75_000, 125, 0, 1_000_000_000, 4_294_967_294_000n].map(formatMicrosUsd)).toEqual([
      "$2.50",
      "$0.075",
      "$0.000125",
      "$0.00",
      "$1,000.00",
      "$4,294,967.294",
    ]);
  });

  it("accepts a new version with exact fields and defaults, and refuses the rest naming each field", () => {
    expect(
      PriceInput.parse({
        model: " GPT-4.1 ",
        validFrom: "2025-06-10",
        inputMicros: 2_000_000,
        outputMicros: 8_000_000,
      }),
    ).toEqual({
      model: "gpt-4.1",
      match: "prefix",
      validFrom: new Date("2025-06-10T00:00:00Z"),
      inputMicros: 2_000_000,
      outputMicros: 8_000_000,
      cachedInputMicros: null,
      cacheWriteInputMicros: null,
    });
    const problems = PriceInput.safeParse({
      model: "openai/gpt-4o",
      match: "glob",
      validFrom: "2025-02-30",
      inputMicros: -1,
      outputMicros: 1e300,
      cachedInputMicros: 0.5,
      cacheWriteInputMicros: "3.75",
    });
    expect(problems.error?.issues.map((i) => [i.path.join("."), i.message])).toEqual([
      [
        "model",
        "A model name has letters, digits and . : @ + - only (no provider path: openai/gpt-4o is written gpt-4o).",
      ],
      ["match", "match must be exact or prefix."],
      ["validFrom", "validFrom must be a date such as 2025-06-10 (or an ISO instant)."],
      ["inputMicros", "inputMicros cannot be negative."],
      ["outputMicros", "outputMicros is at most 1000000000 micro-dollars ($1,000 per million tokens)."],
      ["cachedInputMicros", "cachedInputMicros must be a whole number of micro-dollars (2.50 USD is 2500000)."],
      ["cacheWriteInputMicros", "cacheWriteInputMicros must be a number of micro-dollars per million tokens."],
    ]);
  });

  it("ships defaults that all parse, with no rule twice", () => {
    const keys = DEFAULT_PRICES.map((d) => `${d.model}/${d.match ?? "prefix"}@${d.validFrom ?? ""}`);
    expect(new Set(keys).size).toBe(keys.length);
    for (const d of DEFAULT_PRICES)
      for (const v of [d.input, d.output, d.cached ?? "0", d.cacheWrite ?? "0"])
        expect([d.model, parseUsdToMicros(v).ok]).toEqual([d.model, true]);
  });

  it("ships a cache-write rate for every Anthropic model: 1.25 × input (Claude 3 Haiku lists $0.30), none elsewhere", () => {
    const micros = (usd: string | undefined) => {
      const parsed = usd === undefined ? null : parseUsdToMicros(usd);
      return parsed?.ok ? parsed.micros : null;
    };
    const rates = DEFAULT_PRICES.map((d) => [d.model, micros(d.cacheWrite), micros(d.input)] as const);
    expect(rates.filter(([m]) => !m.startsWith("claude")).every(([, w]) => w === null)).toBe(true);
    expect(rates.filter(([m]) => m.startsWith("claude")).map(([m, w, i]) => [m, w, (i! * 5) / 4])).toEqual([
      ["claude-3-haiku", 300_000, 312_500],
      ["claude-3-5-haiku", 1_000_000, 1_000_000],
      ["claude-haiku-4-5", 1_250_000, 1_250_000],
      ["claude-3-5-sonnet", 3_750_000, 3_750_000],
      ["claude-3-7-sonnet", 3_750_000, 3_750_000],
      ["claude-sonnet-4", 3_750_000, 3_750_000],
      ["claude-3-opus", 18_750_000, 18_750_000],
      ["claude-opus-4", 18_750_000, 18_750_000],
      ["claude-opus-4-5", 6_250_000, 6_250_000],
    ]);
  });
});

describe("what a writer passes for a session's cost", () => {
  it("sums model calls' tokens per recorded name, and notes any step with the source's own cost", () => {
    const usage = (u: object | null) => u as { inputTokens?: number; outputTokens?: number; costUsd?: number } | null;
    expect(
      costUsage([
        { kind: "model_call", name: "gpt-4o", usage: usage({ inputTokens: 10, outputTokens: 2 }) },
        { kind: "tool_call", name: "lookup", usage: usage({ inputTokens: 99 }) },
        { kind: "model_call", name: "gpt-4o", usage: usage({ inputTokens: 5 }) },
        { kind: "model_call", name: "OpenAI/GPT-4o", usage: usage({ outputTokens: 1 }) },
        { kind: "model_call", name: "idle", usage: usage({ inputTokens: 0, outputTokens: 0 }) },
        { kind: "model_call", name: "none", usage: null },
      ]),
    ).toEqual({
      sourced: false,
      calls: [
        { model: "gpt-4o", inputTokens: 15, cachedInputTokens: 0, cacheWriteInputTokens: 0, outputTokens: 2 },
        { model: "OpenAI/GPT-4o", inputTokens: 0, cachedInputTokens: 0, cacheWriteInputTokens: 0, outputTokens: 1 },
      ],
    });
    // A cost of 0 is a cost the source gave.
    expect(costUsage([{ kind: "tool_call", name: "t", usage: usage({ costUsd: 0 }) }]).sourced).toBe(true);
  });
});
