/**
 * The SDK against the real Branchpoint routes (the app's route handlers behind a real HTTP server, on a
 * PGlite database): the fetch client, the AI SDK wrapper under the real `generateText`, a real Agents SDK
 * tool, and the CLI spawned with tsx running a real agent process.
 */
import { spawn } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { once } from "node:events";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { createOpenAICompatible } from "@ai-sdk/openai-compatible";
import { RunContext, tool as agentsTool } from "@openai/agents";
import { generateText, jsonSchema, stepCountIs, tool } from "ai";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startAgentTestApp, type AgentTestApp } from "@/app/api/v1/replays/[id]/agent/testing";
import { toolLevelPreset, type Policy } from "@/lib/replay";
import { withBranchpointTools } from "./ai-sdk";
import {
  AgentReplayClient,
  BranchpointApiError,
  createAgentReplay,
  RecordedToolError,
  ReplayToolError,
  type CreatedAgentReplay,
} from "./client";
import { withBranchpointAgentTools } from "./openai-agents";

const RECORDED: Policy = {
  model: "recorded-only",
  drift: "continue_to_terminal",
  tools: toolLevelPreset("recorded-only"),
};
const HISTORY_FAIL: Policy = {
  model: "recorded-only",
  drift: "continue_to_terminal",
  tools: { default: { type: "history", scope: "baseline", on_miss: "fail" } },
};
const AGENT = { adapter: "sdk-test", version: "1", command: "vitest", capabilities: ["tool_policies"] };
const SYSTEM = "You are the refund agent of Harbor & Pine.";
const ASK = "Please refund order 4821.";
const RECORDED_LOOKUP = '{"status":"delivered","amount":42}';

