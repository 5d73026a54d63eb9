/**
 * Multi-agent runs of the OpenAI Agents SDK, recorded by the SDK itself and re-run as agent-driven branches:
 * each model call pairs with the next call of its own thread of the recording (its instructions and the task
 * it was given), not with the n-th call of the whole run. Recorded through the SDK's trace exporter into the
 * app's `/v1/traces/ingest`, against a scripted Chat Completions model on a real local port; re-run on the
 * SDK's default Responses model pointed at the replay, its function tools wrapped by this package.
 */
import * as agents from "@openai/agents";
import OpenAI from "openai";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { post, startAgentTestApp, type AgentTestApp } from "@/app/api/v1/replays/[id]/agent/testing";
import { toolLevelPreset, type Policy } from "@/lib/replay";
import { startScriptedModel, type ChatRequest, type ScriptedModel } from "@/scripts/scripted-model";
import { AgentReplayClient } from "./client";
import { withBranchpointAgentTools } from "./openai-agents";

const MODEL = "scripted-model";
const TRIAGE = "Send refunds to the refund agent.";
const REFUND = "You refund orders.";
const RECORDED: Policy = {
  model: "recorded-only",
  drift: "continue_to_terminal",
  tools: toolLevelPreset("recorded-only"),
};

/** The scripted provider: the triage agent hands off, the refund agent looks the order up, then answers. */
function script(request: ChatRequest) {
  const system = request.messages[0]?.content ?? "";
  const task = request.messages.find((m) => m.role === "user")?.content ?? "";
  const order = /order (\d+)/.exec(task)?.[1] ?? "?";
  if (system === TRIAGE)
    return { toolCalls: [{ id: `call_handoff_${order}`, name: "transfer_to_Refund_agent", args: {} }] };
  if (!request.messages.some((m) => m.role === "tool" && m.content?.includes('"total"')))
    return { toolCalls: [{ id: `call_lookup_${order}`, name: "lookup_order", args: { order_id: order } }] };
  return { content: `Refunded order ${order}.` };
}

function makeAgents(model: agents.Model, wrap: <T extends readonly unknown[]>(tools: T) => T = (t) => t) {
  const executions: string[] = [];
  const refund = new agents.Agent({
    name: "Refund agent",
    instructions: REFUND,
    handoffDescription: "Refunds orders",
    model,
    modelSettings: { temperature: 0 },
    tools: wrap([
      agents.tool({
        name: "lookup_order",
        description: "Look an order up by id",
        parameters: z.object({ order_id: z.string() }),
        execute: ({ order_id }) => {
          executions.push(order_id);
          return JSON.stringify({ order_id, total: 129 });
        },
      }),
    ]),
  });
  const triage = new agents.Agent({
    name: "Triage agent",
    instructions: TRIAGE,
    model,
    modelSettings: { temperature: 0 },
    handoffs: [refund],
  });
  return { triage, executions };
}

