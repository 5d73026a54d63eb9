import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { importDocument, type ImportedSession } from "@/lib/ingest";
import { braintrustTrace } from "./__fixtures__/braintrust";
import { mapBraintrustTrace } from "./braintrust";
import { supportTrace } from "./__fixtures__/langfuse";
import { supportRuns } from "./__fixtures__/langsmith";
import { phoenixTrace } from "./__fixtures__/phoenix";
import { providerInputTokens, withCachedTokens, withCacheWrites } from "./cached-tokens";
import { decodeOtlpJson } from "./otlp/decode";
import { otlpExport, type SpanSpec } from "./otlp/genai-testing";
import { mapOtlpSpans } from "./otlp/map";

// Every source's prompt-cache reads, normalised to one meaning: inputTokens is the whole input,
// cachedInputTokens the part of it read from the cache.

const modelUsages = (sessions: readonly ImportedSession[]) =>
  sessions.flatMap((s) => s.events.filter((e) => e.kind === "model_call").map((e) => e.usage));

function imported(text: string) {
  const result = importDocument(text);
  if (!result.ok) throw new Error(JSON.stringify(result.issues));
  return result;
}

/** The objects in `value` (depth first) for which `match` holds. */
function find(value: unknown, match: (o: Record<string, unknown>) => boolean): Record<string, unknown>[] {
  const found: Record<string, unknown>[] = [];
  const walk = (v: unknown) => {
    if (Array.isArray(v)) v.forEach(walk);
    else if (v && typeof v === "object") {
      const o = v as Record<string, unknown>;
      if (match(o)) found.push(o);
      Object.values(o).forEach(walk);
    }
  };
  walk(value);
  return found;
}

describe("a provider's own usage object", () => {
  it("reads OpenAI's cached tokens as part of input, and adds Anthropic's cache reads and writes to input", () => {
    expect(providerInputTokens({ prompt_tokens: 140, prompt_tokens_details: { cached_tokens: 128 } })).toEqual({
      input: 140,
      cached: 128,
    });
    expect(providerInputTokens({ input_tokens: 300, input_tokens_details: { cached_tokens: 256 } })).toEqual({
      input: 300,
      cached: 256,
    });
    expect(
      providerInputTokens({ input_tokens: 12, cache_read_input_tokens: 2048, cache_creation_input_tokens: 100 }),
    ).toEqual({ input: 2160, cached: 2048, written: 100 });
    // A proxy's OpenAI shape with Anthropic's write count beside it: both inside prompt_tokens.
    expect(
      providerInputTokens({
        prompt_tokens: 1500,
        prompt_tokens_details: { cached_tokens: 1024 },
        cache_creation_input_tokens: 300,
      }),
    ).toEqual({ input: 1500, cached: 1024, written: 300 });
    expect(
      providerInputTokens({ input_tokens: 50, input_token_details: { cache_read: 30, cache_creation: 20 } }),
    ).toEqual({ input: 50, cached: 30, written: 20 });
    expect(providerInputTokens({ input_tokens: 50, input_token_details: { cache_read: 30 } })).toEqual({
      input: 50,
      cached: 30,
    });
    expect(providerInputTokens({ prompt_tokens: 10 })).toEqual({ input: 10 });
    expect(providerInputTokens("usage")).toEqual({});
  });

  it("leaves out a cached count the input cannot hold, saying so", () => {
    const notes: string[] = [];
    expect(withCachedTokens({ inputTokens: 10 }, 11, (m) => notes.push(m))).toEqual({ inputTokens: 10 });
    expect(withCachedTokens({ outputTokens: 3 }, 5, (m) => notes.push(m))).toEqual({ outputTokens: 3 });
    expect(withCachedTokens({ inputTokens: 10 }, 0)).toEqual({ inputTokens: 10 });
    expect(withCachedTokens({ inputTokens: 10 }, 10)).toEqual({ inputTokens: 10, cachedInputTokens: 10 });
    expect(notes).toEqual([
      "11 cached input tokens is more than the 10 input tokens: left out",
      "5 cached input tokens is more than the unrecorded input tokens: left out",
    ]);
  });
});

