/**
 * The live model policies of an agent-driven branch, end to end: the agent (the real `openai` client, on
 * streaming Chat Completions and on Responses) re-runs the recording with one tool's answer changed; its calls
 * are served from the recording while they equal it, and from the first difference on Branchpoint forwards them
 * to the admin's model endpoint, a scripted OpenAI-compatible model on a real local port.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { agentReplaySteps } from "@/lib/db/agent-replays";
import type { Policy } from "@/lib/replay";
import { lastToolResult, startScriptedModel, type ScriptedModel } from "@/scripts/scripted-model";
import {
  post,
  realTools,
  runAgent,
  runAgentOnResponses,
  startAgentTestApp,
  type AgentAccessJson,
  type AgentTestApp,
} from "./testing";

const LOST = '{"status":"lost","amount":0}';
const CLAIM = "Order 4821 was lost in transit, so I opened a carrier claim instead of a refund.";

/** lookup_order answers "lost" (a static rule); everything else as recorded, and a miss fails. */
function counterfactual(model: Policy["model"], extra: Partial<Policy> = {}): Policy {
  return {
    model,
    drift: "continue_to_terminal",
    temperatureOverride: 0,
    ...extra,
    tools: {
      default: { type: "history", scope: "baseline", on_miss: "fail" },
      overrides: {
        lookup_order: { type: "static", cases: [{ match_mode: "subset", match: {}, result: LOST }], on_miss: "fail" },
      },
    },
  };
}

const CLIENTS = {
  "streaming Chat Completions": (agent: AgentAccessJson, tools: ReturnType<typeof realTools>) =>
    runAgent(agent, tools, { stream: true }),
  Responses: (agent: AgentAccessJson, tools: ReturnType<typeof realTools>) => runAgentOnResponses(agent, tools, false),
};

describe("live model policies of an agent-driven branch, against a scripted model over HTTP (pglite)", () => {
  let app: AgentTestApp;
  let model: ScriptedModel;

  beforeAll(async () => {
    app = await startAgentTestApp();
    // The provider: it opens a claim when the lookup it is sent says the order was lost.
    model = await startScriptedModel({
      script: (request) =>
        lastToolResult(request.messages, "lookup_order") === LOST
          ? { content: CLAIM }
          : { status: 500, body: '{"error":{"message":"the script expected a lost order"}}' },
    });
    const admin = async (path: string, body: unknown) => {
      const response = await app.api(path, { method: "POST", body });
      expect(response.status, await response.clone().text()).toBe(201);
    };
    await admin("/api/v1/executors/allowed-hosts", { host: model.host });
    await admin("/api/v1/executors/models", { name: "scripted", baseUrl: model.baseUrl, model: "gpt-4o-mini" });
    await admin("/api/v1/executors/models", {
      name: "scripted-next",
      baseUrl: model.baseUrl,
      model: "gpt-4.1-mini",
    });
  }, 400_000);

  afterAll(async () => {
    await model.close();
    await app.close();
  });

  // compatible-live runs another model: the endpoint the replay names serves it.
  const cases: [Policy["model"], Partial<Policy>, string, string][] = [
    ["recorded-until-divergence", {}, "scripted", "gpt-4o-mini"],
    ["pinned-live", {}, "scripted", "gpt-4o-mini"],
    ["compatible-live", { liveModel: "gpt-4.1-mini" }, "scripted-next", "gpt-4.1-mini"],
  ];
  for (const [policyModel, extra, endpoint, liveName] of cases)
    for (const [clientName, run] of Object.entries(CLIENTS))
      it(`${policyModel} on ${clientName}: recorded until the first difference, then the model endpoint`, async () => {
        const before = model.requests.length;
        const { replay, agent } = await app.start(counterfactual(policyModel, extra), {
          extra: { modelEndpoint: endpoint },
        });
        const tools = realTools();
        const final = await run(agent, tools);
        // The agent's own loop took the other path: the live model's answer, and no refund.
        expect(final).toBe(CLAIM);
        expect(tools.executions).toEqual([]);
        // One call reached the provider: the second, whose input carried the changed lookup.
        const sent = model.requests.slice(before);
        expect(sent).toHaveLength(1);
        expect(sent[0]!.model).toBe(liveName);
        expect(sent[0]!.temperature).toBe(0);
        expect(sent[0]!.messages.map((m) => [m.role, m.content])).toEqual([
          ["system", "You are the refund agent of Harbor & Pine."],
          ["user", "Please refund order 4821."],
          ["assistant", null],
          ["tool", LOST],
        ]);
        expect(sent[0]!.messages[2]!.tool_calls?.map((c) => [c.id, c.function.name, c.function.arguments])).toEqual([
          ["call_1", "lookup_order", '{"orderId":"4821"}'],
        ]);

        const finished = await post(agent.finishUrl, agent.token, { finalOutput: final });
        expect(await finished.json()).toEqual({
          status: "completed",
          comparability: "diverged_but_comparable",
          stepCount: 4,
        });
        const steps = await agentReplaySteps(app.db.prisma, replay.id);
        expect(steps.map((s) => [s.kind, s.source, s.name, s.baseSeq])).toEqual([
          ["model_call", "recorded", "gpt-4o-mini", 0],
          ["tool_call", "static", "lookup_order", 1],
          ["model_call", "live", liveName, 2],
          ["final_output", "live", "final_output", 5],
        ]);
        expect(steps[2]!.output).toEqual({ role: "assistant", content: CLAIM });
        expect(steps[2]!.usage).toEqual({ inputTokens: 100, outputTokens: 20 });
        const { evidence } = (await app.row(replay.id)) as { evidence: Record<string, unknown> };
        expect(evidence.strength).toBe(policyModel === "compatible-live" ? "drifting" : "live");
        expect(evidence.stepsBySource).toMatchObject({ recorded: 1, static: 1, live: 1 });
        expect(evidence.fork).toEqual({
          seq: 2,
          modelStep: 1,
          baseSeq: 2,
          reasons: ["input_differs_at:messages[3].content"],
        });
      });

  it("a live call the endpoint refuses is answered in the client's error shape, and nothing is stored for it", async () => {
    // The scripted provider answers 500 to anything but a lost order: the same policy without the changed tool.
    const policy: Policy = {
      model: "pinned-live",
      drift: "continue_to_terminal",
      tools: { default: { type: "history", scope: "baseline", on_miss: "fail" } },
    };
    const { replay, agent } = await app.start(policy);
    const response = await fetch(`${agent.openaiBaseUrl}/chat/completions`, {
      method: "POST",
      headers: { authorization: `Bearer ${agent.token}`, "content-type": "application/json" },
      body: JSON.stringify({ model: "gpt-4o-mini", messages: [{ role: "user", content: "Something else" }] }),
    });
    const body = (await response.json()) as { error: { message: string; code: string } };
    expect([response.status, body.error.code]).toEqual([502, "run_failed"]);
    expect(body.error.message).toMatch(/^The model endpoint did not answer this live call: .*500/);
    expect(await app.steps(replay.id)).toEqual([]);
  });
});
