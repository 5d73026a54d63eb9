/**
 * The demo refund agent: Harbor & Pine's customer support agent, a small real agent on the Vercel AI SDK
 * (`generateText` with tools, through `@ai-sdk/openai-compatible`). The demo data's "Refund for cracked
 * pour-over set (order 4821)" session is one of its runs: it looks the order up (and the time), offers a
 * refund, and issues it once the customer agrees.
 *
 *   npm run demo:agent                     # with the variables "Run with my agent" prints, or under the CLI:
 *   npx tsx sdk/src/cli.ts replay <sessionId> --policy sdk/demo/recorded-policy.json -- npm run -s demo:agent
 *
 * Under a replay (BRANCHPOINT_REPLAY_URL and BRANCHPOINT_REPLAY_TOKEN set) its model calls go to the replay's
 * OPENAI_BASE_URL and every tool asks the replay first (`withBranchpointTools`): a recorded answer is used as
 * it is, and the tool's body runs only when the policy says so. Started from the dashboard's variables it
 * finishes the replay itself; under the `branchpoint` CLI the CLI does. Without a replay it is an ordinary
 * agent: point OPENAI_BASE_URL at a model (the scripted one: `npx tsx scripts/scripted-model.ts 8099`).
 * The customer is played by the program: the first message (or the one given as an argument), then "Yes
 * please, go ahead." whenever the agent asks whether to go ahead.
 */
import { writeFile } from "node:fs/promises";
import { createOpenAICompatible } from "@ai-sdk/openai-compatible";
import { generateText, jsonSchema, stepCountIs, tool, type ModelMessage, type StepResult, type ToolSet } from "ai";
import { withBranchpointTools } from "../src/ai-sdk";
import { isMain } from "../src/is-main";
import { AgentReplayClient, ReplayToolError } from "../src/client";
import {
  ORDER_SHAPE,
  REFUND_REASONS,
  harborPineOrders,
  inShapeOf,
  pythonJson,
  type OrderSystem,
  type RefundReason,
} from "./order-system";

export const MODEL = "gpt-4.1-2025-04-14";
export const SYSTEM =
  "You are Harbor & Pine's customer support agent. Refunds are allowed within 30 days of delivery for damaged, missing or wrong items. Always look up the order before refunding, refund at most the amount paid for the affected items, and never refund an order twice. Be brief and friendly.";
export const FIRST_MESSAGE =
  "Hi, my order 4821 arrived yesterday and the ceramic pour-over set was cracked in the box. Can I get my money back?";
export const GO_AHEAD = "Yes please, go ahead.";
const TOOL_ORDER = ["lookup_order", "refund_payment", "get_current_time"] as const;
const MAX_TURNS = 5;
const MAX_STEPS_PER_TURN = 8;

/**
 * A tool's result as the model reads it: text as it is, a record as the agent has always written it (its
 * service's field order, Python's json.dumps: the recorded conversations hold these texts).
 */
const asModelText =
  (shape: unknown) =>
  ({ output }: { output: unknown }) => ({
    type: "text" as const,
    value: typeof output === "string" ? output : pythonJson(inShapeOf(output, shape)),
  });

/** The agent's tools, on the back office given. */
export function refundTools(orders: OrderSystem) {
  return {
    lookup_order: tool({
      description: "Look up an order by its number: items, totals, delivery and refund state.",
      inputSchema: jsonSchema<{ order_id: string }>({
        type: "object",
        properties: { order_id: { type: "string", description: "The order number, digits only" } },
        required: ["order_id"],
        additionalProperties: false,
      }),
      execute: ({ order_id }) => orders.lookupOrder(order_id),
      toModelOutput: asModelText(ORDER_SHAPE),
    }),
    refund_payment: tool({
      description: "Refund an order's payment, in full or in part, to the original payment method.",
      inputSchema: jsonSchema<{ order_id: string; amount: number; reason: RefundReason }>({
        type: "object",
        properties: {
          order_id: { type: "string" },
          amount: { type: "number", exclusiveMinimum: 0 },
          reason: { type: "string", enum: [...REFUND_REASONS] },
        },
        required: ["order_id", "amount", "reason"],
        additionalProperties: false,
      }),
      execute: ({ order_id, amount, reason }) => orders.refundPayment(order_id, amount, reason),
      toModelOutput: asModelText(null),
    }),
    get_current_time: tool({
      description: "The current date and time in a time zone.",
      inputSchema: jsonSchema<{ timezone: string }>({
        type: "object",
        properties: { timezone: { type: "string", description: "IANA time zone" } },
        required: ["timezone"],
        additionalProperties: false,
      }),
      execute: ({ timezone }) => orders.currentTime(timezone),
      toModelOutput: asModelText({ iso: "", timezone: "" }),
    }),
  };
}

type WireMessage = { role?: unknown; tool_call_id?: unknown; tool_calls?: unknown; name?: unknown };

/** The request as the agent sends it: each tool message names its tool, as Chat Completions allows. */
export function nameToolMessages(body: Record<string, unknown>): Record<string, unknown> {
  if (!Array.isArray(body.messages)) return body;
  const names = new Map<unknown, unknown>();
  const messages = (body.messages as WireMessage[]).map((message) => {
    if (Array.isArray(message.tool_calls))
      for (const call of message.tool_calls as { id?: unknown; function?: { name?: unknown } }[])
        names.set(call.id, call.function?.name);
    const name = message.role === "tool" ? names.get(message.tool_call_id) : undefined;
    return typeof name === "string" && message.name === undefined ? { ...message, name } : message;
  });
  return { ...body, messages };
}