describe("cache writes beside cache reads", () => {
  it("keeps a write count within what the reads leave of the input, else leaves it out saying so", () => {
    const notes: string[] = [];
    const note = (m: string) => notes.push(m);
    expect(withCacheWrites({ inputTokens: 10, cachedInputTokens: 4 }, 6, note)).toEqual({
      inputTokens: 10,
      cachedInputTokens: 4,
      cacheWriteInputTokens: 6,
    });
    expect(withCacheWrites({ inputTokens: 10, cachedInputTokens: 4 }, 7, note)).toEqual({
      inputTokens: 10,
      cachedInputTokens: 4,
    });
    expect(withCacheWrites({ outputTokens: 1 }, 2, note)).toEqual({ outputTokens: 1 });
    expect(withCacheWrites({ inputTokens: 10 }, 0, note)).toEqual({ inputTokens: 10 });
    expect(notes).toEqual([
      "7 cache-write input tokens is more than the 6 input tokens not read from the cache: left out",
      "2 cache-write input tokens is more than the unrecorded input tokens not read from the cache: left out",
    ]);
  });
});

describe("cache writes in each importer", () => {
  it("Langfuse: input_cache_creation and cache_creation_input_tokens, apart from input", () => {
    const trace = supportTrace("write-1");
    const [first, second] = find(trace, (o) => typeof o.usageDetails === "object" && o.type === "GENERATION");
    first!.usageDetails = { input: 20, cache_read_input_tokens: 90, cache_creation_input_tokens: 10, output: 20 };
    second!.usageDetails = { input: 80, input_cache_creation: 500, output: 30 };
    expect(modelUsages(imported(JSON.stringify(trace)).sessions).slice(0, 2)).toEqual([
      { inputTokens: 120, cachedInputTokens: 90, cacheWriteInputTokens: 10, outputTokens: 20, costUsd: 0.0005 },
      { inputTokens: 580, cacheWriteInputTokens: 500, outputTokens: 30, costUsd: 0.0007 },
    ]);
  });

  it("LangSmith: usage_metadata's input_token_details.cache_creation and Anthropic's own usage", () => {
    const runs = supportRuns("write-2");
    const [meta] = find(runs, (o) => typeof o.usage_metadata === "object");
    (meta!.usage_metadata as Record<string, unknown>).input_token_details = { cache_read: 64, cache_creation: 20 };
    expect(modelUsages(imported(JSON.stringify(runs)).sessions)[0]).toEqual({
      inputTokens: 99,
      cachedInputTokens: 64,
      cacheWriteInputTokens: 20,
      outputTokens: 9,
      costUsd: 0.0003375,
    });
  });

  it("Braintrust: metrics.prompt_cache_creation_tokens inside prompt_tokens", () => {
    const rows = braintrustTrace(1);
    const [a, b] = rows.filter((r) => r.metrics.prompt_tokens !== undefined);
    a!.metrics.prompt_cached_tokens = 50;
    a!.metrics.prompt_cache_creation_tokens = 40;
    b!.metrics.prompt_cache_creation_tokens = 121;
    expect(modelUsages(imported(JSON.stringify(rows)).sessions)).toEqual([
      { inputTokens: 90, cachedInputTokens: 50, cacheWriteInputTokens: 40, outputTokens: 12, costUsd: 0.000345 },
      { inputTokens: 120, outputTokens: 8 },
    ]);
  });

  it("Phoenix (OpenInference): llm.token_count.prompt_details.cache_write", () => {
    const spans = phoenixTrace(1);
    const [flat] = find(spans, (o) => o["llm.token_count.prompt"] === 90);
    flat!["llm.token_count.prompt_details.cache_write"] = 70;
    expect(modelUsages(imported(JSON.stringify(spans)).sessions)[0]).toEqual({
      inputTokens: 90,
      cacheWriteInputTokens: 70,
      outputTokens: 12,
    });
  });

  it("OpenAI chat logs and the Agents SDK: a provider usage's cache_creation_input_tokens", () => {
    const chat = imported(
      JSON.stringify({
        model: "claude-sonnet-4",
        messages: [
          { role: "user", content: "hi" },
          { role: "assistant", content: "hello" },
        ],
        usage: {
          prompt_tokens: 1500,
          completion_tokens: 9,
          prompt_tokens_details: { cached_tokens: 1024 },
          cache_creation_input_tokens: 300,
        },
      }),
    );
    expect(chat.format).toBe("openai-chat");
    expect(modelUsages(chat.sessions)).toEqual([
      { inputTokens: 1500, cachedInputTokens: 1024, cacheWriteInputTokens: 300, outputTokens: 9 },
    ]);
    const body = JSON.parse(
      readFileSync(path.join(process.cwd(), "lib/ingest/__fixtures__/openai-agents-chat.json"), "utf8"),
    ) as unknown;
    const usages = find(body, (o) => o.prompt_tokens === 42);
    usages[0]!.prompt_tokens_details = { cached_tokens: 32, cache_creation: 10 };
    expect(modelUsages(imported(JSON.stringify(body)).sessions)[0]).toEqual({
      inputTokens: 42,
      cachedInputTokens: 32,
      cacheWriteInputTokens: 10,
      outputTokens: 7,
    });
  });

  it("OTel GenAI: gen_ai.usage.cache_creation.input_tokens, inside input", () => {
    const decoded = decodeOtlpJson(
      otlpExport([
        {
          trace: "c1".repeat(16),
          id: "c100000000000001",
          name: "chat",
          start: 10,
          end: 15,
          attrs: {
            "gen_ai.operation.name": "chat",
            "gen_ai.request.model": "claude-sonnet-4",
            "gen_ai.usage.input_tokens": 2000,
            "gen_ai.usage.output_tokens": 40,
            "gen_ai.usage.cache_read.input_tokens": 1536,
            "gen_ai.usage.cache_creation.input_tokens": 400,
          },
        },
      ]),
    );
    if (!decoded.ok) throw new Error(JSON.stringify(decoded.issues));
    const result = mapOtlpSpans(decoded.spans);
    if (!result.ok) throw new Error(JSON.stringify(result));
    expect(modelUsages(result.sessions)).toEqual([
      { inputTokens: 2000, cachedInputTokens: 1536, cacheWriteInputTokens: 400, outputTokens: 40 },
    ]);
  });
});

