import { describe, expect, it } from "vitest";
import { detectAdapter } from "./adapter";
import { recordings, spansOf } from "./testing";

const span = (
  attributes: Record<string, unknown>,
  scope = "",
  resource: Record<string, unknown> = {},
): Parameters<typeof detectAdapter>[0][number] => ({ attributes, resource, scope: { name: scope, version: null } });

describe("detectAdapter: the framework a trace's spans name", () => {
  it("the recorded AI SDK 6 and 7 traces (ai.* spans and GenAI spans alike) are vercel-ai-sdk", () => {
    for (const [name, files] of recordings("json")) {
      if (!/^ai[67]-/.test(name)) continue;
      expect([name, detectAdapter(spansOf(files))]).toEqual([name, "vercel-ai-sdk"]);
    }
  });

  it("the hand-written OpenInference trace names no framework: generic", () => {
    expect(detectAdapter(spansOf(recordings("json").get("openinference-handwritten")!))).toBe("generic");
  });

  it.each([
    ["the AI SDK's own tracer", [span({ "gen_ai.operation.name": "chat" }, "ai")], "vercel-ai-sdk"],
    [
      "OpenInference's OpenAI Agents instrumentation",
      [span({ "openinference.span.kind": "AGENT" }, "openinference.instrumentation.openai_agents")],
      "openai-agents",
    ],
    ["Logfire's OpenAI Agents instrumentation", [span({}, "logfire.openai-agents")], "openai-agents"],
    ["PydanticAI", [span({ "gen_ai.operation.name": "chat" }, "pydantic-ai")], "pydantic-ai"],
    ["LangGraph metadata", [span({ metadata: '{"langgraph_node":"agent","langgraph_step":1}' })], "langgraph"],
    ["Mastra", [span({ "mastra.agent.name": "x" })], "mastra"],
    [
      "an agent framework over a model SDK: the framework",
      [span({ "ai.model.id": "gpt" }), span({}, "pydantic-ai")],
      "pydantic-ai",
    ],
    [
      "an explicit attribute wins",
      [span({ "ai.model.id": "gpt" }, "ai", { "branchpoint.adapter": "mastra" })],
      "mastra",
    ],
    ["an explicit attribute that names no adapter is ignored", [span({ "branchpoint.adapter": "crewai" })], "generic"],
    ["plain GenAI spans", [span({ "gen_ai.operation.name": "chat" }, "my-app")], "generic"],
    ["no spans", [], "generic"],
  ] as const)("%s", (_, spans, adapter) => {
    expect(detectAdapter(spans)).toBe(adapter);
  });
});
