/**
 * For the agent-driven replay tests: `startAgentTestApp()` (a PGlite database, an admin API key, the recorded
 * chat session imported, and a real HTTP server in front of the route handlers: the agent endpoints, the MCP
 * proxy, starting a replay, fixtures, approvals, the executors a test registers), and a small agent loop on
 * the real `openai` client that asks the tool-call contract before each tool. Never used by the app.
 */
import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import OpenAI from "openai";
import { createApiKey, type Database } from "@/lib/db";
import { createTestDatabase, type TestDatabase } from "@/lib/db/testing";
import type { Policy } from "@/lib/replay";
import type { AgentAccess } from "@/lib/server/agent/agent-access";
import { localAdmin } from "@/lib/server/principal";
import { importSession } from "@/lib/server/testing";
import { POST as startReplay } from "@/app/api/v1/replays/route";
import { GET as getReplay } from "@/app/api/v1/replays/[id]/route";
import { POST as fixtures } from "@/app/api/v1/replays/[id]/fixtures/route";
import { POST as approvals } from "@/app/api/v1/replays/[id]/approvals/route";
import { POST as chat } from "@/app/api/v1/replays/[id]/agent/openai/chat/completions/route";
import { GET as models } from "@/app/api/v1/replays/[id]/agent/openai/models/route";
import { POST as responses } from "@/app/api/v1/replays/[id]/agent/openai/responses/route";
import { POST as messages } from "@/app/api/v1/replays/[id]/agent/anthropic/v1/messages/route";
import { POST as toolCalls } from "@/app/api/v1/replays/[id]/agent/tool-calls/route";
import { POST as toolResult } from "@/app/api/v1/replays/[id]/agent/tool-calls/[callId]/result/route";
import { POST as finish } from "@/app/api/v1/replays/[id]/agent/finish/route";
import { DELETE as mcpDelete, GET as mcpGet, POST as mcpPost } from "@/app/api/v1/replays/[id]/agent/mcp/route";
import { GET as listMcp, POST as registerMcp } from "@/app/api/v1/executors/mcp/route";
import { DELETE as removeMcp } from "@/app/api/v1/executors/mcp/[id]/route";
import { POST as addHost } from "@/app/api/v1/executors/allowed-hosts/route";
import { POST as addModel } from "@/app/api/v1/executors/models/route";
import { POST as agentsTraces } from "@/app/v1/traces/ingest/route";

type Handler = (request: Request, context: { params: Promise<Record<string, string>> }) => Promise<Response>;
const ROUTES: [string, RegExp, Handler][] = [
  ["POST", /^\/api\/v1\/replays$/, startReplay as Handler],
  ["GET", /^\/api\/v1\/replays\/(?<id>[^/]+)$/, getReplay as Handler],
  ["POST", /^\/api\/v1\/replays\/(?<id>[^/]+)\/fixtures$/, fixtures as Handler],
  ["POST", /^\/api\/v1\/replays\/(?<id>[^/]+)\/approvals$/, approvals as Handler],
  ["POST", /^\/api\/v1\/replays\/(?<id>[^/]+)\/agent\/openai\/chat\/completions$/, chat as Handler],
  ["GET", /^\/api\/v1\/replays\/(?<id>[^/]+)\/agent\/openai\/models$/, models as Handler],
  ["POST", /^\/api\/v1\/replays\/(?<id>[^/]+)\/agent\/openai\/responses$/, responses as Handler],
  ["POST", /^\/api\/v1\/replays\/(?<id>[^/]+)\/agent\/anthropic\/v1\/messages$/, messages as Handler],
  ["POST", /^\/api\/v1\/replays\/(?<id>[^/]+)\/agent\/tool-calls$/, toolCalls as Handler],
  ["POST", /^\/api\/v1\/replays\/(?<id>[^/]+)\/agent\/tool-calls\/(?<callId>[^/]+)\/result$/, toolResult as Handler],
  ["POST", /^\/api\/v1\/replays\/(?<id>[^/]+)\/agent\/finish$/, finish as Handler],
  ["POST", /^\/api\/v1\/replays\/(?<id>[^/]+)\/agent\/mcp$/, mcpPost as Handler],
  ["GET", /^\/api\/v1\/replays\/(?<id>[^/]+)\/agent\/mcp$/, mcpGet as Handler],
  ["DELETE", /^\/api\/v1\/replays\/(?<id>[^/]+)\/agent\/mcp$/, mcpDelete as Handler],
  ["GET", /^\/api\/v1\/executors\/mcp$/, listMcp as Handler],
  ["POST", /^\/api\/v1\/executors\/mcp$/, registerMcp as Handler],
  ["DELETE", /^\/api\/v1\/executors\/mcp\/(?<id>[^/]+)$/, removeMcp as Handler],
  ["POST", /^\/api\/v1\/executors\/allowed-hosts$/, addHost as Handler],
  ["POST", /^\/api\/v1\/executors\/models$/, addModel as Handler],
  ["POST", /^\/v1\/traces\/ingest$/, agentsTraces as Handler],
];