describe("the SDK against the real agent-driven replay routes (pglite)", () => {
  let app: AgentTestApp;
  let base: string;
  let key: string;
  let sessionId: string;

  beforeAll(async () => {
    app = await startAgentTestApp();
    ({ base, key, sessionId } = app);
  }, 400_000);
  afterAll(() => app.close());

  const start = (policy: Policy) => createAgentReplay(base, key, { sessionId, policy, agent: AGENT });
  const row = (id: string) => app.row(id);
  const steps = (id: string) => app.steps(id);

  /** Approves the replay's pending call once it waits for it (a side-effecting passthrough waits for one). */
  async function approveWhenPaused(id: string) {
    await expect.poll(async () => (await row(id)).status, { timeout: 20_000 }).toBe("awaiting_approval");
    const decided = await fetch(`${base}/api/v1/replays/${id}/approvals`, {
      method: "POST",
      headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
      body: JSON.stringify({ decision: "approved" }),
    });
    expect(decided.status).toBe(200);
  }

  type ExecuteOptions = Parameters<NonNullable<ReturnType<typeof aiTools>["tools"]["lookup_order"]["execute"]>>[1];

  /** The agent's real tools for the AI SDK, counting every execution. */
  function aiTools() {
    const executions: string[] = [];
    const tools = {
      lookup_order: tool({
        description: "Look an order up",
        inputSchema: jsonSchema<{ orderId: string }>({
          type: "object",
          properties: { orderId: { type: "string" } },
          required: ["orderId"],
        }),
        execute: ({ orderId }) => {
          executions.push("lookup_order");
          return JSON.stringify({ status: "delivered", amount: 42, live: true, orderId });
        },
      }),
      refund: tool({
        description: "Refund an order",
        inputSchema: jsonSchema<{ orderId: string; amount: number }>({
          type: "object",
          properties: { orderId: { type: "string" }, amount: { type: "number" } },
          required: ["orderId", "amount"],
        }),
        execute: () => {
          executions.push("refund");
          return JSON.stringify({ refunded: true, live: true });
        },
      }),
    };
    return { executions, tools };
  }

  it("client: returns recorded outputs, fails a miss with its code, refuses a bad key, finishes", async () => {
    await expect(createAgentReplay(base, "not-a-key", { sessionId, policy: RECORDED })).rejects.toMatchObject({
      name: "BranchpointApiError",
      status: 401,
    });
    await expect(createAgentReplay(base, key, { sessionId: "no-such-session", policy: RECORDED })).rejects.toSatisfy(
      (e) => e instanceof BranchpointApiError && e.status === 404,
    );
    const created = await start(HISTORY_FAIL);
    expect(created.replay.status).toBe("waiting_for_agent");
    const client = AgentReplayClient.fromCreated(created);
    let ran = 0;
    const run = () => ++ran;
    expect(await client.callTool("lookup_order", { orderId: "4821" }, { callId: "call_1", run })).toBe(RECORDED_LOOKUP);
    const miss = await client.callTool("lookup_order", { orderId: "9999" }, { run }).catch((e: unknown) => e);
    expect(miss).toBeInstanceOf(ReplayToolError);
    expect(miss).toMatchObject({ code: "tool_miss_fail", tool: "lookup_order" });
    expect(ran).toBe(0);
    await client.finish({ error: miss as Error });
    // The refusal stopped the branch: it ends failed with the refusal's code, at the step it stopped.
    expect(await row(created.replay.id)).toMatchObject({
      status: "failed",
      error: { code: "tool_miss_fail", step: 1 },
    });
    // The token is closed with the replay.
    await expect(client.callTool("lookup_order", { orderId: "4821" })).rejects.toMatchObject({ status: 403 });
  }, 60_000);

  it("client: runs a passthrough call itself and reports the result; waits for a fixture, then returns it", async () => {
    const live = await start({ ...RECORDED, tools: { default: { type: "passthrough" } } });
    const client = AgentReplayClient.fromCreated(live);
    const waitedFor: (string | undefined)[] = [];
    const [output] = await Promise.all([
      client.callTool(
        "lookup_order",
        { orderId: "4821" },
        {
          callId: "c1",
          run: () => ({ status: "live" }),
          onWait: (a) => waitedFor.push(a.waitingFor),
        },
      ),
      approveWhenPaused(live.replay.id),
    ]);
    expect(waitedFor[0]).toBe("approval");
    expect(output).toEqual({ status: "live" });
    const stored = await app.db.prisma.replayStep.findMany({ where: { replayId: live.replay.id } });
    expect(stored.map((s) => [s.source, s.output])).toEqual([["live", { status: "live" }]]);

    const paused = await start({ ...RECORDED, tools: toolLevelPreset("pause-for-fixture") });
    const waiter = AgentReplayClient.fromCreated(paused);
    const waits: number[] = [];
    const answered = waiter.callTool(
      "lookup_order",
      { orderId: "7777" },
      { callId: "c1", onWait: (a) => waits.push(a.retryAfterMs) },
    );
    await expect.poll(async () => (await row(paused.replay.id)).status, { timeout: 10_000 }).toBe("paused");
    const supplied = await fetch(`${base}/api/v1/replays/${paused.replay.id}/fixtures`, {
      method: "POST",
      headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
      body: JSON.stringify({ output: { status: "found by hand" }, note: "from the order system" }),
    });
    expect(supplied.status).toBe(200);
    expect(await answered).toEqual({ status: "found by hand" });
    expect(waits[0]).toBe(1000);

    // A wait that outlasts the caller's timeout ends with a ReplayToolError, and an abort cancels at once.
    const again = await start({ ...RECORDED, tools: toolLevelPreset("pause-for-fixture") });
    const impatient = AgentReplayClient.fromCreated(again, { waitTimeoutMs: 300 });
    await expect(impatient.callTool("lookup_order", { orderId: "1" })).rejects.toMatchObject({ code: "wait_timeout" });
    const abort = new AbortController();
    const cancelled = impatient.callTool(
      "lookup_order",
      { orderId: "1" },
      { signal: abort.signal, waitTimeoutMs: 60_000 },
    );
    setTimeout(() => abort.abort(new Error("stopped by the test")), 100);
    await expect(cancelled).rejects.toThrow("stopped by the test");
  }, 60_000);

  it("AI SDK: generateText with wrapped tools re-runs the session exactly, running no tool body", async () => {
    const created = await start(RECORDED);
    const client = AgentReplayClient.fromCreated(created);
    const model = createOpenAICompatible({
      name: "branchpoint",
      baseURL: created.agent.openaiBaseUrl,
      apiKey: created.agent.token,
    })("gpt-4o-mini");
    const { executions, tools } = aiTools();
    const result = await generateText({
      model,
      system: SYSTEM,
      prompt: ASK,
      tools: withBranchpointTools(tools, { client }),
      stopWhen: stepCountIs(10),
      maxRetries: 0,
    });
    expect(result.text).toBe("Order 4821 is refunded ($42).");
    expect(executions).toEqual([]);
    await client.finish({ finalOutput: result.text });
    expect(await row(created.replay.id)).toMatchObject({ status: "completed", comparability: "exact", stepCount: 6 });
    expect(await steps(created.replay.id)).toEqual([
      "model_call:recorded",
      "tool_call:recorded",
      "model_call:recorded",
      "tool_call:recorded",
      "model_call:recorded",
      "final_output:recorded",
    ]);
  }, 60_000);

  it("AI SDK: a passthrough policy runs the original execute and records its result", async () => {
    const created = await start({ ...RECORDED, tools: { default: { type: "passthrough" } } });
    const { executions, tools } = aiTools();
    const wrapped = withBranchpointTools(tools, { client: AgentReplayClient.fromCreated(created) });
    const [output] = await Promise.all([
      wrapped.lookup_order.execute({ orderId: "4821" }, {
        toolCallId: "call_1",
        messages: [],
      } as unknown as ExecuteOptions),
      approveWhenPaused(created.replay.id),
    ]);
    expect(output).toBe(JSON.stringify({ status: "delivered", amount: 42, live: true, orderId: "4821" }));
    expect(executions).toEqual(["lookup_order"]);
    expect(await steps(created.replay.id)).toEqual(["tool_call:live"]);
  }, 60_000);

  it("Agents SDK: a wrapped function tool answers from the recording without running, and raises a refusal", async () => {
    const created: CreatedAgentReplay = await start(HISTORY_FAIL);
    let ran = 0;
    const lookup = agentsTool({
      name: "lookup_order",
      description: "Look an order up",
      parameters: {
        type: "object",
        properties: { orderId: { type: "string" } },
        required: ["orderId"],
        additionalProperties: false,
      },
      strict: true,
      execute: () => {
        ran++;
        return "live";
      },
    });
    const [wrapped] = withBranchpointAgentTools([lookup], { client: AgentReplayClient.fromCreated(created) });
    const context = new RunContext();
    const details = {
      toolCall: { type: "function_call" as const, callId: "call_1", name: "lookup_order", arguments: "" },
    };
    expect(await wrapped.invoke(context, '{"orderId":"4821"}', details)).toBe(RECORDED_LOOKUP);
    await expect(wrapped.invoke(context, '{"orderId":"9999"}')).rejects.toBeInstanceOf(ReplayToolError);
    expect(ran).toBe(0);
    expect(wrapped.name).toBe("lookup_order");
    expect(wrapped.parameters).toBe(lookup.parameters);
  }, 60_000);

  it("passes a recorded tool error to the agent as a thrown RecordedToolError", () => {
    expect(new RecordedToolError("boom", { message: "boom" }).error).toEqual({ message: "boom" });
  });

  describe("the CLI", () => {
    let dir: string;
    beforeAll(async () => {
      dir = await mkdtemp(path.join(tmpdir(), "branchpoint-cli-"));
      await writeFile(path.join(dir, "policy.json"), JSON.stringify(RECORDED));
    });
    afterAll(() => rm(dir, { recursive: true, force: true }));

    const cli = (args: string[], env: Record<string, string> = {}) =>
      new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
        const child = spawn(process.execPath, ["--import", "tsx", path.join(import.meta.dirname, "cli.ts"), ...args], {
          env: { ...process.env, BRANCHPOINT_URL: base, BRANCHPOINT_API_KEY: key, ...env },
        });
        let stdout = "";
        let stderr = "";
        child.stdout.on("data", (c: Buffer) => (stdout += c.toString()));
        child.stderr.on("data", (c: Buffer) => (stderr += c.toString()));
        child.on("close", (code) => resolve({ code, stdout, stderr }));
      });
    const agentScript = path.join(import.meta.dirname, "..", "test", "chat-agent.ts");
    const replayIdOf = (stderr: string) => /replay (\S+) started/.exec(stderr)?.[1] ?? "";

    it("runs a real agent under the replay: exact, no tool run, its last line the final output", async () => {
      const { code, stdout, stderr } = await cli([
        "replay",
        sessionId,
        "--policy",
        path.join(dir, "policy.json"),
        "--",
        process.execPath,
        "--import",
        "tsx",
        agentScript,
      ]);
      expect(stderr).not.toContain("    at ");
      expect(code, stderr).toBe(0);
      expect(stdout).toContain("tools run: 0");
      expect(stdout.trim().split("\n").at(-1)).toBe("Order 4821 is refunded ($42).");
      const id = replayIdOf(stderr);
      expect(stderr).toContain(`branchpoint: compare: ${base}/replays/${id}/compare`);
      const replay = await row(id);
      expect(replay).toMatchObject({ status: "completed", comparability: "exact", stepCount: 6 });
      expect((replay.evidence as { driver: unknown }).driver).toMatchObject({
        kind: "agent",
        adapter: "branchpoint-cli",
        capabilities: ["tool_policies"],
      });
    }, 120_000);

    it("fails the replay with the exit code and stderr tail of a failing command, and exits with its code", async () => {
      const { code, stderr } = await cli([
        "replay",
        sessionId,
        "--policy",
        path.join(dir, "policy.json"),
        "--",
        process.execPath,
        "-e",
        "console.error('the agent broke'); process.exit(3)",
      ]);
      expect(code).toBe(3);
      const replay = await row(replayIdOf(stderr));
      expect(replay.status).toBe("failed");
      expect(JSON.stringify(replay.error)).toContain("exited with code 3");
      expect(JSON.stringify(replay.error)).toContain("the agent broke");
    }, 120_000);

    it("says in one line what is wrong with the key, the session and the server", async () => {
      const policy = path.join(dir, "policy.json");
      const badKey = await cli(["replay", sessionId, "--policy", policy, "--api-key", "nope", "--", "true"]);
      expect(badKey.code).toBe(2);
      expect(badKey.stderr).toBe(
        `branchpoint: The API key was refused by ${base}: pass --api-key or set BRANCHPOINT_API_KEY to a key from /settings/api-keys.\n`,
      );
      const unknown = await cli(["replay", "no-such-session", "--policy", policy, "--", "true"]);
      expect(unknown.code).toBe(2);
      expect(unknown.stderr).toMatch(/^branchpoint: No session no-such-session on http:\/\/127\.0\.0\.1:\d+: .+\n$/);
      // A port nobody listens on: one just freed.
      const probe = createServer().listen(0, "127.0.0.1");
      await once(probe, "listening");
      const port = (probe.address() as AddressInfo).port;
      await new Promise((resolve) => probe.close(resolve));
      const down = await cli([
        "replay",
        sessionId,
        "--policy",
        policy,
        "--url",
        `http://127.0.0.1:${port}`,
        "--",
        "true",
      ]);
      expect(down.code).toBe(2);
      expect(down.stderr).toBe(
        `branchpoint: Cannot reach Branchpoint at http://127.0.0.1:${port} (ECONNREFUSED). Is it running, and is the URL right?\n`,
      );
    }, 120_000);
  });
});
