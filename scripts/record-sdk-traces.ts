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
 */
import http from "node:http";
import type { AddressInfo } from "node:net";
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

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const OTLP_FIXTURES = path.join(ROOT, "lib/ingest/otlp/__fixtures__");
const AGENTS_FIXTURES = path.join(ROOT, "lib/ingest/__fixtures__");
const MODEL = "scripted-model";

// ---------------------------------------------------------------------------
// The script the fake model follows.

type ScriptedCall = { id: string; name: string; arguments: string };
const STEPS: ScriptedCall[][] = [
  [
    { id: "call_lookup_1", name: "lookup_order", arguments: JSON.stringify({ order_id: "4821" }) },
    { id: "call_time_1", name: "get_time", arguments: JSON.stringify({ zone: "UTC" }) },
  ],
  [
    { id: "call_time_2", name: "get_time", arguments: JSON.stringify({ zone: "UTC" }) },
    { id: "call_refund_1", name: "refund_payment", arguments: JSON.stringify({ order_id: "4821", amount: 129 }) },
  ],
];
const FINAL_TEXT = "Order 4821 was found, but the refund failed: the card processor is unavailable.";

/** Which step the conversation is at: the first whose calls are not all answered. */
function stepOf(answeredCallIds: Set<string>): number {
  const index = STEPS.findIndex((calls) => !calls.every((c) => answeredCallIds.has(c.id)));
  return index === -1 ? STEPS.length : index;
}

/** The tools, shared by every SDK: get_time answers differently on each call. */
function makeTools() {
  let clock = 0;
  return {
    lookup_order: (args: { order_id: string }) => ({ order_id: args.order_id, status: "delivered", total: 129 }),
    get_time: (_args: { zone: string }) => `12:00:0${++clock}Z`,
    refund_payment: (_args: { order_id: string; amount: number }): string => {
      throw new Error("card processor unavailable");
    },
  };
}

/** The tools' JSON Schemas, shared by every SDK. */
function objectSchema(properties: Record<string, { type: "string" | "number" }>): ai7.JSONSchema7 {
  return { type: "object", properties, required: Object.keys(properties), additionalProperties: false };
}

const TOOL_SCHEMAS = {
  lookup_order: { description: "Look an order up by id", parameters: objectSchema({ order_id: { type: "string" } }) },
  get_time: { description: "The current time", parameters: objectSchema({ zone: { type: "string" } }) },
  refund_payment: {
    description: "Refund an order",
    parameters: objectSchema({ order_id: { type: "string" }, amount: { type: "number" } }),
  },
};

// ---------------------------------------------------------------------------
// The scripted model server and the capture server (one node:http server).

/** A promise of `f()` that rejects when `f` throws, as an async function's would. */
function later<T>(f: () => T): Promise<T> {
  return new Promise((resolve) => resolve(f()));
}

type Captured = { label: string; path: string; contentType: string; contentEncoding: string; body: Buffer };

