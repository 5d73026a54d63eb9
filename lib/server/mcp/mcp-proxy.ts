/**
 * The MCP proxy of an agent-driven replay (`mcpUrl`): the agent's MCP client lists tools and calls them here.
 *
 * The upstream: the registered MCP server the policy names in `mcpServer`; without one, the only registered
 * server; with none (or several and no name), no upstream. `tools/list` is the upstream's list, or, without an
 * upstream, the recording's tool definitions, as long as the policy runs no tool live (a passthrough rule or
 * `on_miss: passthrough` needs an upstream, and is refused without one).
 *
 * `tools/call` asks the tool-call contract's one operation (`agentToolCall`, the engine's one resolver under the
 * branch's per-tool policy), as the proxy intercepting the call: `return` answers the recorded, static,
 * fixture, simulated or error result as MCP content; `execute` (passthrough) runs the tool on the upstream and
 * posts its result through the contract's result path, so the branch records it; `fail` is an MCP error naming
 * the code; `wait` (a fixture or an approval) is held open, asking again, for up to a bound, then an MCP error
 * saying what the branch waits for (call the tool again once it is supplied).
 */
import type { CallToolResult, Tool } from "@modelcontextprotocol/sdk/types.js";
import type { Db } from "@/lib/db";
import { allowedHosts, listMcpServers } from "@/lib/db/executors";
import { mcpReplayRow, recordedToolSources } from "@/lib/db/mcp-proxy";
import { AppError, notFound } from "@/lib/errors";
import { ExecutorError } from "@/lib/executors/live";
import { callUpstreamTool, listUpstreamTools, type McpUpstream } from "@/lib/executors/mcp-upstream";
import type { Resolver } from "@/lib/executors/outbound";
import { Policy } from "@/lib/replay";
import type { Principal } from "../principal";
import { agentOnly } from "../agent/agent-access";
import { agentToolCall, agentToolResult, ToolCallRequestBody, type ToolCallAnswer } from "../agent/agent-tools";
import { mcpResultOf, recordedTools, stepAnswerOf } from "./mcp-tools";

/** A refusal the MCP client gets as a JSON-RPC error: `rpcCode` is the JSON-RPC code, `code` ours. */
export class McpRefusal extends Error {
  override name = "McpRefusal";
  constructor(
    readonly rpcCode: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

/** JSON-RPC codes: the standard "invalid params" for an unknown tool; server-defined ones for our refusals. */
export const RPC = { invalidParams: -32602, toolFailed: -32010, waiting: -32011, noUpstream: -32012 } as const;

/** How long a call the branch answers with `wait` is held open before the client is told to call again. */
export const WAIT_BOUND_MS = 45_000;

export interface McpProxyDeps {
  resolve?: Resolver;
  waitBoundMs?: number;
  /** The client went away: stop waiting. */
  signal?: AbortSignal;
}

/** Whether the policy runs any tool live (then the proxy needs an upstream to run it on). */
export function policyRunsLive(policy: Policy): boolean {
  const rules = [policy.tools.default, ...Object.values(policy.tools.overrides ?? {})];
  return rules.some((r) => r.type === "passthrough" || ("on_miss" in r && r.on_miss === "passthrough"));
}

interface ProxyContext {
  policy: Policy;
  upstream: McpUpstream | null;
  allowed: ReadonlySet<string>;
  sessionId: string;
  agentId: string;
}

async function contextOf(prisma: Db, replayId: string): Promise<ProxyContext> {
  const row = await mcpReplayRow(prisma, replayId);
  if (!row) throw notFound("replay", replayId);
  const policy = Policy.parse(row.policySnapshot);
  const servers = await listMcpServers(prisma);
  let upstream: McpUpstream | null = null;
  if (policy.mcpServer !== undefined) {
    const named = servers.find((s) => s.name === policy.mcpServer);
    if (!named)
      throw new McpRefusal(
        RPC.noUpstream,
        "mcp_server_not_registered",
        `The policy names the MCP server "${policy.mcpServer}", and no MCP server of that name is registered (Settings → Executors${servers.length > 0 ? `; registered: ${servers.map((s) => s.name).join(", ")}` : ""}).`,
      );
    upstream = named;
  } else if (servers.length === 1) upstream = servers[0]!;
  return {
    policy,
    upstream,
    allowed: await allowedHosts(prisma),
    sessionId: row.sessionId,
    agentId: row.session.agentId,
  };
}

function noUpstream(): McpRefusal {
  return new McpRefusal(
    RPC.noUpstream,
    "mcp_upstream_missing",
    "The policy runs tools live (passthrough) and this replay has no upstream MCP server to run them on: register one (POST /api/v1/executors/mcp) and name it in the policy's mcpServer.",
  );
}

function executorRefusal(error: ExecutorError): McpRefusal {
  return new McpRefusal(RPC.noUpstream, `mcp_upstream_${error.code}`, error.message);
}

/** Upstream tool lists by server (name and url), so a call checks its tool without a round trip each time. */
const listed = new Map<string, { at: number; tools: Tool[] }>();
const LIST_TTL_MS = 30_000;

async function toolsOf(prisma: Db, ctx: ProxyContext, resolve?: Resolver, cached = false): Promise<Tool[]> {
  if (ctx.upstream) {
    const key = `${ctx.upstream.name}\n${ctx.upstream.url}`;
    const hit = listed.get(key);
    if (cached && hit && Date.now() - hit.at < LIST_TTL_MS) return hit.tools;
    try {
      const tools = await listUpstreamTools(ctx.upstream, ctx.allowed, resolve);
      if (listed.size >= 100) listed.delete(listed.keys().next().value!);
      listed.set(key, { at: Date.now(), tools });
      return tools;
    } catch (error) {
      if (error instanceof ExecutorError) throw executorRefusal(error);
      throw error;
    }
  }
  if (policyRunsLive(ctx.policy)) throw noUpstream();
  return recordedTools(await recordedToolSources(prisma, ctx.sessionId, ctx.agentId));
}

/** `tools/list`: the upstream's tools, or the recording's when the replay has no upstream and needs none. */
export async function mcpListTools(
  principal: Principal,
  replayId: string,
  prisma: Db,
  deps: McpProxyDeps = {},
): Promise<Tool[]> {
  agentOnly(principal, replayId);
  return toolsOf(prisma, await contextOf(prisma, replayId), deps.resolve);
}

const sleep = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal?.addEventListener("abort", () => (clearTimeout(timer), resolve()), { once: true });
  });

