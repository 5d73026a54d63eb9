/**
 * Prompt-cache reads and writes, normalised to Usage's one meaning: `inputTokens` counts every input token,
 * `cachedInputTokens` is the part of it read from a cache and `cacheWriteInputTokens` the part written to
 * one (the two apart: together at most the input). Sources differ:
 * - OpenAI (`prompt_tokens_details.cached_tokens`, Responses' `input_tokens_details.cached_tokens`),
 *   LangChain's `usage_metadata.input_token_details.cache_read` / `cache_creation`, OTel GenAI's
 *   `gen_ai.usage.cache_read.input_tokens` / `cache_creation.input_tokens`, OpenInference and Braintrust
 *   (`prompt_cached_tokens` / `prompt_cache_creation_tokens`) count cache reads and writes inside input;
 * - Anthropic (`cache_read_input_tokens`, `cache_creation_input_tokens`) and Langfuse's `usageDetails` cache
 *   keys count them apart: they are added to input here.
 */
import type { Usage } from "@/lib/replay";
import { isObject } from "./otlp/attributes";

const whole = (v: unknown): number | undefined =>
  typeof v === "number" && Number.isInteger(v) && v >= 0 && v <= Number.MAX_SAFE_INTEGER ? v : undefined;

/**
 * The input tokens and their cached part in a provider's own usage object (OpenAI Chat Completions or
 * Responses, Anthropic Messages, LangChain's usage_metadata); undefined where the object has none.
 */
export function providerInputTokens(usage: unknown): { input?: number; cached?: number; written?: number } {
  if (!isObject(usage)) return {};
  const details = [usage.prompt_tokens_details, usage.input_tokens_details, usage.input_token_details].find(isObject);
  const included = details ? (whole(details.cached_tokens) ?? whole(details.cache_read)) : undefined;
  const includedWrites = details ? whole(details.cache_creation) : undefined;
  const read = whole(usage.cache_read_input_tokens);
  const written = whole(usage.cache_creation_input_tokens);
  const base = whole(usage.input_tokens) ?? whole(usage.prompt_tokens);
  // Anthropic's input_tokens leave out the cache's reads and writes: the whole input is their sum.
  const apart = included === undefined && (read !== undefined || written !== undefined);
  const input = base === undefined ? undefined : apart ? base + (read ?? 0) + (written ?? 0) : base;
  const cached = included ?? read;
  // Beside an OpenAI-shaped count (a proxy's), Anthropic's write count is a part of prompt_tokens too.
  const writes = includedWrites ?? written;
  return {
    ...(input !== undefined ? { input } : {}),
    ...(cached !== undefined ? { cached } : {}),
    ...(writes !== undefined ? { written: writes } : {}),
  };
}

/**
 * `usage` with its cached input tokens, when they are a positive part of its input tokens. A count the
 * input cannot hold (more than the input, or no input count) is left out with a note.
 */
export function withCachedTokens(
  usage: Usage | null,
  cached: number | undefined,
  note?: (message: string) => void,
): Usage | null {
  if (cached === undefined || cached === 0) return usage;
  if (usage?.inputTokens === undefined || cached > usage.inputTokens) {
    note?.(
      `${cached} cached input tokens is more than the ${usage?.inputTokens ?? "unrecorded"} input tokens: left out`,
    );
    return usage;
  }
  return { ...usage, cachedInputTokens: cached };
}

/**
 * `usage` with its cache-write tokens, when they are a positive part of what its cached reads leave of its
 * input. A count the input cannot hold is left out with a note.
 */
export function withCacheWrites(
  usage: Usage | null,
  written: number | undefined,
  note?: (message: string) => void,
): Usage | null {
  if (written === undefined || written === 0) return usage;
  const room = usage?.inputTokens === undefined ? undefined : usage.inputTokens - (usage.cachedInputTokens ?? 0);
  if (room === undefined || written > room) {
    note?.(
      `${written} cache-write input tokens is more than the ${room ?? "unrecorded"} input tokens not read from the cache: left out`,
    );
    return usage;
  }
  return { ...usage, cacheWriteInputTokens: written };
}
