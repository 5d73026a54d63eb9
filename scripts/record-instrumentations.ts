/**
 * Records what the OpenTelemetry instrumentations of the `openai` client emit, beside the SDK
 * recordings of scripts/record-sdk-traces.ts (same scripted model, same conversation).
 *
 *   npx tsx scripts/record-instrumentations.ts      # writes the fixtures and their notes
 *
 * A small agent loop drives the real `openai` client: it sends the conversation, runs the tools
 * the model asks for (`lookup_order`, `get_time`, then `get_time` again and `refund_payment`,
 * which throws: the loop sends its error back as the tool's message, as such apps do), and
 * stops at the model's text. The loop runs under one span of its own (`support-agent`), as an
 * app's request would: without it each model call would be a trace of its own.
 *
 * - @opentelemetry/instrumentation-openai (OTel contrib): supports `openai` >=4.19 <7, so it
 *   patches openai@6 (the `openai-v6` alias; the module definition's own patch, since the alias's
 *   path does not name `openai`), with captureMessageContent on. Its spans carry gen_ai.*
 *   attributes; the messages are GenAI events sent as OTLP log records.
 * - @arizeai/openinference-instrumentation-openai: patches the `openai` the app uses (7.x) by
 *   its manuallyInstrument; the session id is set by openinference-core's setSession.
 *
 * Spans go through the real OTLP/HTTP JSON and protobuf (gzip) exporters, log records through
 * the OTLP/HTTP JSON log exporter, to the scripted server's capture endpoint; bodies are saved
 * byte for byte under lib/ingest/otlp/__fixtures__/ (logs under logs/), with INSTRUMENTATIONS.md
 * saying what made each.
 */
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

import { context, metrics, trace, type Tracer } from "@opentelemetry/api";
import { logs } from "@opentelemetry/api-logs";
import { OTLPLogExporter } from "@opentelemetry/exporter-logs-otlp-http";
import { OTLPTraceExporter as OTLPJsonExporter } from "@opentelemetry/exporter-trace-otlp-http";
import { OTLPTraceExporter as OTLPProtoExporter } from "@opentelemetry/exporter-trace-otlp-proto";
import { OpenAIInstrumentation as OtelOpenAI } from "@opentelemetry/instrumentation-openai";
import { resourceFromAttributes } from "@opentelemetry/resources";
import { BatchLogRecordProcessor, LoggerProvider } from "@opentelemetry/sdk-logs";
import { BatchSpanProcessor } from "@opentelemetry/sdk-trace-base";
import { NodeTracerProvider } from "@opentelemetry/sdk-trace-node";
import { OpenAIInstrumentation as OpenInferenceOpenAI } from "@arizeai/openinference-instrumentation-openai";
import { setSession } from "@arizeai/openinference-core";

import { makeTools, MODEL, startScriptedServer, TOOL_SCHEMAS, type Captured } from "./sdk-traces-model";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const FIXTURES = path.join(ROOT, "lib/ingest/otlp/__fixtures__");
const PROMPT = "Refund order 4821 and tell me what time it is.";
const SYSTEM = "You are a support agent. Use the tools.";

type Message = Record<string, unknown> & { role: string };
type ToolCall = { id: string; type: "function"; function: { name: string; arguments: string } };
/** The part of an `openai` client (v6 or v7) the loop uses. */
type Client = { chat: { completions: { create(body: object): Promise<unknown> } } };

const TOOLS = Object.entries(TOOL_SCHEMAS).map(([name, t]) => ({
  type: "function" as const,
  function: { name, description: t.description, parameters: t.parameters },
}));

