import Anthropic from "@anthropic-ai/sdk";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { toolLevelPreset, type Policy } from "@/lib/replay";
import {
  ASK,
  SYSTEM,
  TOOLS,
  answerToolCall,
  post,
  realTools,
  runAgent,
  runAgentOnResponses,
  startAgentTestApp,
  type AgentAccessJson,
  type AgentTestApp,
} from "./testing";

const RECORDED: Policy = {
  model: "recorded-only",
  drift: "continue_to_terminal",
  tools: toolLevelPreset("recorded-only"),
};
const CAPS = { adapter: "wire-format-test", version: "1.0.0", capabilities: ["tool_policies"] };

/** The refund agent on Anthropic Messages: `@anthropic-ai/sdk` (the token as its API key), a tool loop of its own. */
async function runOnAnthropic(agent: AgentAccessJson, tools: ReturnType<typeof realTools>, stream: boolean) {
  const client = new Anthropic({ apiKey: agent.token, baseURL: agent.anthropicBaseUrl, maxRetries: 0 });
  const messages: Anthropic.MessageParam[] = [{ role: "user", content: ASK }];
  const defs = TOOLS.map((t) => ({
    name: t.function.name,
    description: t.function.description,
    input_schema: t.function.parameters as Anthropic.Tool.InputSchema,
  }));
  for (let turn = 0; turn < 10; turn++) {
    const request = { model: "gpt-4o-mini", max_tokens: 1024, system: SYSTEM, messages, tools: defs };
    const message = stream
      ? await client.messages.stream(request).finalMessage()
      : await client.messages.create(request);
    const uses = message.content.filter((b): b is Anthropic.ToolUseBlock => b.type === "tool_use");
    if (uses.length === 0)
      return message.content
        .filter((b) => b.type === "text")
        .map((b) => b.text)
        .join("");
    messages.push({ role: "assistant", content: message.content });
    const results: Anthropic.ToolResultBlockParam[] = [];
    for (const use of uses) {
      const content = await answerToolCall(agent, tools, use.name, use.input as Record<string, unknown>, use.id);
      results.push({ type: "tool_result", tool_use_id: use.id, content });
    }
    messages.push({ role: "user", content: results });
  }
  throw new Error("the agent did not finish in 10 turns");
}

describe("agent-driven replays through the Responses and Anthropic Messages clients (pglite)", () => {
  let app: AgentTestApp;
  beforeAll(async () => {
    app = await startAgentTestApp();
  }, 400_000);
  afterAll(() => app.close());

  const start = (policy: Policy) => app.start(policy, { agent: CAPS });
  const row = async (id: string) => {
    const { status, comparability, stepCount } = await app.row(id);
    return { status, comparability, stepCount };
  };

  for (const [name, run] of [
    ["the OpenAI Responses API", runAgentOnResponses],
    ["Anthropic Messages", runOnAnthropic],
  ] as const)
    for (const stream of [false, true])
      it(`re-runs the recorded session exactly on ${name}${stream ? ", streaming" : ""}, running no tool`, async () => {
        const { replay, agent } = await start(RECORDED);
        const tools = realTools();
        const final = await run(agent, tools, stream);
        expect(final).toBe("Order 4821 is refunded ($42).");
        expect(tools.executions).toEqual([]);
        const finished = await post(agent.finishUrl, agent.token, { finalOutput: final });
        expect(finished.status).toBe(200);
        expect(await row(replay.id)).toEqual({ status: "completed", comparability: "exact", stepCount: 6 });
      });

  it("pairs a tool call asked without an id with its recording by tool and arguments, so the branch is exact", async () => {
    const { replay, agent } = await start(RECORDED);
    const tools = realTools();
    const final = await runAgent(agent, tools, { omitCallId: true });
    expect(tools.executions).toEqual([]);
    await post(agent.finishUrl, agent.token, { finalOutput: final });
    expect(await row(replay.id)).toEqual({ status: "completed", comparability: "exact", stepCount: 6 });
  });

  it("answers a diverging call in the client's own error shape, naming the step and the path", async () => {
    const { agent } = await start(RECORDED);
    const anthropic = new Anthropic({ apiKey: agent.token, baseURL: agent.anthropicBaseUrl, maxRetries: 0 });
    const error = await anthropic.messages
      .create({ model: "gpt-4o-mini", max_tokens: 10, system: SYSTEM, messages: [{ role: "user", content: "Hi" }] })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(Anthropic.BadRequestError);
    expect((error as Error).message).toContain("differs from the recorded one (base step");
    expect((error as Error).message).toContain("messages[1].content");
  });
});
