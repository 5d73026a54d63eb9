import { readFileSync } from "node:fs";
import * as agents from "@openai/agents";
import OpenAI from "openai";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { importOpenAiAgents } from "@/lib/ingest/openai-agents";
import { AGENTS_FIXTURE } from "@/lib/ingest/testing";
import type { Message, SessionEvent } from "@/lib/replay";
import { makeTools, MODEL } from "@/scripts/sdk-traces-model";
import { openAiResponsesWire } from "./openai-responses";
import { startWireServer, type WireServer } from "./testing";
import type { WireAnswer, WireRequest } from "./types";

// The real OpenAI Agents SDK, on its default Responses API model, answered by the Responses wire
// format from a local server: a tool run, a streamed run, a handoff between two agents, and the
// repo's recorded Agents SDK session re-sent through the parser.

agents.setTracingDisabled(true);

const answerOf = (message: Message, n: number): WireAnswer => ({
  message,
  usage: { inputTokens: 42, outputTokens: 7 },
  model: MODEL,
  id: `resp_${n}`,
  created: 1_767_225_600,
});

let server: WireServer | null = null;
afterEach(async () => {
  await server?.close();
  server = null;
});

async function serve(answers: (n: number, request: WireRequest) => Message) {
  server = await startWireServer([{ method: "POST", path: "/v1/responses", format: openAiResponsesWire }], (n, r) =>
    answerOf(answers(n, r), n),
  );
  const client = new OpenAI({ baseURL: `${server.url}/v1`, apiKey: "bp-token", maxRetries: 0 });
  return { server, model: new agents.OpenAIResponsesModel(client, MODEL) };
}

/** The input without the tool definitions, which the Agents SDK's exporter does not record. */
const withoutTools = ({ tools: _tools, ...input }: WireRequest["input"]) => input;

// The agent scripts/record-sdk-traces.ts recorded lib/ingest/__fixtures__/openai-agents-chat.json from.
const PROMPT = "Refund order 4821 and tell me what time it is.";
const SYSTEM = "You are a support agent. Use the tools.";
function supportAgent(model: agents.Model) {
  const impl = makeTools();
  const later = <T>(f: () => T) => new Promise<T>((resolve) => resolve(f()));
  return new agents.Agent({
    name: "Support agent",
    instructions: SYSTEM,
    model,
    modelSettings: { temperature: 0 },
    tools: [
      agents.tool({
        name: "lookup_order",
        description: "Look an order up by id",
        parameters: z.object({ order_id: z.string() }),
        execute: (args) => later(() => JSON.stringify(impl.lookup_order(args))),
      }),
      agents.tool({
        name: "get_time",
        description: "The current time",
        parameters: z.object({ zone: z.string() }),
        execute: (args) => later(() => impl.get_time(args)),
      }),
      agents.tool({
        name: "refund_payment",
        description: "Refund an order",
        parameters: z.object({ order_id: z.string(), amount: z.number() }),
        execute: (args) => later(() => impl.refund_payment(args)),
      }),
    ],
  });
}

let recorded: SessionEvent[];
beforeAll(() => {
  const imported = importOpenAiAgents(JSON.parse(readFileSync(AGENTS_FIXTURE, "utf8")));
  if (!imported.ok) throw new Error(JSON.stringify(imported.issues));
  recorded = imported.sessions[0]!.events.filter((e) => e.kind === "model_call");
});
afterAll(() => agents.setTracingDisabled(false));

describe("the OpenAI Agents SDK against the Responses wire format", () => {
  it("re-runs the recorded session: each request reads into exactly the input the importer stored", async () => {
    expect(recorded).toHaveLength(3);
    const { server, model } = await serve((n) => recorded[n]!.output as Message);
    const result = await agents.run(supportAgent(model), PROMPT, { maxTurns: 5 });
    expect(result.finalOutput).toBe("Order 4821 was found, but the refund failed: the card processor is unavailable.");
    expect(server.parsed).toHaveLength(3);
    server.parsed.forEach((request, i) => {
      expect(request.stream).toBe(false);
      expect(withoutTools(request.input)).toEqual(recorded[i]!.input);
      expect(request.input.tools?.map((t) => (t as { name: string }).name)).toEqual([
        "lookup_order",
        "get_time",
        "refund_payment",
      ]);
    });
  });

  it("re-runs it streamed: the same inputs, the same final output", async () => {
    const { server, model } = await serve((n) => recorded[n]!.output as Message);
    const result = await agents.run(supportAgent(model), PROMPT, { maxTurns: 5, stream: true });
    let text = "";
    for await (const chunk of result.toTextStream()) text += chunk;
    await result.completed;
    expect(result.finalOutput).toBe("Order 4821 was found, but the refund failed: the card processor is unavailable.");
    expect(text).toBe(result.finalOutput);
    expect(server.parsed.map((r) => r.stream)).toEqual([true, true, true]);
    expect(server.parsed.map((r) => withoutTools(r.input))).toEqual(recorded.map((e) => e.input));
  });

  it("hands off between two agents: the second agent's request carries its own instructions and the handoff", async () => {
    const script: Message[] = [
      {
        role: "assistant",
        content: null,
        toolCalls: [{ id: "call_handoff_1", name: "transfer_to_Refund_agent", args: {} }],
      },
      {
        role: "assistant",
        content: null,
        toolCalls: [{ id: "call_lookup_1", name: "lookup_order", args: { order_id: "4821" } }],
      },
      { role: "assistant", content: "Refunded order 4821." },
    ];
    const { server, model } = await serve((n) => script[n]!);
    let lookups = 0;
    const refundAgent = new agents.Agent({
      name: "Refund agent",
      instructions: "You refund orders.",
      handoffDescription: "Refunds orders",
      model,
      tools: [
        agents.tool({
          name: "lookup_order",
          description: "Look an order up by id",
          parameters: z.object({ order_id: z.string() }),
          execute: ({ order_id }) => {
            lookups++;
            return JSON.stringify({ order_id, total: 129 });
          },
        }),
      ],
    });
    const triage = new agents.Agent({
      name: "Triage agent",
      instructions: "Send refunds to the refund agent.",
      model,
      handoffs: [refundAgent],
    });
    const result = await agents.run(triage, "Refund order 4821.");
    expect(result.finalOutput).toBe("Refunded order 4821.");
    expect(result.lastAgent?.name).toBe("Refund agent");
    expect(lookups).toBe(1);
    const [first, second, third] = server.parsed.map((r) => r.input);
    expect(first!.messages).toEqual([
      { role: "system", content: "Send refunds to the refund agent." },
      { role: "user", content: "Refund order 4821." },
    ]);
    expect(first!.tools?.map((t) => (t as { name: string }).name)).toEqual(["transfer_to_Refund_agent"]);
    const handoff = [
      { role: "user", content: "Refund order 4821." },
      {
        role: "assistant",
        content: null,
        toolCalls: [{ id: "call_handoff_1", name: "transfer_to_Refund_agent", args: {} }],
      },
      { role: "tool", content: '{"assistant":"Refund agent"}', toolCallId: "call_handoff_1" },
    ];
    expect(second!.messages).toEqual([{ role: "system", content: "You refund orders." }, ...handoff]);
    expect(third!.messages).toEqual([
      { role: "system", content: "You refund orders." },
      ...handoff,
      {
        role: "assistant",
        content: null,
        toolCalls: [{ id: "call_lookup_1", name: "lookup_order", args: { order_id: "4821" } }],
      },
      { role: "tool", content: '{"order_id":"4821","total":129}', toolCallId: "call_lookup_1" },
    ]);
  });
});