/** One model call, streamed or not: the assistant message it came to. */
async function callModel(client: Client, messages: Message[], stream: boolean): Promise<Message> {
  const body = { model: MODEL, messages, tools: TOOLS, temperature: 0 };
  if (!stream) {
    const result = (await client.chat.completions.create(body)) as { choices: { message: Message }[] };
    const { role, content, tool_calls } = result.choices[0]!.message;
    return { role, content, ...(tool_calls ? { tool_calls } : {}) };
  }
  const chunks = (await client.chat.completions.create({
    ...body,
    stream: true,
    stream_options: { include_usage: true },
  })) as AsyncIterable<{ choices: { delta: { content?: string | null; tool_calls?: unknown[] } }[] }>;
  let content = "";
  const calls: ToolCall[] = [];
  for await (const chunk of chunks) {
    const delta = chunk.choices[0]?.delta;
    if (!delta) continue;
    content += delta.content ?? "";
    for (const raw of (delta.tool_calls ?? []) as {
      index: number;
      id?: string;
      function?: { name?: string; arguments?: string };
    }[]) {
      const call = (calls[raw.index] ??= { id: "", type: "function", function: { name: "", arguments: "" } });
      call.id ||= raw.id ?? "";
      call.function.name ||= raw.function?.name ?? "";
      call.function.arguments += raw.function?.arguments ?? "";
    }
  }
  return calls.length > 0 ? { role: "assistant", content: null, tool_calls: calls } : { role: "assistant", content };
}

/** The agent loop: model, tools, model… until the model answers in text. */
async function runAgent(tracer: Tracer, client: Client, stream: boolean): Promise<string> {
  return tracer.startActiveSpan("support-agent", async (span) => {
    const impl = makeTools() as Record<string, (args: never) => unknown>;
    const messages: Message[] = [
      { role: "system", content: SYSTEM },
      { role: "user", content: PROMPT },
    ];
    try {
      for (let turn = 0; turn < 5; turn++) {
        const reply = await callModel(client, messages, stream);
        messages.push(reply);
        const calls = (reply.tool_calls ?? []) as ToolCall[];
        if (calls.length === 0) return String(reply.content);
        for (const call of calls) {
          let content: string;
          try {
            const result = impl[call.function.name]!(JSON.parse(call.function.arguments) as never);
            content = typeof result === "string" ? result : JSON.stringify(result);
          } catch (error) {
            content = `Error: ${(error as Error).message}`;
          }
          messages.push({ role: "tool", tool_call_id: call.id, content });
        }
      }
      throw new Error("the model never answered in text");
    } finally {
      span.end();
    }
  });
}

type Run = { name: string; about: string; stream: boolean; logs: boolean };

const OTEL_VERSION = pkgVersion("@opentelemetry/instrumentation-openai");
const OI_VERSION = pkgVersion("@arizeai/openinference-instrumentation-openai");

function pkgVersion(name: string): string {
  const file = path.join(ROOT, "node_modules", name, "package.json");
  return (JSON.parse(readFileSync(file, "utf8")) as { version: string }).version;
}

type Exporters = { json: string; proto: string; logs: string };

function providers(targets: Exporters) {
  const resource = resourceFromAttributes({ "service.name": "branchpoint-recorder", "service.version": "1.0.0" });
  const tracerProvider = new NodeTracerProvider({
    resource,
    spanProcessors: [
      new BatchSpanProcessor(new OTLPJsonExporter({ url: targets.json })),
      new BatchSpanProcessor(new OTLPProtoExporter({ url: targets.proto, compression: "gzip" as never })),
    ],
  });
  const loggerProvider = new LoggerProvider({
    resource,
    processors: [new BatchLogRecordProcessor({ exporter: new OTLPLogExporter({ url: targets.logs }) })],
  });
  return { tracerProvider, loggerProvider };
}

async function recordOtel(url: string, run: Run, targets: Exporters): Promise<string> {
  const { tracerProvider, loggerProvider } = providers(targets);
  tracerProvider.register();
  logs.setGlobalLoggerProvider(loggerProvider);
  const instrumentation = new OtelOpenAI({ captureMessageContent: true });
  instrumentation.setTracerProvider(tracerProvider);
  instrumentation.setLoggerProvider(loggerProvider);
  // As registerInstrumentations does: this makes the instrumentation's metric instruments.
  instrumentation.setMeterProvider(metrics.getMeterProvider());
  const openai6 = (await import("openai-v6")) as unknown as { OpenAI: new (o: object) => Client };
  const [definition] = instrumentation.getModuleDefinitions();
  definition!.patch!(openai6, pkgVersion("openai-v6"));
  const client = new openai6.OpenAI({ baseURL: `${url}/v1`, apiKey: "sk-scripted" });
  const text = await runAgent(tracerProvider.getTracer("branchpoint-recorder"), client, run.stream);
  definition!.unpatch!(openai6, pkgVersion("openai-v6"));
  await tracerProvider.shutdown();
  await loggerProvider.shutdown();
  trace.disable();
  logs.disable();
  return text;
}

