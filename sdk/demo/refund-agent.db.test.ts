/**
 * The demo refund agent against the real Branchpoint routes (the app's route handlers behind a real HTTP
 * server, on a PGlite database holding the demo refund session): run as the README says (`npm run demo:agent`
 * with the variables "Run with my agent" prints) it re-runs the session exactly under the recorded policy,
 * running no tool body; under a counterfactual on a scripted model its own loop ends elsewhere.
 */
import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startAgentTestApp, type AgentTestApp } from "@/app/api/v1/replays/[id]/agent/testing";
import type { Policy } from "@/lib/replay";
import { REFUND_SESSION, refundAgentScript, startScriptedModel, type ScriptedModel } from "@/scripts/scripted-model";
import { AgentReplayClient } from "../src/client";
import { harborPineOrders } from "./order-system";
import { FIRST_MESSAGE, runRefundAgent } from "./refund-agent";

const ROOT = path.resolve(import.meta.dirname, "..", "..");
const SEED = readFileSync(path.join(ROOT, "prisma", "seed", "native", "refund-agent.json"), "utf8");
const RECORDED = JSON.parse(readFileSync(path.join(import.meta.dirname, "recorded-policy.json"), "utf8")) as Policy;
const RETURNED = JSON.parse(
  readFileSync(path.join(import.meta.dirname, "returned-order-policy.json"), "utf8"),
) as Policy;
const DRIVER = {
  adapter: "demo-refund-agent",
  version: "1",
  command: "npm run demo:agent",
  capabilities: ["tool_policies"],
};

/** Runs `npm run -s demo:agent` with `env` added, as a newcomer runs it after pasting the printed variables. */
function demoAgent(env: Record<string, string>) {
  return new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
    const child = spawn("npm", ["run", "-s", "demo:agent"], { cwd: ROOT, env: { ...process.env, ...env } });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (c: Buffer) => (stdout += c.toString()));
    child.stderr.on("data", (c: Buffer) => (stderr += c.toString()));
    child.on("close", (code) => resolve({ code, stdout, stderr }));
  });
}

describe("the demo refund agent against the real agent-driven replay routes (pglite)", () => {
  let app: AgentTestApp;
  let model: ScriptedModel;

  beforeAll(async () => {
    app = await startAgentTestApp(SEED);
    model = await startScriptedModel({ script: refundAgentScript() });
    for (const [route, body] of [
      ["/api/v1/executors/allowed-hosts", { host: model.host }],
      ["/api/v1/executors/models", { name: "scripted", baseUrl: model.baseUrl, model: "gpt-4.1-2025-04-14" }],
    ] as const) {
      const response = await app.api(route, { method: "POST", body });
      expect(response.status, await response.clone().text()).toBe(201);
    }
  }, 400_000);
  afterAll(async () => {
    await model.close();
    await app.close();
  });

  it("is a real agent: on the scripted model with its own tools it looks the order up and refunds it", async () => {
    const orders = harborPineOrders();
    const run = await runRefundAgent({ baseURL: model.baseUrl, apiKey: "none", replay: null, orders });
    expect(run.finalOutput).toBe(REFUND_SESSION.done);
    expect(orders.calls, JSON.stringify(model.requests, null, 1)).toEqual(["lookup_order", "refund_payment"]);
    expect(model.requests.map((r) => r.messages.at(-1)?.role)).toEqual(["user", "tool", "user", "tool"]);
  }, 60_000);

  it("run with the printed variables, re-runs the demo session exactly under the recorded policy: no tool body runs", async () => {
    model.requests.length = 0;
    const { replay, agent } = await app.start(RECORDED, { agent: DRIVER });
    const { code, stdout, stderr } = await demoAgent({
      OPENAI_BASE_URL: agent.openaiBaseUrl,
      OPENAI_API_KEY: agent.token,
      BRANCHPOINT_REPLAY_URL: `${app.base}/api/v1/replays/${replay.id}`,
      BRANCHPOINT_REPLAY_TOKEN: agent.token,
    });
    expect(code, `${stderr}\n${JSON.stringify((await app.row(replay.id)).error)}`).toBe(0);
    expect(stdout.trim().split("\n").at(-1)).toBe(REFUND_SESSION.done);
    expect(stderr).toContain("tool bodies run: 0\n");
    expect(stderr).toContain(`refund agent: replay finished; compare: ${app.base}/replays/${replay.id}/compare\n`);
    expect(await app.row(replay.id)).toMatchObject({ status: "completed", comparability: "exact", stepCount: 9 });
    expect(await app.steps(replay.id)).toEqual([
      "model_call:recorded",
      "tool_call:recorded",
      "tool_call:recorded",
      "model_call:recorded",
      "user_message:recorded",
      "model_call:recorded",
      "tool_call:recorded",
      "model_call:recorded",
      "final_output:recorded",
    ]);
    expect(((await app.row(replay.id)).evidence as { driver: unknown }).driver).toEqual({ kind: "agent", ...DRIVER });
    // Each model call's input is stored as what it adds to the one before (the client sent it whole each time).
    const models = await app.db.prisma.replayStep.findMany({
      where: { replayId: replay.id, kind: "model_call" },
      orderBy: { idx: "asc" },
      select: { idx: true, inputPrefixIdx: true, inputPrefixCount: true },
    });
    expect(models.map((m) => [m.idx, m.inputPrefixIdx, m.inputPrefixCount])).toEqual([
      [0, null, null],
      [3, 0, 2],
      [5, 3, 5],
      [7, 5, 7],
    ]);
    // The model was never asked: every answer came from the recording.
    expect(model.requests).toEqual([]);
  }, 120_000);

  it("under a counterfactual (the order already returned, fork-live on the scripted model) its own loop ends without refunding", async () => {
    model.requests.length = 0;
    const { replay, agent } = await app.start(RETURNED, { agent: DRIVER, extra: { modelEndpoint: "scripted" } });
    const orders = harborPineOrders();
    const client = new AgentReplayClient({ replayUrl: `${app.base}/api/v1/replays/${replay.id}`, token: agent.token });
    const run = await runRefundAgent({ baseURL: agent.openaiBaseUrl, apiKey: agent.token, replay: client, orders });
    // The model refused; the customer was asked nothing, so the agent's loop ended there, with no refund.
    expect(run.finalOutput).toBe(REFUND_SESSION.refuse);
    expect(orders.calls).toEqual([]);
    expect(model.requests).toHaveLength(1);
    expect(model.requests[0]!.messages.map((m) => m.role)).toEqual(["system", "user", "assistant", "tool", "tool"]);
    expect(model.requests[0]!.messages[3]!.content).toContain('"status": "returned"');
    expect(await client.finish({ finalOutput: run.finalOutput })).toEqual({
      status: "completed",
      comparability: "diverged_but_comparable",
      stepCount: 5,
    });
    expect(await app.steps(replay.id)).toEqual([
      "model_call:recorded",
      "tool_call:static",
      "tool_call:recorded",
      "model_call:live",
      "final_output:live",
    ]);
    const last = await app.db.prisma.replayStep.findFirstOrThrow({
      where: { replayId: replay.id, kind: "final_output" },
    });
    expect(last.output).toBe(REFUND_SESSION.refuse);
    expect(FIRST_MESSAGE).toBe(model.requests[0]!.messages[1]!.content);
  }, 120_000);
});
