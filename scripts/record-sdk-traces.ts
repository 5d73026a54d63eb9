/**
 * Records what real agent SDKs emit, for the OTLP and OpenAI Agents importers.
 *
 *   npx tsx scripts/record-sdk-traces.ts            # writes the fixtures (default)
 *   npx tsx scripts/record-sdk-traces.ts --otlp-json http://127.0.0.1:3000/v1/traces \
 *        --otlp-proto http://127.0.0.1:3000/v1/traces --agents http://127.0.0.1:3000/api/...
 *                                                    # sends the same traces to a live app instead
 *   Live options: --api-key KEY (sent as x-api-key to the JSON exporter, as a
 *   Bearer token by the protobuf and Agents exporters), --tag TEXT (appended to
 *   session and group ids, so repeated runs make new sessions), --summary
 *   (prints one `SUMMARY {json}` line: each run's final text and trace ids).
 *
 * A scripted OpenAI-compatible server on 127.0.0.1 plays the model (Chat
 * Completions, streaming and not, and the Responses API), so every run is the
 * same conversation: the model asks for `lookup_order` and `get_time`, then for
 * `get_time` again (identical arguments, a different result) and
 * `refund_payment` (whose tool throws), then answers in text.
 *
 * The SDKs export through their real exporters (OTLP/HTTP JSON, OTLP/HTTP
 * protobuf with gzip, the Agents SDK's traces-ingest exporter) to a local
 * capture server, whose request bodies are saved byte for byte.
 *
 * The instrumentations of the `openai` client (OpenTelemetry's, OpenInference's) are recorded
 * against the same model by scripts/record-instrumentations.ts.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

import { trace } from "@opentelemetry/api";
import { resourceFromAttributes } from "@opentelemetry/resources";
import { BatchSpanProcessor } from "@opentelemetry/sdk-trace-base";
import { NodeTracerProvider } from "@opentelemetry/sdk-trace-node";
import { OTLPTraceExporter as OTLPJsonExporter } from "@opentelemetry/exporter-trace-otlp-http";
import { OTLPTraceExporter as OTLPProtoExporter } from "@opentelemetry/exporter-trace-otlp-proto";

import * as ai7 from "ai";
import { OpenTelemetry, LegacyOpenTelemetry } from "@ai-sdk/otel";
import { createOpenAICompatible } from "@ai-sdk/openai-compatible";
import * as ai6 from "ai-v6";
import { createOpenAICompatible as createOpenAICompatibleV2 } from "openai-compatible-v2";

import * as agents from "@openai/agents";
import OpenAI from "openai";
import { z } from "zod";

import { makeTools, MODEL, startScriptedServer, TOOL_SCHEMAS, type Captured } from "./sdk-traces-model";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const OTLP_FIXTURES = path.join(ROOT, "lib/ingest/otlp/__fixtures__");
const AGENTS_FIXTURES = path.join(ROOT, "lib/ingest/__fixtures__");

/** A promise of `f()` that rejects when `f` throws, as an async function's would. */
function later<T>(f: () => T): Promise<T> {
  return new Promise((resolve) => resolve(f()));
}

// ---------------------------------------------------------------------------
// The AI SDK runs.

const PROMPT = "Refund order 4821 and tell me what time it is.";
const SYSTEM = "You are a support agent. Use the tools.";

function ai7Tools() {
  const impl = makeTools();
  return {
    lookup_order: ai7.tool({
      description: TOOL_SCHEMAS.lookup_order.description,
      inputSchema: ai7.jsonSchema<{ order_id: string }>(TOOL_SCHEMAS.lookup_order.parameters),
      execute: (args) => later(() => impl.lookup_order(args)),
    }),
    get_time: ai7.tool({
      description: TOOL_SCHEMAS.get_time.description,
      inputSchema: ai7.jsonSchema<{ zone: string }>(TOOL_SCHEMAS.get_time.parameters),
      execute: (args) => later(() => impl.get_time(args)),
    }),
    refund_payment: ai7.tool({
      description: TOOL_SCHEMAS.refund_payment.description,
      inputSchema: ai7.jsonSchema<{ order_id: string; amount: number }>(TOOL_SCHEMAS.refund_payment.parameters),
      execute: (args) => later(() => impl.refund_payment(args)),
    }),
  };
}