describe("multi-agent runs of the Agents SDK, re-run as agent-driven branches (pglite)", () => {
  let app: AgentTestApp;
  let provider: ScriptedModel;
  /** The imported sessions: one handoff; two handoffs run concurrently in one trace. */
  let handoff: string;
  let concurrent: string;

  /** Runs `work` with the SDK's exporter sending its traces to the app; returns the session they became. */
  async function record(work: (model: agents.Model) => Promise<void>): Promise<string> {
    const before = await app.db.prisma.session.count();
    agents.setTracingDisabled(false);
    agents.setTraceProcessors([
      new agents.BatchTraceProcessor(
        new agents.OpenAITracingExporter({ endpoint: `${app.base}/v1/traces/ingest`, apiKey: app.key }),
      ),
    ]);
    try {
      const client = new OpenAI({ baseURL: provider.baseUrl, apiKey: "sk-scripted", maxRetries: 0 });
      await work(new agents.OpenAIChatCompletionsModel(client, MODEL));
      await agents.getGlobalTraceProvider().forceFlush();
    } finally {
      agents.setTraceProcessors([]);
      agents.setTracingDisabled(true);
    }
    expect(await app.db.prisma.session.count()).toBe(before + 1);
    return (await app.db.prisma.session.findFirstOrThrow({ orderBy: { createdAt: "desc" } })).id;
  }

  beforeAll(async () => {
    app = await startAgentTestApp();
    provider = await startScriptedModel({ script });
    handoff = await record(async (model) => {
      const result = await agents.run(makeAgents(model).triage, "Refund order 4821.");
      expect(result.finalOutput).toBe("Refunded order 4821.");
    });
    concurrent = await record((model) =>
      agents.withTrace("two refunds", async () => {
        const [a, b] = await Promise.all([
          agents.run(makeAgents(model).triage, "Refund order 4821."),
          agents.run(makeAgents(model).triage, "Refund order 5932."),
        ]);
        expect([a.finalOutput, b.finalOutput]).toEqual(["Refunded order 4821.", "Refunded order 5932."]);
      }),
    );
  }, 400_000);

  afterAll(async () => {
    agents.setTracingDisabled(false);
    await provider.close();
    await app.close();
  });

  /** Starts an agent-driven replay of `sessionId` and builds the agents on the SDK's Responses model pointed at it. */
  async function rerun(sessionId: string) {
    const created = await app.start(RECORDED, { sessionId });
    const replayClient = AgentReplayClient.fromCreated(created);
    const openai = new OpenAI({ baseURL: created.agent.openaiBaseUrl, apiKey: created.agent.token, maxRetries: 0 });
    const build = () =>
      makeAgents(new agents.OpenAIResponsesModel(openai, MODEL), (tools) =>
        withBranchpointAgentTools(tools, { client: replayClient }),
      );
    return { ...created, build };
  }

  it("re-runs a recorded handoff exactly, running no tool body", async () => {
    const { replay, agent, build } = await rerun(handoff);
    const { triage, executions } = build();
    const result = await agents.run(triage, "Refund order 4821.");
    expect(result.finalOutput).toBe("Refunded order 4821.");
    expect(result.lastAgent?.name).toBe("Refund agent");
    expect(executions).toEqual([]);
    const finished = await post(agent.finishUrl, agent.token, { finalOutput: result.finalOutput });
    expect(await finished.json()).toEqual({ status: "completed", comparability: "exact", stepCount: 6 });
    // The user turn the importer placed before the refund agent's first call, copied as the engine copies it.
    expect(await app.steps(replay.id)).toEqual([
      "model_call:recorded",
      "user_message:recorded",
      "model_call:recorded",
      "tool_call:recorded",
      "model_call:recorded",
      "final_output:recorded",
    ]);
  });

  it("pairs each agent's calls with its own thread when concurrent runs come in another order", async () => {
    const { replay, agent, build } = await rerun(concurrent);
    // Recorded concurrently; re-run one after the other, the order the recording holds second first. By the n-th
    // call of the whole run, its first call would pair with the other order's and stop the branch on a difference.
    const firstRecorded = await app.db.prisma.event.findFirstOrThrow({
      where: { sessionId: concurrent, kind: "model_call" },
      orderBy: { seq: "asc" },
    });
    const [early, late] = JSON.stringify(firstRecorded.input).includes("4821") ? ["5932", "4821"] : ["4821", "5932"];
    const second = build();
    const b = await agents.run(second.triage, `Refund order ${early}.`);
    const first = build();
    const a = await agents.run(first.triage, `Refund order ${late}.`);
    expect([b.finalOutput, a.finalOutput]).toEqual([`Refunded order ${early}.`, `Refunded order ${late}.`]);
    expect([...second.executions, ...first.executions]).toEqual([]);
    // (Each run's user turn is copied from the record before its first model call, as the engine copies it.)
    const steps = await app.db.prisma.replayStep.findMany({
      where: { replayId: replay.id, kind: { in: ["model_call", "tool_call"] } },
      orderBy: { idx: "asc" },
      select: { kind: true, source: true, baseSeq: true },
    });
    expect(steps.map((s) => `${s.kind}:${s.source}`)).toEqual([
      ...["model_call", "model_call", "tool_call", "model_call"].map((k) => `${k}:recorded`),
      ...["model_call", "model_call", "tool_call", "model_call"].map((k) => `${k}:recorded`),
    ]);
    // Every call found its own recording: eight different base steps, the tool calls each their own order's.
    expect(new Set(steps.map((s) => s.baseSeq)).size).toBe(8);
    const stored = await app.db.prisma.replayStep.findMany({
      where: { replayId: replay.id, kind: "tool_call" },
      orderBy: { idx: "asc" },
      select: { output: true },
    });
    expect(stored.map((s) => s.output)).toEqual([
      JSON.stringify({ order_id: early, total: 129 }),
      JSON.stringify({ order_id: late, total: 129 }),
    ]);
    const finished = await post(agent.finishUrl, agent.token, { finalOutput: a.finalOutput });
    expect(((await finished.json()) as { status: string }).status).toBe("completed");
  });
});