async function recordOpenInference(url: string, run: Run, targets: Exporters): Promise<string> {
  const { tracerProvider } = providers(targets);
  tracerProvider.register();
  const instrumentation = new OpenInferenceOpenAI({ tracerProvider });
  const openai = (await import("openai")) as unknown as { OpenAI: new (o: object) => Client };
  instrumentation.manuallyInstrument(openai as never);
  const client = new openai.OpenAI({ baseURL: `${url}/v1`, apiKey: "sk-scripted" });
  const tracer = tracerProvider.getTracer("branchpoint-recorder");
  const text = await context.with(setSession(context.active(), { sessionId: `session-${run.name}` }), () =>
    runAgent(tracer, client, run.stream),
  );
  instrumentation.disable();
  await tracerProvider.shutdown();
  trace.disable();
  return text;
}

const RUNS: (Run & { record: typeof recordOtel })[] = [
  ...[false, true].map((stream) => ({
    name: `otel-openai-chat${stream ? "-stream" : ""}`,
    about: `@opentelemetry/instrumentation-openai ${OTEL_VERSION} on openai ${pkgVersion("openai-v6")}, captureMessageContent: true`,
    stream,
    logs: true,
    record: recordOtel,
  })),
  ...[false, true].map((stream) => ({
    name: `openinference-openai-chat${stream ? "-stream" : ""}`,
    about: `@arizeai/openinference-instrumentation-openai ${OI_VERSION} on openai ${pkgVersion("openai")}, default trace config`,
    stream,
    logs: false,
    record: recordOpenInference,
  })),
];

async function main(): Promise<void> {
  const server = await startScriptedServer();
  const notes = [
    "# The instrumentation recordings",
    "",
    "Written by `npx tsx scripts/record-instrumentations.ts` (read its header): the real `openai` client,",
    "instrumented, in an agent loop against the scripted model of scripts/sdk-traces-model.ts, exported",
    "by the real OTLP/HTTP exporters (spans as JSON and as gzipped protobuf, log records as JSON).",
    "",
  ];
  try {
    for (const run of RUNS) {
      server.setLabel(run.name);
      const base = `${server.url}/capture/${run.name}`;
      const text = await run.record(server.url, run, {
        json: `${base}/json/v1/traces`,
        proto: `${base}/proto/v1/traces`,
        logs: `${base}/json/v1/logs`,
      });
      console.log(`${run.name}: ${text}`);
      const bodies = server.captured.filter((c) => c.label === run.name);
      const files: string[] = [];
      const write = (dir: string, ext: string, list: Captured[]) =>
        list.forEach((c, i) => {
          mkdirSync(dir, { recursive: true });
          const file = path.join(dir, `${run.name}${list.length > 1 ? `.${i + 1}` : ""}.${ext}`);
          writeFileSync(file, c.body);
          files.push(
            `\`${path.relative(FIXTURES, file)}\` (${c.contentType}${c.contentEncoding ? `, ${c.contentEncoding}` : ""})`,
          );
        });
      write(
        FIXTURES,
        "json",
        bodies.filter((c) => c.path.endsWith("/json/v1/traces")),
      );
      write(
        FIXTURES,
        "bin",
        bodies.filter((c) => c.path.endsWith("/proto/v1/traces")),
      );
      if (run.logs)
        write(
          path.join(FIXTURES, "logs"),
          "json",
          bodies.filter((c) => c.path.endsWith("/v1/logs")),
        );
      notes.push(
        `- **${run.name}**: ${run.about}; ${run.stream ? "streamed (stream_options.include_usage)" : "not streamed"}.`,
      );
      notes.push(`  ${files.join(", ")}.`);
    }
    writeFileSync(path.join(FIXTURES, "INSTRUMENTATIONS.md"), `${notes.join("\n")}\n`);
  } finally {
    await server.close();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