/** Asks the contract, holding a `wait` open (asking again after each retryAfterMs) up to the bound. */
async function answerOf(
  principal: Principal,
  replayId: string,
  body: ToolCallRequestBody,
  prisma: Db,
  deps: McpProxyDeps,
): Promise<Exclude<ToolCallAnswer, { action: "wait" }>> {
  const bound = deps.waitBoundMs ?? WAIT_BOUND_MS;
  const started = Date.now();
  for (;;) {
    const answer = await agentToolCall(principal, replayId, body, prisma, { interceptor: "mcp_proxy" });
    if (answer.action !== "wait") return answer;
    if (Date.now() - started + answer.retryAfterMs > bound || deps.signal?.aborted)
      throw new McpRefusal(
        RPC.waiting,
        answer.waitingFor === "fixture" ? "waiting_for_fixture" : "waiting_for_approval",
        `The branch waits for ${answer.waitingFor === "fixture" ? "a fixture" : "an approval"} for "${body.tool}" (${answer.message}). Supply it on the replay's page, then call the tool again.`,
      );
    await sleep(answer.retryAfterMs, deps.signal);
  }
}

/** Runs a passthrough call on the upstream and records its result through the contract's result path. */
async function executeUpstream(
  principal: Principal,
  replayId: string,
  ctx: ProxyContext,
  call: { name: string; arguments: Record<string, unknown>; callId: string },
  prisma: Db,
  resolve?: Resolver,
): Promise<CallToolResult> {
  const started = Date.now();
  let result: CallToolResult | null = null;
  let stored: { output: unknown } | { error: { type: string; message: string } };
  if (!ctx.upstream) stored = { error: { type: "McpNoUpstream", message: noUpstream().message } };
  else
    try {
      result = await callUpstreamTool(
        ctx.upstream,
        ctx.allowed,
        { name: call.name, arguments: call.arguments },
        resolve,
      );
      stored = stepAnswerOf(result);
    } catch (error) {
      if (!(error instanceof ExecutorError)) throw error;
      stored = { error: { type: `Mcp_${error.code}`, message: error.message } };
    }
  const answer = await agentToolResult(
    principal,
    replayId,
    call.callId,
    { ...stored, durationMs: Date.now() - started },
    prisma,
  );
  // The branch took the upstream's result: the client gets it as the upstream sent it.
  if (answer.action === "return" && answer.source === "live" && result) return result;
  return renderAnswer(answer);
}

function renderAnswer(answer: ToolCallAnswer): CallToolResult {
  if (answer.action === "return") return mcpResultOf(answer.output, answer.error);
  if (answer.action === "fail") throw new McpRefusal(RPC.toolFailed, answer.code, `${answer.code}: ${answer.message}`);
  throw new AppError("internal_error", `The tool call was answered "${answer.action}" after its result was recorded.`);
}

/** `tools/call`: one tool call of the agent, resolved under the branch's policy (see the top of this file). */
export async function mcpCallTool(
  principal: Principal,
  replayId: string,
  params: { name: string; arguments?: Record<string, unknown> },
  prisma: Db,
  deps: McpProxyDeps = {},
): Promise<CallToolResult> {
  agentOnly(principal, replayId);
  const ctx = await contextOf(prisma, replayId);
  // The tool must be one the replay lists (the upstream's list as read in the last 30 s, or the recording's).
  const tools = await toolsOf(prisma, ctx, deps.resolve, true);
  if (!tools.some((t) => t.name === params.name))
    throw new McpRefusal(
      RPC.invalidParams,
      "unknown_tool",
      `Unknown tool "${params.name.slice(0, 200)}": this replay's tools are ${tools.map((t) => `"${t.name}"`).join(", ") || "none"}.`,
    );
  const parsed = ToolCallRequestBody.safeParse({ tool: params.name, args: params.arguments ?? {} });
  if (!parsed.success)
    throw new McpRefusal(
      RPC.invalidParams,
      "invalid_input",
      `The tool call is not valid: ${parsed.error.issues.map((i) => `${i.path.join(".") || "call"}: ${i.message}`).join("; ")}`,
    );
  const answer = await answerOf(principal, replayId, parsed.data, prisma, deps);
  if (answer.action !== "execute") return renderAnswer(answer);
  return executeUpstream(
    principal,
    replayId,
    ctx,
    { name: params.name, arguments: params.arguments ?? {}, callId: answer.callId },
    prisma,
    deps.resolve,
  );
}
