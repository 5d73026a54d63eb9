/**
 * The MCP proxy end to end: a real upstream MCP server (the SDK's McpServer on a local streamable HTTP port,
 * whose tools count their executions), registered through the executors API, and the SDK's own Client with
 * StreamableHTTPClientTransport driving an agent-driven replay's `mcpUrl` over real HTTP.
 */
import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { McpError } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { toolLevelPreset, type Policy } from "@/lib/replay";
import { localAdmin } from "@/lib/server/principal";
import { mcpCallTool, type McpRefusal } from "@/lib/server/mcp/mcp-proxy";
import { removeExecutor } from "@/lib/server/executors/executors-admin";
import { startAgentTestApp, type AgentTestApp } from "../testing";

async function bodyOf(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

/** The customer's real MCP server: the recorded agent's two tools, each execution counted. */
async function startUpstream(): Promise<{ url: string; server: Server; executions: string[] }> {
  const executions: string[] = [];
  const build = () => {
    const mcp = new McpServer({ name: "orders", version: "1.0.0" });
    mcp.registerTool(
      "lookup_order",
      { description: "Look an order up", inputSchema: { orderId: z.string() } },
      ({ orderId }) => {
        executions.push("lookup_order");
        return { content: [{ type: "text", text: JSON.stringify({ orderId, status: "delivered", live: true }) }] };
      },
    );
    mcp.registerTool(
      "refund",
      { description: "Refund an order", inputSchema: { orderId: z.string(), amount: z.number() } },
      () => {
        executions.push("refund");
        return { content: [{ type: "text", text: JSON.stringify({ refunded: true, live: true }) }] };
      },
    );
    return mcp;
  };
  const server = createServer((req, res) => {
    void (async () => {
      if (req.method !== "POST") return void res.writeHead(405).end();
      const mcp = build();
      const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
      res.on("close", () => void transport.close().then(() => mcp.close()));
      await mcp.connect(transport);
      await transport.handleRequest(req, res, JSON.parse((await bodyOf(req)).toString("utf8")) as unknown);
    })();
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`, server, executions };
}

const RECORDED: Policy = {
  model: "recorded-only",
  drift: "continue_to_terminal",
  tools: toolLevelPreset("recorded-only"),
};

describe("the MCP proxy of an agent-driven replay (pglite)", () => {
  let app: AgentTestApp;
  let db: AgentTestApp["db"];
  let upstream: Awaited<ReturnType<typeof startUpstream>>;

  beforeAll(async () => {
    app = await startAgentTestApp();
    db = app.db;
    upstream = await startUpstream();
  }, 400_000);

  afterAll(async () => {
    await new Promise((resolve) => upstream.server.close(resolve));
    await app.close();
  });

  const api = (path: string, init: { method?: string; body?: unknown } = {}) => app.api(path, init);
  const start = (policy: Policy) => app.start(policy, { agent: null });

  async function connect(agent: { token: string; mcpUrl: string }): Promise<Client> {
    const client = new Client({ name: "test-agent", version: "1.0.0" });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(agent.mcpUrl), {
        requestInit: { headers: { authorization: `Bearer ${agent.token}` } },
      }),
    );
    return client;
  }

  const written = async (replayId: string) => ({
    steps: await db.prisma.replayStep.count({ where: { replayId } }),
    log: await db.prisma.replayLogEntry.count({ where: { replayId } }),
    replay: await db.prisma.replay.findUniqueOrThrow({ where: { id: replayId }, select: { status: true } }),
  });

  it("registers an upstream on the allow-list, audited, and refuses one off it, writing nothing", async () => {
    const before = { servers: await db.prisma.mcpServer.count(), audit: await db.prisma.auditEvent.count() };
    const refused = await api("/api/v1/executors/mcp", {
      method: "POST",
      body: { name: "orders", url: upstream.url },
    });
    expect([refused.status, ((await refused.json()) as { error: { message: string } }).error.message]).toEqual([
      400,
      `The MCP server "orders" cannot be registered: Host "${new URL(upstream.url).host}" is not on the executor allow-list (Settings → Executors). Add its host under Settings → Executors first.`,
    ]);
    const metadata = await api("/api/v1/executors/mcp", {
      method: "POST",
      body: { name: "metadata", url: "http://169.254.169.254/mcp" },
    });
    expect(metadata.status).toBe(400);
    expect({ servers: await db.prisma.mcpServer.count(), audit: await db.prisma.auditEvent.count() }).toEqual(before);

    const host = await api("/api/v1/executors/allowed-hosts", {
      method: "POST",
      body: { host: new URL(upstream.url).host },
    });
    expect(host.status).toBe(201);
    const saved = await api("/api/v1/executors/mcp", { method: "POST", body: { name: "orders", url: upstream.url } });
    expect(saved.status).toBe(201);
    const listed = (await (await api("/api/v1/executors/mcp")).json()) as { servers: unknown[] };
    expect(listed.servers).toEqual([expect.objectContaining({ name: "orders", url: upstream.url, hostAllowed: true })]);
    const audit = await db.prisma.auditEvent.findFirst({
      where: { target: "orders" },
      select: { action: true, detail: true },
    });
    expect(audit).toEqual({
      action: "executor.changed",
      detail: { kind: "mcp", change: "saved", url: upstream.url },
    });
  });

  it("answers a recorded policy from the recording through a real MCP client: the upstream tool runs 0 times", async () => {
    const { replay, agent } = await start({ ...RECORDED, mcpServer: "orders" });
    expect(agent.mcpUrl).toBe(`${app.base}/api/v1/replays/${replay.id}/agent/mcp`);
    const client = await connect(agent);
    const listed = await client.listTools();
    expect(listed.tools.map((t) => [t.name, t.description])).toEqual([
      ["lookup_order", "Look an order up"],
      ["refund", "Refund an order"],
    ]);
    const lookup = await client.callTool({ name: "lookup_order", arguments: { orderId: "4821" } });
    const refund = await client.callTool({ name: "refund", arguments: { orderId: "4821", amount: 42 } });
    await client.close();
    expect([lookup, refund]).toEqual([
      { content: [{ type: "text", text: '{"status":"delivered","amount":42}' }] },
      { content: [{ type: "text", text: '{"refunded":true}' }] },
    ]);
    expect(upstream.executions).toEqual([]);
    const steps = await db.prisma.replayStep.findMany({ where: { replayId: replay.id }, orderBy: { idx: "asc" } });
    expect(steps.map((s) => [s.kind, s.name, s.source, s.output])).toEqual([
      ["tool_call", "lookup_order", "recorded", '{"status":"delivered","amount":42}'],
      ["tool_call", "refund", "recorded", '{"refunded":true}'],
    ]);
  });

  it("forwards a passthrough call to the upstream once (after its approval, held open) and records its result", async () => {
    const { replay, agent } = await start({
      ...RECORDED,
      tools: { default: RECORDED.tools.default, overrides: { lookup_order: { type: "passthrough" } } },
    });
    const client = await connect(agent);
    const call = client.callTool({ name: "lookup_order", arguments: { orderId: "4821" } });
    // A tool not declared read-only waits for an approval; the MCP call is held open meanwhile.
    for (let k = 0; k < 100 && (await written(replay.id)).replay.status !== "awaiting_approval"; k++)
      await new Promise((resolve) => setTimeout(resolve, 50));
    const decided = await api(`/api/v1/replays/${replay.id}/approvals`, {
      method: "POST",
      body: { decision: "approved" },
    });
    expect(decided.status).toBe(200);
    const live = '{"orderId":"4821","status":"delivered","live":true}';
    expect(await call).toEqual({ content: [{ type: "text", text: live }] });
    await client.close();
    expect(upstream.executions).toEqual(["lookup_order"]);
    const steps = await db.prisma.replayStep.findMany({ where: { replayId: replay.id }, orderBy: { idx: "asc" } });
    expect(steps.map((s) => [s.kind, s.name, s.source, s.output])).toEqual([
      ["tool_call", "lookup_order", "live", live],
    ]);
    upstream.executions.length = 0;
  });

  it("lists the recording's tools when no upstream is named, and refuses a live policy without one", async () => {
    // Two registered servers and no mcpServer in the policy: the replay has no upstream.
    const second = await api("/api/v1/executors/mcp", { method: "POST", body: { name: "spare", url: upstream.url } });
    expect(second.status).toBe(201);
    const { agent } = await start(RECORDED);
    const client = await connect(agent);
    expect((await client.listTools()).tools).toEqual([
      {
        name: "lookup_order",
        description: "Look an order up",
        inputSchema: { type: "object", properties: { orderId: { type: "string" } }, required: ["orderId"] },
      },
      {
        name: "refund",
        description: "Refund an order",
        inputSchema: {
          type: "object",
          properties: { orderId: { type: "string" }, amount: { type: "number" } },
          required: ["orderId", "amount"],
        },
      },
    ]);
    expect(await client.callTool({ name: "lookup_order", arguments: { orderId: "4821" } })).toEqual({
      content: [{ type: "text", text: '{"status":"delivered","amount":42}' }],
    });
    await client.close();

    const live = await start({ ...RECORDED, tools: { default: { type: "passthrough" } } });
    const liveClient = await connect(live.agent);
    const refused = await liveClient.listTools().catch((e: unknown) => e);
    await liveClient.close();
    expect([(refused as McpError).code, (refused as McpError).data]).toEqual([
      -32012,
      { code: "mcp_upstream_missing" },
    ]);
    expect(await written(live.replay.id)).toEqual({ steps: 0, log: 0, replay: { status: "waiting_for_agent" } });
    expect(upstream.executions).toEqual([]);
    const spare = await db.prisma.mcpServer.findUniqueOrThrow({ where: { name: "spare" } });
    const removed = await api(`/api/v1/executors/mcp/${spare.id}`, { method: "DELETE" });
    expect([removed.status, await db.prisma.mcpServer.count({ where: { name: "spare" } })]).toEqual([200, 0]);
    expect(
      await db.prisma.auditEvent.findFirst({
        where: { target: "spare" },
        orderBy: { createdAt: "desc" },
        select: { action: true, detail: true },
      }),
    ).toEqual({ action: "executor.changed", detail: { kind: "mcp", change: "removed" } });
  });

  it("holds a call that waits for a fixture open up to its bound, then says what the branch waits for", async () => {
    const { replay, agent } = await start({
      ...RECORDED,
      tools: toolLevelPreset("pause-for-fixture"),
      mcpServer: "orders",
    });
    const principal = {
      kind: "replay_token" as const,
      replayId: replay.id,
      userId: null,
      name: "agent",
      role: "viewer" as const,
      readOnly: true,
    };
    const started = Date.now();
    const waited = await mcpCallTool(
      principal,
      replay.id,
      { name: "refund", arguments: { orderId: "9", amount: 1 } },
      db.prisma,
      {
        waitBoundMs: 2500,
      },
    ).catch((e: unknown) => e);
    expect(Date.now() - started).toBeGreaterThanOrEqual(1500);
    expect([(waited as McpRefusal).code, (waited as McpRefusal).message]).toEqual([
      "waiting_for_fixture",
      expect.stringMatching(
        /^The branch waits for a fixture for "refund" \(Waiting for a fixture: .+\)\. Supply it on the replay's page, then call the tool again\.$/,
      ),
    ]);
    expect((await written(replay.id)).replay.status).toBe("paused");
    expect(agent.token).not.toBe("");
  });

  it("refuses hostile input with clear errors and writes nothing", async () => {
    const { replay, agent } = await start({ ...RECORDED, mcpServer: "orders" });
    const other = await start(RECORDED);
    const before = await written(replay.id);
    const raw = (body: string, token = agent.token, method = "POST") =>
      fetch(agent.mcpUrl, {
        method,
        headers: {
          authorization: `Bearer ${token}`,
          "content-type": "application/json",
          accept: "application/json, text/event-stream",
        },
        ...(method === "POST" ? { body } : {}),
      });
    const notJson = await raw("{ not json");
    expect([notJson.status, await notJson.json()]).toEqual([
      400,
      { jsonrpc: "2.0", error: { code: -32700, message: "Parse error: Invalid JSON" }, id: null },
    ]);
    const badName = await raw(JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: 42 } }));
    const badNameJson = (await badName.json()) as { error: { code: number; message: string } };
    expect([badName.status, badNameJson.error.code]).toEqual([200, -32602]);
    expect(badNameJson.error.message).toMatch(
      /^MCP error -32602: Invalid tools\/call request: [^]*"name"[^]*expected string, received number/,
    );
    const unknownMethod = await raw(JSON.stringify({ jsonrpc: "2.0", id: 2, method: "resources/list" }));
    expect(((await unknownMethod.json()) as { error: { code: number } }).error.code).toBe(-32601);

    const client = await connect(agent);
    const unknown = await client.callTool({ name: "delete_everything", arguments: {} }).catch((e: unknown) => e);
    expect(unknown).toBeInstanceOf(McpError);
    expect([(unknown as McpError).code, (unknown as McpError).message]).toEqual([
      -32602,
      'MCP error -32602: Unknown tool "delete_everything": this replay\'s tools are "lookup_order", "refund".',
    ]);
    // A call the recording does not hold: the recorded policy's on_miss fail, named.
    const miss = await client
      .callTool({ name: "refund", arguments: { orderId: "1", amount: 1 } })
      .catch((e: unknown) => e);
    expect((miss as McpError).code).toBe(-32010);
    expect([(miss as McpError).code, (miss as McpError).message, (miss as McpError).data]).toEqual([
      -32010,
      'MCP error -32010: tool_miss_fail: "refund" missed and its rule says on_miss: fail, so the replay stops without executing the tool. No recorded "refund" call has these arguments. Closest recorded "refund" call is seq 3 (arguments differ at amount, orderId).',
      { code: "tool_miss_fail" },
    ]);
    await client.close();

    const foreign = await raw(JSON.stringify({ jsonrpc: "2.0", id: 3, method: "tools/list" }), other.agent.token);
    expect([foreign.status, await foreign.json()]).toEqual([
      403,
      {
        error: {
          code: "forbidden",
          message: "This agent token belongs to another replay; use the token of this replay.",
          issues: [],
        },
      },
    ]);
    const anonymous = await fetch(agent.mcpUrl, { method: "POST", body: "{}" });
    expect(anonymous.status).toBe(401);
    const get = await raw("", agent.token, "GET");
    expect(get.status).toBe(405);
    // Nothing written but the stop the miss made: the branch stopped there (its agent's finish ends it failed).
    expect(await written(replay.id)).toEqual({ ...before, replay: { status: "running" } });
    const { error } = await app.row(replay.id);
    expect(error).toMatchObject({ code: "tool_miss_fail", step: 0 });
    expect(upstream.executions).toEqual([]);
  });
  it("checks the upstream's host again on every use: once off the allow-list, the proxy does not call it", async () => {
    const host = await db.prisma.allowedHost.findUniqueOrThrow({ where: { host: new URL(upstream.url).host } });
    await removeExecutor(localAdmin("admin"), "host", host.id, db.prisma);
    const { agent } = await start({ ...RECORDED, mcpServer: "orders" });
    const client = await connect(agent);
    const refused = await client.listTools().catch((e: unknown) => e);
    await client.close();
    expect([(refused as McpError).code, (refused as McpError).data]).toEqual([
      -32012,
      { code: "mcp_upstream_host_not_allowed" },
    ]);
    expect((refused as McpError).message).toBe(
      `MCP error -32012: Host "${new URL(upstream.url).host}" is not on the executor allow-list (Settings → Executors). The MCP server "orders" was not called.`,
    );
    expect(upstream.executions).toEqual([]);
  });
});