async function readBody(req: http.IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

const usage = { prompt_tokens: 42, completion_tokens: 7, total_tokens: 49 };

function chatCompletion(step: number): unknown {
  const calls = STEPS[step];
  const message = calls
    ? {
        role: "assistant",
        content: null,
        tool_calls: calls.map((c) => ({
          id: c.id,
          type: "function",
          function: { name: c.name, arguments: c.arguments },
        })),
      }
    : { role: "assistant", content: FINAL_TEXT };
  return {
    id: `chatcmpl-${step}`,
    object: "chat.completion",
    created: 1_767_225_600,
    model: MODEL,
    choices: [{ index: 0, message, finish_reason: calls ? "tool_calls" : "stop" }],
    usage,
  };
}

function chatCompletionChunks(step: number, includeUsage: boolean): unknown[] {
  const calls = STEPS[step];
  const base = { id: `chatcmpl-${step}`, object: "chat.completion.chunk", created: 1_767_225_600, model: MODEL };
  const chunks: unknown[] = [];
  if (calls) {
    calls.forEach((c, index) => {
      chunks.push({
        ...base,
        choices: [
          {
            index: 0,
            delta: {
              ...(index === 0 ? { role: "assistant", content: null } : {}),
              tool_calls: [{ index, id: c.id, type: "function", function: { name: c.name, arguments: "" } }],
            },
            finish_reason: null,
          },
        ],
      });
      // Arguments arrive in two pieces, as real providers stream them.
      const half = Math.floor(c.arguments.length / 2);
      for (const piece of [c.arguments.slice(0, half), c.arguments.slice(half)]) {
        chunks.push({
          ...base,
          choices: [
            { index: 0, delta: { tool_calls: [{ index, function: { arguments: piece } }] }, finish_reason: null },
          ],
        });
      }
    });
    chunks.push({ ...base, choices: [{ index: 0, delta: {}, finish_reason: "tool_calls" }] });
  } else {
    chunks.push({ ...base, choices: [{ index: 0, delta: { role: "assistant", content: "" }, finish_reason: null }] });
    for (const word of FINAL_TEXT.split(/(?<= )/)) {
      chunks.push({ ...base, choices: [{ index: 0, delta: { content: word }, finish_reason: null }] });
    }
    chunks.push({ ...base, choices: [{ index: 0, delta: {}, finish_reason: "stop" }] });
  }
  if (includeUsage) chunks.push({ ...base, choices: [], usage });
  return chunks;
}

function responsesResponse(step: number): unknown {
  const calls = STEPS[step];
  const output = calls
    ? calls.map((c, i) => ({
        type: "function_call",
        id: `fc_${step}_${i}`,
        call_id: c.id,
        name: c.name,
        arguments: c.arguments,
        status: "completed",
      }))
    : [
        {
          type: "message",
          id: `msg_${step}`,
          role: "assistant",
          status: "completed",
          content: [{ type: "output_text", text: FINAL_TEXT, annotations: [] }],
        },
      ];
  return {
    id: `resp_${step}`,
    object: "response",
    created_at: 1_767_225_600,
    status: "completed",
    model: MODEL,
    output,
    parallel_tool_calls: true,
    tool_choice: "auto",
    tools: [],
    usage: {
      input_tokens: 42,
      input_tokens_details: { cached_tokens: 0 },
      output_tokens: 7,
      output_tokens_details: { reasoning_tokens: 0 },
      total_tokens: 49,
    },
  };
}

type ChatRequest = {
  stream?: boolean;
  stream_options?: { include_usage?: boolean };
  messages?: { role: string; tool_call_id?: string }[];
};
type ResponsesRequest = { input?: string | { type?: string; call_id?: string }[] };

export type ScriptedServer = {
  url: string;
  captured: Captured[];
  setLabel(label: string): void;
  close(): Promise<void>;
};

/** Starts the scripted model (under /v1) and a capture endpoint for every other POST. */
export async function startScriptedServer(): Promise<ScriptedServer> {
  const captured: Captured[] = [];
  let label = "";
  const server = http.createServer((req, res) => {
    void (async () => {
      const body = await readBody(req);
      const url = req.url ?? "";
      if (url === "/v1/chat/completions") {
        const request = JSON.parse(body.toString("utf8")) as ChatRequest;
        const answered = new Set(
          (request.messages ?? []).flatMap((m) => (m.role === "tool" && m.tool_call_id ? [m.tool_call_id] : [])),
        );
        const step = stepOf(answered);
        if (request.stream) {
          res.writeHead(200, { "content-type": "text/event-stream" });
          for (const chunk of chatCompletionChunks(step, request.stream_options?.include_usage === true)) {
            res.write(`data: ${JSON.stringify(chunk)}\n\n`);
          }
          res.end("data: [DONE]\n\n");
        } else {
          res.writeHead(200, { "content-type": "application/json" });
          res.end(JSON.stringify(chatCompletion(step)));
        }
        return;
      }
      if (url === "/v1/responses") {
        const request = JSON.parse(body.toString("utf8")) as ResponsesRequest;
        const items = Array.isArray(request.input) ? request.input : [];
        const answered = new Set(
          items.flatMap((i) => (i.type === "function_call_output" && i.call_id ? [i.call_id] : [])),
        );
        res.writeHead(200, { "content-type": "application/json" });
        res.end(JSON.stringify(responsesResponse(stepOf(answered))));
        return;
      }
      captured.push({
        label,
        path: url,
        contentType: String(req.headers["content-type"] ?? ""),
        contentEncoding: String(req.headers["content-encoding"] ?? ""),
        body,
      });
      res.writeHead(200, { "content-type": "application/json" });
      res.end("{}");
    })().catch((error: unknown) => {
      res.writeHead(500);
      res.end(String(error));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    captured,
    setLabel: (next) => {
      label = next;
    },
    close: () => new Promise<void>((resolve, reject) => server.close((e) => (e ? reject(e) : resolve()))),
  };
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