async function bodyOf(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

/** Starts the server on a free local port; `base` is its origin. */
export async function startAppServer(): Promise<{ base: string; server: Server }> {
  const server = createServer((req, res) => {
    void (async () => {
      const url = new URL(req.url ?? "/", `http://${req.headers.host}`);
      const found = ROUTES.find(([method, path]) => method === req.method && path.test(url.pathname));
      if (!found) {
        res.writeHead(404).end();
        return;
      }
      const params = decodeParams(found[1].exec(url.pathname)!.groups ?? {});
      const body = req.method === "GET" ? undefined : new Uint8Array(await bodyOf(req));
      const headers = new Headers();
      for (const [k, v] of Object.entries(req.headers)) if (typeof v === "string") headers.set(k, v);
      const response = await found[2](new Request(url, { method: req.method, headers, body }), {
        params: Promise.resolve(params),
      });
      res.writeHead(response.status, Object.fromEntries(response.headers.entries()));
      const reader = response.body?.getReader();
      for (let part = await reader?.read(); part && !part.done; part = await reader!.read()) res.write(part.value);
      res.end();
    })().catch((error: unknown) => {
      console.error(error);
      res.writeHead(500).end();
    });
  });
  // Longer than any pause between two calls on a busy machine: a client reusing a socket the server has just
  // closed for idling fails with "other side closed".
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { base: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server };
}

function decodeParams(groups: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(groups).map(([k, v]) => [k, decodeURIComponent(v)]));
}