function ai6Tools() {
  const impl = makeTools();
  return {
    lookup_order: ai6.tool({
      description: TOOL_SCHEMAS.lookup_order.description,
      inputSchema: ai6.jsonSchema<{ order_id: string }>(TOOL_SCHEMAS.lookup_order.parameters),
      execute: (args) => later(() => impl.lookup_order(args)),
    }),
    get_time: ai6.tool({
      description: TOOL_SCHEMAS.get_time.description,
      inputSchema: ai6.jsonSchema<{ zone: string }>(TOOL_SCHEMAS.get_time.parameters),
      execute: (args) => later(() => impl.get_time(args)),
    }),
    refund_payment: ai6.tool({
      description: TOOL_SCHEMAS.refund_payment.description,
      inputSchema: ai6.jsonSchema<{ order_id: string; amount: number }>(TOOL_SCHEMAS.refund_payment.parameters),
      execute: (args) => later(() => impl.refund_payment(args)),
    }),
  };
}

type AiRun = {
  name: string;
  run(tracer: ReturnType<NodeTracerProvider["getTracer"]>, modelUrl: string, tag: string): Promise<string>;
};

const AI_RUNS: AiRun[] = [
  ...(["generate", "stream"] as const).flatMap((mode) =>
    (["genai", "legacy"] as const).map((flavor): AiRun => ({
      name: `ai7-${flavor}-${mode}`,
      async run(tracer, modelUrl) {
        const provider = createOpenAICompatible({ name: "scripted", baseURL: `${modelUrl}/v1`, includeUsage: true });
        const integration = flavor === "genai" ? new OpenTelemetry({ tracer }) : new LegacyOpenTelemetry({ tracer });
        const options = {
          model: provider.chatModel(MODEL),
          system: SYSTEM,
          prompt: PROMPT,
          tools: ai7Tools(),
          temperature: 0,
          stopWhen: ai7.stepCountIs(5),
          telemetry: { functionId: "support-agent", integrations: [integration] },
        };
        if (mode === "generate") return (await ai7.generateText(options)).text;
        const result = ai7.streamText(options);
        return await result.text;
      },
    })),
  ),
  ...(["generate", "stream"] as const).map((mode): AiRun => ({
    name: `ai6-${mode}`,
    async run(tracer, modelUrl, tag) {
      const provider = createOpenAICompatibleV2({ name: "scripted", baseURL: `${modelUrl}/v1`, includeUsage: true });
      const options = {
        model: provider.chatModel(MODEL),
        system: SYSTEM,
        prompt: PROMPT,
        tools: ai6Tools(),
        temperature: 0,
        stopWhen: ai6.stepCountIs(5),
        experimental_telemetry: {
          isEnabled: true,
          tracer,
          functionId: "support-agent",
          metadata: { sessionId: `session-ai6-${mode}${tag}`, customer: "acme" },
        },
      };
      if (mode === "generate") return (await ai6.generateText(options)).text;
      const result = ai6.streamText(options);
      return await result.text;
    },
  })),
];

// ---------------------------------------------------------------------------
// The OpenAI Agents SDK runs.

function agentsAgent() {
  const impl = makeTools();
  return new agents.Agent({
    name: "Support agent",
    instructions: SYSTEM,
    model: MODEL,
    modelSettings: { temperature: 0 },
    tools: [
      agents.tool({
        name: "lookup_order",
        description: TOOL_SCHEMAS.lookup_order.description,
        parameters: z.object({ order_id: z.string() }),
        execute: (args) => later(() => JSON.stringify(impl.lookup_order(args))),
      }),
      agents.tool({
        name: "get_time",
        description: TOOL_SCHEMAS.get_time.description,
        parameters: z.object({ zone: z.string() }),
        execute: (args) => later(() => impl.get_time(args)),
      }),
      agents.tool({
        name: "refund_payment",
        description: TOOL_SCHEMAS.refund_payment.description,
        parameters: z.object({ order_id: z.string(), amount: z.number() }),
        execute: (args) => later(() => impl.refund_payment(args)),
      }),
    ],
  });
}

// ---------------------------------------------------------------------------

type Targets = { otlpJson: string; otlpProto: string; agents: string };

export type Recording = { name: string; text: string; traceIds: string[] };

export type RecordOptions = { apiKey?: string; tag?: string };

