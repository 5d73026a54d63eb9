/**
 * A small real agent for the CLI's tests: the `openai` client's chat loop (its base URL and key come from
 * OPENAI_BASE_URL / OPENAI_API_KEY, as for any OpenAI agent), asking the replay before each tool through the
 * SDK's client (BRANCHPOINT_REPLAY_URL / BRANCHPOINT_REPLAY_TOKEN). Prints how many tool bodies ran, then its
 * final answer as the last line.
 */
import OpenAI from "openai";
import { AgentReplayClient } from "../src/client";

const TOOLS: OpenAI.Chat.ChatCompletionTool[] = [
  {
    type: "function",
    function: {
      name: "lookup_order",
      description: "Look an order up",
      parameters: { type: "object", properties: { orderId: { type: "string" } }, required: ["orderId"] },
    },
  },
  {
    type: "function",
    function: {
      name: "refund",
      description: "Refund an order",
      parameters: {
        type: "object",
        properties: { orderId: { type: "string" }, amount: { type: "number" } },
        required: ["orderId", "amount"],
      },
    },
  },
];

let toolsRun = 0;
const run = (name: string) => () => {
  toolsRun++;
  return JSON.stringify({ tool: name, live: true });
};

const openai = new OpenAI({ maxRetries: 0 });
const replay = new AgentReplayClient();
const messages: OpenAI.Chat.ChatCompletionMessageParam[] = [
  { role: "system", content: "You are the refund agent of Harbor & Pine." },
  { role: "user", content: "Please refund order 4821." },
];
for (let turn = 0; turn < 10; turn++) {
  const message = (await openai.chat.completions.create({ model: "gpt-4o-mini", messages, tools: TOOLS })).choices[0]!
    .message;
  const calls = (message.tool_calls ?? []).filter((c) => c.type === "function");
  messages.push({ role: "assistant", content: message.content, ...(calls.length > 0 ? { tool_calls: calls } : {}) });
  if (calls.length === 0) {
    console.log(`tools run: ${toolsRun}`);
    console.log(message.content);
    process.exit(0);
  }
  for (const call of calls) {
    const output = await replay.callTool(call.function.name, JSON.parse(call.function.arguments), {
      callId: call.id,
      run: run(call.function.name),
    });
    messages.push({
      role: "tool",
      tool_call_id: call.id,
      content: typeof output === "string" ? output : JSON.stringify(output),
    });
  }
}
console.error("the agent did not finish in 10 turns");
process.exit(1);