export const TOOLS = [
  {
    type: "function" as const,
    function: {
      name: "lookup_order",
      description: "Look an order up",
      parameters: { type: "object", properties: { orderId: { type: "string" } }, required: ["orderId"] },
    },
  },
  {
    type: "function" as const,
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

export const SYSTEM = "You are the refund agent of Harbor & Pine.";
export const ASK = "Please refund order 4821.";

/** The recorded session, as a Chat Completions log: look the order up, refund it, say so. */
export const CHAT_LOG = JSON.stringify({
  model: "gpt-4o-mini",
  tools: TOOLS,
  messages: [
    { role: "system", content: SYSTEM },
    { role: "user", content: ASK },
    {
      role: "assistant",
      content: null,
      tool_calls: [
        { id: "call_1", type: "function", function: { name: "lookup_order", arguments: '{"orderId":"4821"}' } },
      ],
    },
    { role: "tool", tool_call_id: "call_1", content: '{"status":"delivered","amount":42}' },
    {
      role: "assistant",
      content: null,
      tool_calls: [
        { id: "call_2", type: "function", function: { name: "refund", arguments: '{"orderId":"4821","amount":42}' } },
      ],
    },
    { role: "tool", tool_call_id: "call_2", content: '{"refunded":true}' },
    { role: "assistant", content: "Order 4821 is refunded ($42)." },
  ],
});

/** The agent's real tools: each run counts (a re-run under a recorded policy must run none). */
export function realTools() {
  const executions: string[] = [];
  const run = (name: string, args: Record<string, unknown>): string => {
    executions.push(name);
    if (name === "lookup_order") return JSON.stringify({ status: "delivered", amount: 42, live: true });
    if (name === "refund") return JSON.stringify({ refunded: true, amount: args.amount, live: true });
    throw new Error(`no tool ${name}`);
  };
  return { executions, run };
}

/** The agent's access as a replay's answer gives it, read back from JSON. */
export type AgentAccessJson = AgentAccess;

/** What the agent declares when a test starts its replay: it applies the contract's answers. */
export const TEST_AGENT = {
  adapter: "test-openai-loop",
  version: "1.0.0",
  command: "node agent.js",
  capabilities: ["tool_policies"],
};

export interface AgentTestApp {
  db: TestDatabase;
  /** The server's origin. */
  base: string;
  /** An admin API key. */
  key: string;
  /** The imported recording (CHAT_LOG unless the test passed another). */
  sessionId: string;
  /** A JSON request with the API key. */
  api(path: string, init?: { method?: string; body?: unknown }): Promise<Response>;
  /**
   * Starts an agent-driven replay of `sessionId` (default: the imported one); `agent` is what the agent
   * declares (null: nothing), `extra` more fields of the request. Throws unless it answers 201.
   */
  start(
    policy: Policy,
    options?: { agent?: Record<string, unknown> | null; sessionId?: string; extra?: Record<string, unknown> },
  ): Promise<{ replay: { id: string; status: string; driver: string }; agent: AgentAccessJson }>;
  /** The stored replay row's outcome. */
  row(id: string): Promise<{
    status: string;
    comparability: string | null;
    stepCount: number;
    evidence: unknown;
    error: unknown;
    agentTokenHash: string | null;
  }>;
  /** The branch's steps as `kind:source`, in order. */
  steps(id: string): Promise<string[]>;
  close(): Promise<void>;
}

/**
 * The set-up every agent-driven test file shares: a fresh PGlite database (made the one the route handlers
 * open), an admin API key, `recording` imported (default: CHAT_LOG), and the route handlers behind a real
 * local HTTP server. `close()` stops the server and drops the database.
 */
export async function startAgentTestApp(recording: string = CHAT_LOG): Promise<AgentTestApp> {
  const db = await createTestDatabase("pglite");
  (globalThis as unknown as { __branchpointDb?: Promise<Database> }).__branchpointDb = Promise.resolve(db);
  const key = (await createApiKey(db.prisma, "tests")).key;
  const sessionId = await importSession(db.prisma, localAdmin("tester"), recording);
  const { base, server } = await startAppServer();
  const api: AgentTestApp["api"] = (path, init = {}) =>
    fetch(`${base}${path}`, {
      method: init.method ?? "GET",
      headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
      ...(init.body !== undefined ? { body: JSON.stringify(init.body) } : {}),
    });
  return {
    db,
    base,
    key,
    sessionId,
    api,
    async start(policy, options = {}) {
      const agent = options.agent === undefined ? TEST_AGENT : options.agent;
      const response = await api("/api/v1/replays", {
        method: "POST",
        body: {
          sessionId: options.sessionId ?? sessionId,
          policy,
          driver: "agent",
          ...(agent ? { agent } : {}),
          ...options.extra,
        },
      });
      const json = (await response.json()) as Awaited<ReturnType<AgentTestApp["start"]>>;
      if (response.status !== 201)
        throw new Error(`starting the replay answered ${response.status}: ${JSON.stringify(json)}`);
      return json;
    },
    row: (id) =>
      db.prisma.replay.findUniqueOrThrow({
        where: { id },
        select: {
          status: true,
          comparability: true,
          stepCount: true,
          evidence: true,
          error: true,
          agentTokenHash: true,
        },
      }),
    steps: async (id) =>
      (await db.prisma.replayStep.findMany({ where: { replayId: id }, orderBy: { idx: "asc" } })).map(
        (s) => `${s.kind}:${s.source}`,
      ),
    async close() {
      await new Promise((resolve) => server.close(resolve));
      await db.drop();
    },
  };
}

/** POSTs JSON with the token. */
export function post(url: string, token: string, body: unknown): Promise<Response> {
  return fetch(url, {
    method: "POST",
    headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
    body: JSON.stringify(body),
  });
}

/**
 * One tool call through the contract, as an adapter makes it: asks, waits while told to wait, runs the tool
 * itself when told to execute (posting its result), and returns the tool message's text.
 */
export async function answerToolCall(
  agent: AgentAccessJson,
  tools: ReturnType<typeof realTools>,
  name: string,
  args: Record<string, unknown>,
  callId: string,
  onWait?: (answer: Record<string, unknown>) => Promise<void>,
  omitCallId = false,
): Promise<string> {
  let answer: Record<string, unknown>;
  for (;;) {
    const response = await post(agent.toolCallsUrl, agent.token, {
      tool: name,
      args,
      ...(omitCallId ? {} : { callId }),
    });
    answer = (await response.json()) as Record<string, unknown>;
    if (answer.action !== "wait") break;
    await onWait?.(answer);
  }
  if (answer.action === "return")
    return typeof answer.output === "string" ? answer.output : JSON.stringify(answer.output);
  if (answer.action === "execute") {
    const content = tools.run(name, args);
    const handed = String(answer.callId);
    await post(`${agent.toolCallsUrl}/${encodeURIComponent(handed)}/result`, agent.token, { output: content });
    return content;
  }
  throw new Error(`the contract refused ${name}: ${JSON.stringify(answer)}`);
}

/**
 * The agent under test: the real `openai` client's chat loop, asking the contract before each tool (waiting
 * while it says wait, running the tool itself when it says execute). Returns its final text.
 */
export async function runAgent(
  agent: AgentAccessJson,
  tools: ReturnType<typeof realTools>,
  opts: {
    stream?: boolean;
    onWait?: (answer: Record<string, unknown>) => Promise<void>;
    /** Ask the contract without the model's call ids, as an MCP client or a plain script does. */
    omitCallId?: boolean;
  } = {},
): Promise<string | null> {
  const client = new OpenAI({ apiKey: agent.token, baseURL: agent.openaiBaseUrl, maxRetries: 0 });
  const messages: OpenAI.Chat.ChatCompletionMessageParam[] = [
    { role: "system", content: SYSTEM },
    { role: "user", content: ASK },
  ];
  for (let turn = 0; turn < 10; turn++) {
    const message = opts.stream
      ? (await client.chat.completions.stream({ model: "gpt-4o-mini", messages, tools: TOOLS }).finalChatCompletion())
          .choices[0]!.message
      : (await client.chat.completions.create({ model: "gpt-4o-mini", messages, tools: TOOLS })).choices[0]!.message;
    const calls = (message.tool_calls ?? []).filter((c) => c.type === "function");
    messages.push({ role: "assistant", content: message.content, ...(calls.length > 0 ? { tool_calls: calls } : {}) });
    if (calls.length === 0) return message.content;
    for (const call of calls) {
      const args = JSON.parse(call.function.arguments) as Record<string, unknown>;
      const content = await answerToolCall(
        agent,
        tools,
        call.function.name,
        args,
        call.id,
        opts.onWait,
        opts.omitCallId,
      );
      messages.push({ role: "tool", tool_call_id: call.id, content });
    }
  }
  throw new Error("the agent did not finish in 10 turns");
}

/** The refund agent on the Responses API: the `openai` client's responses.create (or stream), a tool loop of its own. */
export async function runAgentOnResponses(
  agent: AgentAccessJson,
  tools: ReturnType<typeof realTools>,
  stream: boolean,
) {
  const client = new OpenAI({ apiKey: agent.token, baseURL: agent.openaiBaseUrl, maxRetries: 0 });
  const input: OpenAI.Responses.ResponseInputItem[] = [{ role: "user", content: ASK }];
  const fnTools = TOOLS.map((t) => ({ type: "function" as const, strict: false, ...t.function }));
  for (let turn = 0; turn < 10; turn++) {
    const request = { model: "gpt-4o-mini", instructions: SYSTEM, input, tools: fnTools };
    const response = stream
      ? await client.responses.stream(request).finalResponse()
      : await client.responses.create(request);
    const calls = response.output.filter(
      (item) => item.type === "function_call",
    ) as OpenAI.Responses.ResponseFunctionToolCall[];
    if (calls.length === 0) return response.output_text;
    for (const call of calls) {
      input.push({ type: "function_call", call_id: call.call_id, name: call.name, arguments: call.arguments });
      const args = JSON.parse(call.arguments) as Record<string, unknown>;
      const output = await answerToolCall(agent, tools, call.name, args, call.call_id);
      input.push({ type: "function_call_output", call_id: call.call_id, output });
    }
  }
  throw new Error("the agent did not finish in 10 turns");
}