/** Runs every SDK once against the scripted model, exporting to `targets`. */
export async function recordAll(
  modelUrl: string,
  targets: Targets,
  onRun: (name: string) => void = () => {},
  options: RecordOptions = {},
): Promise<Recording[]> {
  const recordings: Recording[] = [];
  const tag = options.tag ?? "";
  // The trace ids each run produced, for finding its sessions afterwards.
  let runTraces = new Set<string>();
  const traceRecorder = {
    onStart: (span: { spanContext(): { traceId: string } }) => void runTraces.add(span.spanContext().traceId),
    onEnd: () => {},
    forceFlush: () => Promise.resolve(),
    shutdown: () => Promise.resolve(),
  };
  const jsonHeaders = options.apiKey ? { "x-api-key": options.apiKey } : undefined;
  const protoHeaders = options.apiKey ? { authorization: `Bearer ${options.apiKey}` } : undefined;

  const provider = new NodeTracerProvider({
    resource: resourceFromAttributes({ "service.name": "branchpoint-recorder", "service.version": "1.0.0" }),
    spanProcessors: [
      traceRecorder,
      new BatchSpanProcessor(new OTLPJsonExporter({ url: targets.otlpJson, headers: jsonHeaders })),
      new BatchSpanProcessor(
        new OTLPProtoExporter({ url: targets.otlpProto, headers: protoHeaders, compression: "gzip" as never }),
      ),
    ],
  });
  provider.register();
  const tracer = provider.getTracer("branchpoint-recorder");
  for (const run of AI_RUNS) {
    onRun(run.name);
    runTraces = new Set();
    const text = await run.run(tracer, modelUrl, tag);
    await provider.forceFlush();
    recordings.push({ name: run.name, text, traceIds: [...runTraces].sort() });
  }
  await provider.shutdown();
  trace.disable();

  const client = new OpenAI({ baseURL: `${modelUrl}/v1`, apiKey: "sk-scripted" });
  agents.setDefaultOpenAIClient(client);
  agents.setTracingDisabled(false);
  agents.setTraceProcessors([
    new agents.BatchTraceProcessor(
      new agents.OpenAITracingExporter({ endpoint: targets.agents, apiKey: options.apiKey ?? "sk-scripted" }),
    ),
  ]);
  for (const api of ["chat_completions", "responses"] as const) {
    const name = `openai-agents-${api === "chat_completions" ? "chat" : "responses"}`;
    onRun(name);
    agents.setOpenAIAPI(api);
    const runner = new agents.Runner({
      groupId: `group-${name}${tag}`,
      workflowName: "Refund workflow",
      traceMetadata: { customer: "acme" },
    });
    const result = await runner.run(agentsAgent(), PROMPT, { maxTurns: 5 });
    await agents.getGlobalTraceProvider().forceFlush();
    recordings.push({ name, text: String(result.finalOutput), traceIds: [] });
  }
  return recordings;
}

function argValue(flag: string): string | undefined {
  const index = process.argv.indexOf(flag);
  return index === -1 ? undefined : process.argv[index + 1];
}

async function main(): Promise<void> {
  const server = await startScriptedServer();
  const live = { otlpJson: argValue("--otlp-json"), otlpProto: argValue("--otlp-proto"), agents: argValue("--agents") };
  const targets: Targets = {
    otlpJson: live.otlpJson ?? `${server.url}/capture/otlp-json/v1/traces`,
    otlpProto: live.otlpProto ?? `${server.url}/capture/otlp-proto/v1/traces`,
    agents: live.agents ?? `${server.url}/capture/agents/v1/traces/ingest`,
  };
  try {
    const options: RecordOptions = {
      ...(argValue("--api-key") ? { apiKey: argValue("--api-key") } : {}),
      ...(argValue("--tag") ? { tag: argValue("--tag") } : {}),
    };
    const recordings = await recordAll(server.url, targets, (name) => server.setLabel(name), options);
    for (const r of recordings) console.log(`${r.name}: ${r.text}`);
    if (process.argv.includes("--summary")) console.log(`SUMMARY ${JSON.stringify({ runs: recordings })}`);
    if (live.otlpJson || live.otlpProto || live.agents) return;

    mkdirSync(OTLP_FIXTURES, { recursive: true });
    mkdirSync(AGENTS_FIXTURES, { recursive: true });
    for (const r of recordings) {
      const bodies = server.captured.filter((c) => c.label === r.name);
      const json = bodies.filter((c) => c.path.startsWith("/capture/otlp-json"));
      const proto = bodies.filter((c) => c.path.startsWith("/capture/otlp-proto"));
      const ingest = bodies.filter((c) => c.path.startsWith("/capture/agents"));
      const write = (dir: string, base: string, ext: string, list: Captured[]) =>
        list.forEach((c, i) => {
          const file = path.join(dir, `${base}${list.length > 1 ? `.${i + 1}` : ""}.${ext}`);
          writeFileSync(file, c.body);
          console.log(
            `  ${path.relative(ROOT, file)} (${c.contentType}${c.contentEncoding ? `, ${c.contentEncoding}` : ""}, ${c.body.length} bytes)`,
          );
        });
      write(OTLP_FIXTURES, r.name, "json", json);
      write(OTLP_FIXTURES, r.name, "bin", proto);
      write(AGENTS_FIXTURES, r.name, "json", ingest);
    }
  } finally {
    await server.close();
  }
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  main().catch((error: unknown) => {
    console.error(error);
    process.exitCode = 1;
  });
}
