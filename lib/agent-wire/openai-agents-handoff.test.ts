import http from "node:http";
import type { AddressInfo } from "node:net";
import * as agents from "@openai/agents";
import OpenAI from "openai";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { importOpenAiAgents } from "@/lib/ingest/openai-agents";
import type { Message, SessionEvent } from "@/lib/replay";
import { openAiResponsesWire } from "./openai-responses";
import { startWireServer } from "./testing";

// A handoff between two agents, recorded by the Agents SDK itself (its OpenAITracingExporter, on a
// Chat Completions model answered by a scripted provider), imported by lib/ingest, then re-run on
// the SDK's default Responses model against the Responses wire format answering with the recorded
// outputs: every request must read into exactly the input the importer stored for its model call.

const MODEL = "scripted-model";
const PROMPT = "Refund order 4821.";

/** The scripted provider's turns, as Chat Completions messages. */
const SCRIPT = [
  { role: "assistant", content: null, tool_calls: [call("call_handoff_1", "transfer_to_Refund_agent", "{}")] },
  { role: "assistant", content: null, tool_calls: [call("call_lookup_1", "lookup_order", '{"order_id":"4821"}')] },
  { role: "assistant", content: "Refunded order 4821." },
];
function call(id: string, name: string, args: string) {
  return { id, type: "function", function: { name, arguments: args } };
}

function makeAgents(model: agents.Model) {
  const refund = new agents.Agent({
    name: "Refund agent",
    instructions: "You refund orders.",
    handoffDescription: "Refunds orders",
    model,
    modelSettings: { temperature: 0 },
    tools: [
      agents.tool({
        name: "lookup_order",
        description: "Look an order up by id",
        parameters: z.object({ order_id: z.string() }),
        execute: ({ order_id }) => JSON.stringify({ order_id, total: 129 }),
      }),
    ],
  });
  return new agents.Agent({
    name: "Triage agent",
    instructions: "Send refunds to the refund agent.",
    model,
    modelSettings: { temperature: 0 },
    handoffs: [refund],
  });
}

/** The scripted Chat Completions provider and the trace capture, one local server. */
async function startProvider() {
  const exports: unknown[] = [];
  let turn = 0;
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const body = JSON.parse(Buffer.concat(chunks).toString("utf8")) as { data?: unknown[] };
      if (req.url === "/traces/ingest") {
        exports.push(...(body.data ?? []));
        res.writeHead(200, { "content-type": "application/json" }).end("{}");
        return;
      }
      const message = SCRIPT[turn++];
      res.writeHead(200, { "content-type": "application/json" }).end(
        JSON.stringify({
          id: `chatcmpl-${turn}`,
          object: "chat.completion",
          created: 1_767_225_600,
          model: MODEL,
          choices: [{ index: 0, message, finish_reason: message?.tool_calls ? "tool_calls" : "stop" }],
          usage: { prompt_tokens: 42, completion_tokens: 7, total_tokens: 49 },
        }),
      );
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { url, exports, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

let recorded: SessionEvent[];
beforeAll(async () => {
  const provider = await startProvider();
  try {
    agents.setTracingDisabled(false);
    agents.setTraceProcessors([
      new agents.BatchTraceProcessor(
        new agents.OpenAITracingExporter({ endpoint: `${provider.url}/traces/ingest`, apiKey: "sk-scripted" }),
      ),
    ]);
    const client = new OpenAI({ baseURL: `${provider.url}/v1`, apiKey: "sk-scripted", maxRetries: 0 });
    const result = await agents.run(makeAgents(new agents.OpenAIChatCompletionsModel(client, MODEL)), PROMPT);
    expect(result.finalOutput).toBe("Refunded order 4821.");
    await agents.getGlobalTraceProvider().forceFlush();
  } finally {
    agents.setTraceProcessors([]);
    agents.setTracingDisabled(true);
    await provider.close();
  }
  const imported = importOpenAiAgents({ data: provider.exports });
  if (!imported.ok) throw new Error(JSON.stringify(imported.issues));
  expect(imported.sessions).toHaveLength(1);
  recorded = imported.sessions[0]!.events.filter((e) => e.kind === "model_call");
});
afterAll(() => agents.setTracingDisabled(false));

describe("a handoff recorded by the Agents SDK, re-run on the Responses wire format", () => {
  it("reads every request of both agents into the input the importer stored", async () => {
    expect(recorded).toHaveLength(3);
    expect((recorded[1]!.input as { messages: Message[] }).messages[0]).toEqual({
      role: "system",
      content: "You refund orders.",
    });
    const server = await startWireServer(
      [{ method: "POST", path: "/v1/responses", format: openAiResponsesWire }],
      (n) => ({
        message: recorded[n]!.output as Message,
        usage: recorded[n]!.usage,
        model: MODEL,
        id: `resp_${n}`,
        created: 1_767_225_600,
      }),
    );
    try {
      const client = new OpenAI({ baseURL: `${server.url}/v1`, apiKey: "bp-token", maxRetries: 0 });
      const result = await agents.run(makeAgents(new agents.OpenAIResponsesModel(client, MODEL)), PROMPT);
      expect(result.finalOutput).toBe("Refunded order 4821.");
      expect(result.lastAgent?.name).toBe("Refund agent");
      expect(server.parsed.map(({ input: { tools: _tools, ...input } }) => input)).toEqual(
        recorded.map((e) => e.input),
      );
    } finally {
      await server.close();
    }
  });
});
