/**
 * The price table Branchpoint ships: public LIST prices in USD per million tokens for common models, as
 * the providers' pricing pages gave them when this file was last written (November 2025), written down
 * by hand and not checked against any invoice. They leave out batch and priority rates, long-context
 * tiers (Gemini 2.5 Pro and Claude Sonnet 4/4.5 charge more above 200k input tokens), regional
 * endpoints and negotiated discounts. An administrator should check them against the providers' pages
 * and add a newer version in Settings → Prices where they differ: the start adds these rows only where
 * the same model, match and date are missing, and never changes a row.
 *
 * `validFrom` is the day from which Branchpoint applies the row, not the provider's price history: the
 * rows start on 2023-01-01 so that recordings older than a model's launch date in this file are still
 * estimated, except o3, whose June 2025 price cut is the one history written here.
 * `cached` is the cached-input (prompt cache read) price where the provider lists one, and `cacheWrite` the
 * prompt cache write price: Anthropic's 5-minute writes, 1.25 times the input price (Claude 3 Haiku's list
 * price is $0.30, not $0.3125; its 1-hour writes cost
 * twice the input price and are not told apart by the importers: they are priced at the 5-minute rate).
 * The importers record both kinds of cached tokens where the source has them; a rule without a rate
 * prices them as input.
 */
import type { PriceMatch } from "./prices";

export type DefaultPrice = {
  model: string;
  match?: PriceMatch;
  validFrom?: string;
  /** USD per million tokens, as decimal text (turned into integer micro-dollars exactly). */
  input: string;
  output: string;
  cached?: string;
  cacheWrite?: string;
};

export const DEFAULT_PRICES_VALID_FROM = "2023-01-01";

export const DEFAULT_PRICES: readonly DefaultPrice[] = [
  // OpenAI
  { model: "gpt-4o", input: "2.50", output: "10.00", cached: "1.25" },
  // The first gpt-4o snapshot kept its launch price.
  { model: "gpt-4o-2024-05-13", match: "exact", input: "5.00", output: "15.00" },
  { model: "gpt-4o-mini", input: "0.15", output: "0.60", cached: "0.075" },
  { model: "gpt-4.1", input: "2.00", output: "8.00", cached: "0.50" },
  { model: "gpt-4.1-mini", input: "0.40", output: "1.60", cached: "0.10" },
  { model: "gpt-4.1-nano", input: "0.10", output: "0.40", cached: "0.025" },
  { model: "gpt-5", input: "1.25", output: "10.00", cached: "0.125" },
  { model: "gpt-5-mini", input: "0.25", output: "2.00", cached: "0.025" },
  { model: "gpt-5-nano", input: "0.05", output: "0.40", cached: "0.005" },
  { model: "gpt-4-turbo", input: "10.00", output: "30.00" },
  { model: "gpt-3.5-turbo", input: "0.50", output: "1.50" },
  { model: "o1", input: "15.00", output: "60.00", cached: "7.50" },
  { model: "o3-mini", input: "1.10", output: "4.40", cached: "0.55" },
  { model: "o3", validFrom: "2025-04-16", input: "10.00", output: "40.00", cached: "2.50" },
  { model: "o3", validFrom: "2025-06-10", input: "2.00", output: "8.00", cached: "0.50" },
  { model: "o3-pro", input: "20.00", output: "80.00" },
  { model: "o4-mini", input: "1.10", output: "4.40", cached: "0.275" },
  // Anthropic (cached: prompt cache reads; cacheWrite: 5-minute cache writes, 1.25 × input)
  { model: "claude-3-haiku", input: "0.25", output: "1.25", cached: "0.03", cacheWrite: "0.30" },
  { model: "claude-3-5-haiku", input: "0.80", output: "4.00", cached: "0.08", cacheWrite: "1.00" },
  { model: "claude-haiku-4-5", input: "1.00", output: "5.00", cached: "0.10", cacheWrite: "1.25" },
  { model: "claude-3-5-sonnet", input: "3.00", output: "15.00", cached: "0.30", cacheWrite: "3.75" },
  { model: "claude-3-7-sonnet", input: "3.00", output: "15.00", cached: "0.30", cacheWrite: "3.75" },
  // Also claude-sonnet-4-5 and the dated claude-sonnet-4-20250514.
  { model: "claude-sonnet-4", input: "3.00", output: "15.00", cached: "0.30", cacheWrite: "3.75" },
  { model: "claude-3-opus", input: "15.00", output: "75.00", cached: "1.50", cacheWrite: "18.75" },
  // Also claude-opus-4-1.
  { model: "claude-opus-4", input: "15.00", output: "75.00", cached: "1.50", cacheWrite: "18.75" },
  { model: "claude-opus-4-5", input: "5.00", output: "25.00", cached: "0.50", cacheWrite: "6.25" },
  // Google (up to 200k input tokens where the price is tiered)
  { model: "gemini-2.0-flash", input: "0.10", output: "0.40" },
  { model: "gemini-2.0-flash-lite", input: "0.075", output: "0.30" },
  { model: "gemini-2.5-flash", input: "0.30", output: "2.50" },
  { model: "gemini-2.5-flash-lite", input: "0.10", output: "0.40" },
  { model: "gemini-2.5-pro", input: "1.25", output: "10.00" },
];