/** A tool call the replay refused (its policy's `fail`): the run ends with it, as the contract asks. */
function replayRefusal(steps: readonly StepResult<ToolSet>[]): ReplayToolError | null {
  for (const step of steps)
    for (const part of step.content)
      if (part.type === "tool-error" && part.error instanceof ReplayToolError) return part.error;
  return null;
}

/** The customer: agrees when the agent asks whether to go ahead, and says nothing more otherwise. */
export function customerReply(agentText: string): string | null {
  return /\b(shall|should|may) I (go ahead|proceed)\?\s*$/i.test(agentText.trim()) ? GO_AHEAD : null;
}

export interface RefundAgentOptions {
  /** The model's OpenAI-compatible base URL and key (under a replay: its OPENAI_BASE_URL and token). */
  baseURL: string;
  apiKey: string;
  /** The replay whose tool-call contract the tools ask first; null: run the tools directly. */
  replay: AgentReplayClient | null;
  orders: OrderSystem;
  /** The customer's first message (default: the recorded one). */
  firstMessage?: string;
  log?: (line: string) => void;
}

/** One conversation with the customer; its last answer is the run's final output. */
export async function runRefundAgent(options: RefundAgentOptions): Promise<{ finalOutput: string }> {
  const log = options.log ?? (() => {});
  const model = createOpenAICompatible({
    name: "openai",
    baseURL: options.baseURL,
    apiKey: options.apiKey,
    transformRequestBody: nameToolMessages,
  })(MODEL);
  const own = refundTools(options.orders);
  const tools = options.replay ? withBranchpointTools(own, { client: options.replay }) : own;
  const first = options.firstMessage ?? FIRST_MESSAGE;
  log(`customer: ${first}`);
  const messages: ModelMessage[] = [{ role: "user", content: first }];
  for (let turn = 0; turn < MAX_TURNS; turn++) {
    const result = await generateText({
      model,
      system: SYSTEM,
      messages,
      tools,
      toolOrder: [...TOOL_ORDER],
      // One at a time, in the model's order, so the branch's steps come in the recording's order.
      toolCallConcurrency: 1,
      temperature: 0.2,
      maxRetries: 0,
      stopWhen: [stepCountIs(MAX_STEPS_PER_TURN), ({ steps }) => replayRefusal(steps.slice(-1)) !== null],
      onStepFinish: (step) => {
        for (const call of step.toolCalls) log(`  ${call.toolName}(${JSON.stringify(call.input)})`);
      },
    });
    const refused = replayRefusal(result.steps);
    if (refused) throw refused;
    messages.push(...result.responseMessages);
    log(`agent: ${result.text}`);
    const reply = customerReply(result.text);
    if (reply === null) return { finalOutput: result.text };
    log(`customer: ${reply}`);
    messages.push({ role: "user", content: reply });
  }
  throw new Error(`The conversation did not end in ${MAX_TURNS} turns.`);
}

/** `{origin}/replays/{id}/compare` from BRANCHPOINT_REPLAY_URL (`{origin}/api/v1/replays/{id}`). */
export function compareUrl(replayUrl: string): string {
  return replayUrl.replace(/\/+$/, "").replace(/\/api\/v1\/replays\/([^/]+)$/, "/replays/$1/compare");
}

/** Ends the replay with the run's outcome: through the CLI's file when the CLI runs the agent, else itself. */
async function endReplay(outcome: { finalOutput: string } | { error: unknown }, env: NodeJS.ProcessEnv) {
  const file = env.BRANCHPOINT_FINAL_OUTPUT_FILE;
  if (file) {
    if ("finalOutput" in outcome) await writeFile(file, JSON.stringify(outcome.finalOutput));
    return;
  }
  const replay = new AgentReplayClient();
  await replay.finish("finalOutput" in outcome ? outcome : { error: outcome.error as Error });
  process.stderr.write(`refund agent: replay finished; compare: ${compareUrl(env.BRANCHPOINT_REPLAY_URL!)}\n`);
}

export async function main(argv: readonly string[], env: NodeJS.ProcessEnv = process.env): Promise<number> {
  const underReplay = AgentReplayClient.inEnvironment();
  if (!env.OPENAI_BASE_URL || !env.OPENAI_API_KEY) {
    process.stderr.write(
      "refund agent: set OPENAI_BASE_URL and OPENAI_API_KEY: the variables “Run with my agent” prints (or run it under `branchpoint replay`), or a model of your own such as the scripted one (npx tsx scripts/scripted-model.ts 8099, then OPENAI_BASE_URL=http://127.0.0.1:8099/v1 OPENAI_API_KEY=none).\n",
    );
    return 2;
  }
  const orders = harborPineOrders();
  const log = (line: string) => process.stderr.write(`${line}\n`);
  const options = {
    baseURL: env.OPENAI_BASE_URL,
    apiKey: env.OPENAI_API_KEY,
    replay: underReplay ? new AgentReplayClient() : null,
    orders,
    log,
    ...(argv[0] ? { firstMessage: argv[0] } : {}),
  };
  let outcome: { finalOutput: string } | { error: unknown };
  try {
    outcome = await runRefundAgent(options);
  } catch (error) {
    outcome = { error };
  }
  log(`tool bodies run: ${orders.calls.length}${orders.calls.length > 0 ? ` (${orders.calls.join(", ")})` : ""}`);
  if (underReplay) await endReplay(outcome, env);
  if ("error" in outcome) {
    log(`refund agent: ${outcome.error instanceof Error ? outcome.error.message : String(outcome.error)}`);
    return 1;
  }
  process.stdout.write(`${outcome.finalOutput}\n`);
  return 0;
}

if (isMain(import.meta.url)) {
  main(process.argv.slice(2)).then(
    (code) => process.exit(code),
    (error: unknown) => {
      process.stderr.write(`refund agent: ${error instanceof Error ? error.message : String(error)}\n`);
      process.exit(2);
    },
  );
}