describe("cached input tokens in each importer", () => {
  it("Langfuse: the usageDetails cache keys are apart from input, and added to it", () => {
    const trace = supportTrace("cache-1");
    const [first, second] = find(trace, (o) => typeof o.usageDetails === "object" && o.type === "GENERATION");
    first!.usageDetails = { input: 20, cache_read_input_tokens: 90, cache_creation_input_tokens: 10, output: 20 };
    second!.usageDetails = { input: 80, input_cached_tokens: 60, input_cache_read: 40, output: 30 };
    expect(modelUsages(imported(JSON.stringify(trace)).sessions)).toEqual([
      { inputTokens: 120, cachedInputTokens: 90, cacheWriteInputTokens: 10, outputTokens: 20, costUsd: 0.0005 },
      { inputTokens: 180, cachedInputTokens: 100, outputTokens: 30, costUsd: 0.0007 },
      { inputTokens: 260, outputTokens: 25, costUsd: 0.0009 },
    ]);
  });

  it("LangSmith: usage_metadata's input_token_details and the provider's own usage, inside input", () => {
    const runs = supportRuns("cache-2");
    const [meta] = find(runs, (o) => typeof o.usage_metadata === "object");
    (meta!.usage_metadata as Record<string, unknown>).input_token_details = { cache_read: 64 };
    const [openAi] = find(runs, (o) => o.prompt_tokens === 140);
    openAi!.prompt_tokens_details = { cached_tokens: 128 };
    expect(modelUsages(imported(JSON.stringify(runs)).sessions)).toEqual([
      { inputTokens: 99, cachedInputTokens: 64, outputTokens: 9, costUsd: 0.0003375 },
      { inputTokens: 140, cachedInputTokens: 128, outputTokens: 20, costUsd: 0.000021 + 0.000012 },
    ]);
  });

  it("Braintrust: metrics.prompt_cached_tokens inside prompt_tokens; more than the prompt is left out", () => {
    const rows = braintrustTrace(1);
    const [a, b] = rows.filter((r) => r.metrics.prompt_tokens !== undefined);
    a!.metrics.prompt_cached_tokens = 80;
    b!.metrics.prompt_cached_tokens = 500;
    const result = imported(JSON.stringify(rows));
    expect(modelUsages(result.sessions)).toEqual([
      { inputTokens: 90, cachedInputTokens: 80, outputTokens: 12, costUsd: 0.000345 },
      { inputTokens: 120, outputTokens: 8 },
    ]);
    const mappedTrace = mapBraintrustTrace(rows.map((value, i) => ({ value, path: [i] })));
    expect(mappedTrace.ok && mappedTrace.warnings.map((w) => w.message)).toEqual([
      `span ${String(b!.span_id)}: 500 cached input tokens is more than the 120 input tokens: left out`,
      // The fixture's own, unchanged.
      `span span-1-5: span type "automation" is not one Branchpoint knows: kept as a step`,
    ]);
  });

  it("Phoenix (OpenInference): llm.token_count.prompt_details.cache_read, flat or nested", () => {
    const spans = phoenixTrace(1);
    const [flat] = find(spans, (o) => o["llm.token_count.prompt"] === 90);
    flat!["llm.token_count.prompt_details.cache_read"] = 50;
    const [nested] = find(spans, (o) => o.prompt === 120 && o.completion === 8);
    nested!.prompt_details = { cache_read: 100 };
    expect(modelUsages(imported(JSON.stringify(spans)).sessions)).toEqual([
      { inputTokens: 90, cachedInputTokens: 50, outputTokens: 12 },
      { inputTokens: 120, cachedInputTokens: 100, outputTokens: 8 },
    ]);
  });

  it("OpenAI Agents SDK: a Chat Completions generation's prompt_tokens_details.cached_tokens", () => {
    const body = JSON.parse(
      readFileSync(path.join(process.cwd(), "lib/ingest/__fixtures__/openai-agents-chat.json"), "utf8"),
    ) as unknown;
    const usages = find(body, (o) => o.prompt_tokens === 42);
    usages[0]!.prompt_tokens_details = { cached_tokens: 32 };
    expect(modelUsages(imported(JSON.stringify(body)).sessions)).toEqual([
      { inputTokens: 42, cachedInputTokens: 32, outputTokens: 7 },
      { inputTokens: 42, outputTokens: 7 },
      { inputTokens: 42, outputTokens: 7 },
    ]);
  });

  it("OTel GenAI, the AI SDK and OpenInference spans: each convention's cache-read attribute", () => {
    const TRACE = "c0".repeat(16);
    const span = (id: number, attrs: SpanSpec["attrs"]): SpanSpec => ({
      trace: TRACE,
      id: `c0000000000000${id.toString(16).padStart(2, "0")}`,
      name: "chat",
      start: id * 10,
      end: id * 10 + 5,
      attrs,
    });
    const decoded = decodeOtlpJson(
      otlpExport([
        span(1, {
          "gen_ai.operation.name": "chat",
          "gen_ai.request.model": "gpt-4.1",
          "gen_ai.usage.input_tokens": 2000,
          "gen_ai.usage.output_tokens": 40,
          "gen_ai.usage.cache_read.input_tokens": 1536,
        }),
        span(2, {
          "ai.operationId": "ai.generateText.doGenerate",
          "ai.model.id": "gpt-4.1",
          "ai.usage.inputTokens": 900,
          "ai.usage.outputTokens": 30,
          "ai.usage.cachedInputTokens": 512,
        }),
        span(3, {
          "openinference.span.kind": "LLM",
          "llm.model_name": "gpt-4.1",
          "llm.token_count.prompt": 700,
          "llm.token_count.completion": 20,
          "llm.token_count.prompt_details.cache_read": 600,
        }),
      ]),
    );
    if (!decoded.ok) throw new Error(JSON.stringify(decoded.issues));
    const result = mapOtlpSpans(decoded.spans);
    if (!result.ok) throw new Error(JSON.stringify(result));
    expect(modelUsages(result.sessions)).toEqual([
      { inputTokens: 2000, cachedInputTokens: 1536, outputTokens: 40 },
      { inputTokens: 900, cachedInputTokens: 512, outputTokens: 30 },
      { inputTokens: 700, cachedInputTokens: 600, outputTokens: 20 },
    ]);
  });
});
