import OpenAI from "openai";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { importLongChat } from "@/lib/db/replays-testing";
import { toolLevelPreset, type Policy } from "@/lib/replay";
import { cachedAgentRun, forgetAgentRun } from "@/lib/server/agent/agent-run";
import { startScriptedModel } from "@/scripts/scripted-model";
import { CHAT_LOG, TEST_AGENT, post, realTools, runAgent, startAgentTestApp, type AgentTestApp } from "./testing";

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

describe("agent-driven replays through the real openai client (pglite)", () => {
  let app: AgentTestApp;
  beforeAll(async () => {
    app = await startAgentTestApp();
  }, 400_000);
  afterAll(() => app.close());

  const start = (policy: Policy, agent?: Record<string, unknown>, extra?: Record<string, unknown>) =>
    app.start(policy, { agent, ...(extra ? { extra } : {}) });
  const row = (id: string) => app.row(id);

  it("re-runs the recorded session exactly under a recorded policy, running no tool (JSON and streaming)", async () => {
    for (const stream of [false, true]) {
      const { replay, agent } = await start(RECORDED);
      expect(replay.status).toBe("waiting_for_agent");
      expect(replay.driver).toBe("agent");
      expect(agent.openaiBaseUrl).toBe(`${app.base}/api/v1/replays/${replay.id}/agent/openai`);
      expect((await row(replay.id)).agentTokenHash).not.toContain(agent.token);
      const tools = realTools();
      let seenRunning = false;
      const final = await runAgent(agent, tools, {
        stream,
        onWait: () => Promise.resolve(),
      }).then(async (text) => {
        seenRunning = (await row(replay.id)).status === "running";
        return text;
      });
      expect(final).toBe("Order 4821 is refunded ($42).");
      expect(seenRunning).toBe(true);
      expect(tools.executions).toEqual([]);
      const finished = await post(agent.finishUrl, agent.token, {});
      expect(await finished.json()).toEqual({ status: "completed", comparability: "exact", stepCount: 6 });
      const stored = await row(replay.id);
      expect(stored.status).toBe("completed");
      expect((stored.evidence as { driver: unknown }).driver).toEqual({ kind: "agent", ...TEST_AGENT });
      const steps = await app.db.prisma.replayStep.findMany({
        where: { replayId: replay.id },
        orderBy: { idx: "asc" },
      });
      expect(steps.map((s) => `${s.kind}:${s.source}`)).toEqual([
        "model_call:recorded",
        "tool_call:recorded",
        "model_call:recorded",
        "tool_call:recorded",
        "model_call:recorded",
        "final_output:recorded",
      ]);
    }
  }, 60_000);

  it("serves the model list and lets a counterfactual rule change a tool's answer; the changed input stops the branch", async () => {
    const policy: Policy = {
      ...RECORDED,
      tools: {
        default: { type: "history", scope: "baseline", on_miss: "fail" },
        overrides: {
          lookup_order: {
            type: "static",
            cases: [{ match_mode: "subset", match: {}, result: '{"status":"lost","amount":0}' }],
            on_miss: "fail",
          },
        },
      },
    };
    const { replay, agent } = await start(policy);
    const client = new OpenAI({ apiKey: agent.token, baseURL: agent.openaiBaseUrl, maxRetries: 0 });
    expect((await client.models.list()).data.map((m) => m.id)).toEqual(["gpt-4o-mini"]);
    const answer = await post(agent.toolCallsUrl, agent.token, {
      tool: "lookup_order",
      args: { orderId: "4821" },
      callId: "call_1",
    });
    expect(await answer.json()).toEqual({
      action: "return",
      source: "static",
      output: '{"status":"lost","amount":0}',
      error: null,
      step: 0,
    });
    const error = await runAgent(agent, realTools()).then(
      () => null,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(OpenAI.BadRequestError);
    expect((error as InstanceType<typeof OpenAI.BadRequestError>).code).toBe("replay_divergence");
    expect((error as Error).message).toMatch(
      /Model call 1 differs from the recorded one \(base step 2\) at messages\[3\]\.content/,
    );
    expect((await row(replay.id)).status).toBe("stopped_on_divergence");
  }, 60_000);

  it("refuses a rule the driver cannot apply without the tool_policies capability, and on_miss fail", async () => {
    const plain = await start(HISTORY_FAIL, { adapter: "plain" });
    const refused = await post(plain.agent.toolCallsUrl, plain.agent.token, {
      tool: "lookup_order",
      args: { orderId: "4821" },
    });
    const body = (await refused.json()) as { action: string; code: string; message: string };
    expect(body.action).toBe("fail");
    expect(body.code).toBe("tool_policies_capability_missing");
    expect(body.message).toContain('did not declare the "tool_policies" capability');
    // The refusal stops the branch too: its agent's finish ends it failed with that code.
    await post(plain.agent.finishUrl, plain.agent.token, { error: { message: "refused" } });
    expect(await row(plain.replay.id)).toMatchObject({
      status: "failed",
      error: { code: "tool_policies_capability_missing", message: body.message, step: 0 },
    });

    const { agent, replay } = await start(HISTORY_FAIL);
    const missed = await post(agent.toolCallsUrl, agent.token, { tool: "lookup_order", args: { orderId: "9999" } });
    const miss = (await missed.json()) as { action: string; code: string };
    expect(miss).toMatchObject({ action: "fail", code: "tool_miss_fail" });
    expect((await row(replay.id)).stepCount).toBe(0);
  }, 60_000);

  it("a fail stops the branch where a server-driven replay stops: no later call runs, the finish keeps its code and step", async () => {
    // lookup_order misses its one static case, and the rule says on_miss: fail.
    const policy: Policy = {
      ...RECORDED,
      tools: {
        default: { type: "history", scope: "baseline", on_miss: "fail" },
        overrides: {
          lookup_order: {
            type: "static",
            cases: [{ match_mode: "exact", match: { orderId: "0000" }, result: "never" }],
            on_miss: "fail",
          },
        },
      },
    };
    // The server-driven replay of the same policy: what it stores where it stops.
    const server = await app.api("/api/v1/replays", { method: "POST", body: { sessionId: app.sessionId, policy } });
    const serverId = ((await server.json()) as { replay: { id: string } }).replay.id;
    const serverRow = await row(serverId);
    expect(serverRow.status).toBe("failed");
    expect((serverRow.error as { code: string }).code).toBe("tool_miss_fail");

    const { replay, agent } = await start(policy);
    const tools = realTools();
    const error = await runAgent(agent, tools).catch((e: unknown) => e);
    expect((error as Error).message).toMatch(
      /^the contract refused lookup_order: \{"action":"fail","code":"tool_miss_fail"/,
    );
    expect(tools.executions).toEqual([]);
    // Stopped, still open for its agent to end it: the stop is on the row, and no later call runs.
    expect(await row(replay.id)).toMatchObject({ status: "running", stepCount: 1, error: serverRow.error });
    const later = await post(agent.toolCallsUrl, agent.token, {
      tool: "refund",
      args: { orderId: "4821", amount: 42 },
    });
    const stopMessage = (serverRow.error as { message: string }).message;
    expect(await later.json()).toEqual({
      action: "fail",
      code: "tool_miss_fail",
      message: `The branch stopped at step 1 (tool_miss_fail): ${stopMessage} No later call runs: end the run (POST finish).`,
    });
    const client = new OpenAI({ apiKey: agent.token, baseURL: agent.openaiBaseUrl, maxRetries: 0 });
    const model = await client.chat.completions
      .create({ model: "gpt-4o-mini", messages: [{ role: "user", content: "anyway" }] })
      .catch((e: unknown) => e);
    expect(model).toBeInstanceOf(OpenAI.ConflictError);
    expect((model as Error).message).toContain("The branch stopped at step 1 (tool_miss_fail)");
    expect(await app.steps(replay.id)).toEqual(["model_call:recorded"]);
    // The adapter raised the refusal, and the agent ends with it: failed, with the server-driven replay's error.
    const finished = await post(agent.finishUrl, agent.token, {
      error: { type: "ReplayToolError", message: (error as Error).message },
    });
    expect(await finished.json()).toEqual({ status: "failed", comparability: "non_comparable", stepCount: 1 });
    expect(await row(replay.id)).toMatchObject({
      status: "failed",
      comparability: "non_comparable",
      error: serverRow.error,
    });
    expect(serverRow.error).toEqual({ code: "tool_miss_fail", message: stopMessage, step: 1 });
  }, 60_000);

  it("waits for a fixture the analyst supplies, then returns it to the same call asked again", async () => {
    const pause: Policy = { ...RECORDED, tools: toolLevelPreset("pause-for-fixture") };
    const { agent, replay } = await start(pause);
    const call = { tool: "lookup_order", args: { orderId: "7777" }, callId: "c1" };
    const waiting = await post(agent.toolCallsUrl, agent.token, call);
    expect(waiting.status).toBe(202);
    expect(await waiting.json()).toMatchObject({ action: "wait", waitingFor: "fixture", retryAfterMs: 1000 });
    expect((await row(replay.id)).status).toBe("paused");
    const again = await post(agent.toolCallsUrl, agent.token, call);
    expect(again.status).toBe(202);
    const supplied = await app.api(`/api/v1/replays/${replay.id}/fixtures`, {
      method: "POST",
      body: { output: { status: "found by hand" }, note: "from the order system" },
    });
    expect(supplied.status).toBe(200);
    expect((await row(replay.id)).status).toBe("running");
    const answered = await post(agent.toolCallsUrl, agent.token, call);
    expect(await answered.json()).toEqual({
      action: "return",
      source: "fixture",
      output: { status: "found by hand" },
      error: null,
      step: 0,
    });
  }, 60_000);

  it("hands a passthrough call to the agent after its approval, and records the result it posts", async () => {
    const live: Policy = {
      ...RECORDED,
      tools: { default: { type: "passthrough", approval: "per_call" } },
    };
    const { agent, replay } = await start(live);
    const tools = realTools();
    const final = await runAgent(agent, tools, {
      onWait: async (answer) => {
        expect(answer.waitingFor).toBe("approval");
        const decided = await app.api(`/api/v1/replays/${replay.id}/approvals`, {
          method: "POST",
          body: { decision: "approved" },
        });
        expect(decided.status).toBe(200);
      },
    }).catch((e: unknown) => e);
    // The live tools answer differently from the recording: the second model call's input differs.
    expect(final).toBeInstanceOf(OpenAI.BadRequestError);
    expect(tools.executions).toEqual(["lookup_order"]);
    const steps = await app.db.prisma.replayStep.findMany({ where: { replayId: replay.id }, orderBy: { idx: "asc" } });
    expect(steps.map((s) => `${s.kind}:${s.source}`)).toEqual(["model_call:recorded", "tool_call:live"]);
    expect(steps[1]!.output).toBe(JSON.stringify({ status: "delivered", amount: 42, live: true }));
  }, 60_000);

  it("rebuilds its state from the stored branch when the process forgets it", async () => {
    const { replay, agent } = await start(RECORDED);
    const tools = realTools();
    const client = new OpenAI({ apiKey: agent.token, baseURL: agent.openaiBaseUrl, maxRetries: 0 });
    const first = await client.chat.completions.create({
      model: "gpt-4o-mini",
      messages: [
        { role: "system", content: "You are the refund agent of Harbor & Pine." },
        { role: "user", content: "Please refund order 4821." },
      ],
      tools: (JSON.parse(CHAT_LOG) as { tools: OpenAI.Chat.ChatCompletionTool[] }).tools,
    });
    expect(first.choices[0]!.message.tool_calls![0]!.id).toBe("call_1");
    forgetAgentRun(replay.id);
    // The rest of the run from a state rebuilt from the database: the first call's occurrence is counted.
    const lookedUp = await post(agent.toolCallsUrl, agent.token, {
      tool: "lookup_order",
      args: { orderId: "4821" },
      callId: "call_1",
    });
    expect(await lookedUp.json()).toMatchObject({ action: "return", source: "recorded" });
    forgetAgentRun(replay.id);
    const twice = await post(agent.toolCallsUrl, agent.token, {
      tool: "lookup_order",
      args: { orderId: "4821" },
      callId: "call_1",
    });
    // Baseline history hands out each recording once: a rebuilt state knows the first was used.
    expect(await twice.json()).toMatchObject({ action: "fail", code: "tool_miss_fail" });
    expect(tools.executions).toEqual([]);
  }, 60_000);

  it("accepts the token only on its own replay's agent endpoints, only while the replay is open", async () => {
    const one = await start(RECORDED);
    const two = await start(RECORDED);
    const call = { tool: "lookup_order", args: { orderId: "4821" } };
    // Another replay's token: 403, named.
    const other = await post(one.agent.toolCallsUrl, two.agent.token, call);
    expect(other.status).toBe(403);
    expect(((await other.json()) as { error: { message: string } }).error.message).toContain(
      "belongs to another replay",
    );
    // An API key on an agent endpoint: 401.
    const withKey = await post(one.agent.toolCallsUrl, app.key, call);
    expect(withKey.status).toBe(401);
    // The token anywhere else: 401 (it is not an API key).
    const elsewhere = await fetch(`${app.base}/api/v1/replays/${one.replay.id}`, {
      headers: { authorization: `Bearer ${one.agent.token}` },
    });
    expect(elsewhere.status).toBe(401);
    // As x-api-key (the Anthropic SDK's header) it is accepted.
    const viaHeader = await fetch(`${one.agent.openaiBaseUrl}/models`, { headers: { "x-api-key": one.agent.token } });
    expect(viaHeader.status).toBe(200);
    // After finish: 403, and the OpenAI client raises it as a permission error.
    await post(one.agent.finishUrl, one.agent.token, { error: { type: "Crash", message: "agent crashed" } });
    expect(await row(one.replay.id)).toMatchObject({ status: "failed", error: { code: "agent_error" } });
    const after = await post(one.agent.toolCallsUrl, one.agent.token, call);
    expect(after.status).toBe(403);
    expect(((await after.json()) as { error: { message: string } }).error.message).toMatch(
      /is failed: its agent token works only while/,
    );
    const client = new OpenAI({ apiKey: one.agent.token, baseURL: one.agent.openaiBaseUrl, maxRetries: 0 });
    await expect(client.models.list()).rejects.toBeInstanceOf(OpenAI.PermissionDeniedError);
  }, 60_000);

  it("refuses hostile bodies with a 4xx and writes nothing", async () => {
    const { replay, agent } = await start(RECORDED);
    const raw = (url: string, body: string) =>
      fetch(url, {
        method: "POST",
        headers: { authorization: `Bearer ${agent.token}`, "content-type": "application/json" },
        body,
      });
    const bodies: [string, string][] = [
      [agent.toolCallsUrl, "{not json"],
      [agent.toolCallsUrl, JSON.stringify({ args: {} })],
      [agent.toolCallsUrl, JSON.stringify({ tool: "lookup_order", args: {}, extra: 1 })],
      [agent.toolCallsUrl, JSON.stringify({ tool: "x\u0000y", args: {} })],
      [`${agent.toolCallsUrl}/nope/result`, JSON.stringify({ output: 1, error: { message: "both" } })],
      [`${agent.toolCallsUrl}/nope/result`, JSON.stringify({ output: 1 })],
      [`${agent.openaiBaseUrl}/chat/completions`, JSON.stringify({ model: "m", messages: [{ role: "wizard" }] })],
      [`${agent.openaiBaseUrl}/chat/completions`, "[]"],
      [agent.finishUrl, JSON.stringify({ finalOutput: 1, error: { message: "x" } })],
      [
        `${agent.openaiBaseUrl}/chat/completions`,
        JSON.stringify({ model: "m", messages: [{ role: "user", content: "a\u0000b" }] }),
      ],
    ];
    for (const [url, body] of bodies) {
      const response = await raw(url, body);
      expect(response.status, `${url} ${body}`).toBeGreaterThanOrEqual(400);
      expect(response.status, `${url} ${body}`).toBeLessThan(500);
    }
    const chat = await raw(
      `${agent.openaiBaseUrl}/chat/completions`,
      JSON.stringify({ model: "m", messages: [{ role: "wizard" }] }),
    );
    expect(((await chat.json()) as { error: { type: string } }).error.type).toBe("invalid_request_error");
    const stored = await row(replay.id);
    expect(stored).toMatchObject({ status: "waiting_for_agent", stepCount: 0 });
    expect(await app.db.prisma.replayLogEntry.count({ where: { replayId: replay.id } })).toBe(0);
  }, 60_000);

  it("answers the 400th tool call about as fast as the 1st (the resolver is kept, not rebuilt per call)", async () => {
    const long = await importLongChat(app.db.prisma, 400);
    // Two replays of the same session: one is taken to its last 50 calls, the other to its 10th, then the two
    // take turns, so that the late calls and the early ones they are compared with run under the same load.
    const { agent: late, replay } = await app.start(HISTORY_FAIL, { sessionId: long.sessionId });
    const { agent: early } = await app.start(HISTORY_FAIL, { sessionId: long.sessionId });
    const calls = await app.db.prisma.event.findMany({
      where: { sessionId: long.sessionId, kind: "tool_call" },
      orderBy: { seq: "asc" },
      select: { name: true, input: true },
    });
    const ask = async (agent: typeof late, call: (typeof calls)[number]) => {
      const { callId, args } = call.input as { callId: string; args: unknown };
      const started = performance.now();
      const answer = await post(agent.toolCallsUrl, agent.token, { tool: call.name, args, callId });
      expect(((await answer.json()) as { source: string }).source).toBe("recorded");
      return performance.now() - started;
    };
    const WINDOW = 50;
    await ask(late, calls[0]!);
    // The state the first call built (its resolver and indexed base) is the one every later call uses.
    const kept = cachedAgentRun(replay.id)!;
    expect(kept.resolver).toBeDefined();
    for (const call of calls.slice(1, -WINDOW)) await ask(late, call);
    for (const call of calls.slice(0, 10)) await ask(early, call);
    const times = { early: [] as number[], late: [] as number[] };
    for (let k = 0; k < WINDOW; k++) {
      const lateCall = calls[calls.length - WINDOW + k]!;
      const earlyCall = calls[10 + k]!;
      // Each pair in turn order, so neither side always runs second.
      for (const side of k % 2 === 0 ? (["late", "early"] as const) : (["early", "late"] as const))
        times[side].push(await ask(side === "late" ? late : early, side === "late" ? lateCall : earlyCall));
    }
    const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
    const [first, last] = [median(times.early), median(times.late)];
    console.log(
      `tool calls through the contract, taking turns: median ${first.toFixed(1)} ms (calls 10-60), ${last.toFixed(1)} ms (last ${WINDOW} of ${calls.length})`,
    );
    expect(last / first).toBeLessThan(2);
    expect(cachedAgentRun(replay.id)).toBe(kept);
    expect(cachedAgentRun(replay.id)!.resolver).toBe(kept.resolver);
  }, 300_000);

  it("abandons a replay whose agent stays silent past the policy's idle timeout", async () => {
    const { replay, agent } = await start({ ...RECORDED, agentIdleTimeoutS: 1 });
    await new Promise((resolve) => setTimeout(resolve, 1300));
    const read = await app.api(`/api/v1/replays/${replay.id}`);
    expect(((await read.json()) as { replay: { status: string } }).replay.status).toBe("abandoned");
    expect(await row(replay.id)).toMatchObject({ status: "abandoned", error: { code: "agent_abandoned" } });
    const late = await post(agent.toolCallsUrl, agent.token, { tool: "lookup_order", args: {} });
    expect(late.status).toBe(403);

    // A branch a refused call stopped, whose agent never ended it: failed with that stop, not abandoned.
    const stopped = await start({ ...HISTORY_FAIL, agentIdleTimeoutS: 1 });
    const missed = await post(stopped.agent.toolCallsUrl, stopped.agent.token, { tool: "refund", args: {} });
    expect(((await missed.json()) as { code: string }).code).toBe("tool_miss_fail");
    await new Promise((resolve) => setTimeout(resolve, 1300));
    const ended = await post(stopped.agent.toolCallsUrl, stopped.agent.token, { tool: "refund", args: {} });
    expect([ended.status, ((await ended.json()) as { error: { message: string } }).error.message]).toEqual([
      403,
      expect.stringMatching(/ is failed: its agent token works only while/),
    ]);
    expect(await row(stopped.replay.id)).toMatchObject({
      status: "failed",
      error: { code: "tool_miss_fail", step: 0 },
    });
  }, 60_000);

  it("stores the end and its check verdicts in one write: a reader never sees the branch ended without them", async () => {
    // An LLM judge that holds its first answer until the test has read the replay.
    let asked!: () => void;
    const judgeAsked = new Promise<void>((resolve) => (asked = resolve));
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    const PASS = '{"verdict": "pass", "reason": "The order was refunded."}';
    const judge = await startScriptedModel({
      script: () => ({ content: PASS }),
      gate: (index) => {
        if (index > 0) return Promise.resolve();
        asked();
        return released;
      },
    });
    try {
      for (const [path, body] of [
        ["/api/v1/executors/allowed-hosts", { host: judge.host }],
        ["/api/v1/executors/models", { name: "judge", baseUrl: judge.baseUrl, model: "gpt-4o-mini" }],
      ] as const) {
        const response = await app.api(path, { method: "POST", body });
        expect(response.status, await response.clone().text()).toBe(201);
      }
      const checks = [
        { name: "says refunded", definition: { kind: "output_contains", text: "refunded" } },
        { name: "judged", definition: { kind: "llm_judge", rubric: "Pass when the order was refunded." } },
      ];
      const { replay, agent } = await start(RECORDED, TEST_AGENT, { checks, modelEndpoint: "judge" });
      const final = await runAgent(agent, realTools());
      const finishing = post(agent.finishUrl, agent.token, { finalOutput: final });
      await judgeAsked;
      // The status and the verdicts in one read, while the judge decides: the branch has not ended yet.
      const read = () =>
        app.db.prisma.replay.findUniqueOrThrow({
          where: { id: replay.id },
          select: { status: true, verdicts: true },
        });
      expect(await read()).toEqual({ status: "running", verdicts: null });
      release();
      expect(await (await finishing).json()).toEqual({ status: "completed", comparability: "exact", stepCount: 6 });
      // The base is judged first, then the branch: the judge's two prompts, in order.
      expect(judge.requests).toHaveLength(2);
      const judged = (k: number) => ({
        checkId: null,
        name: "judged",
        kind: "llm_judge",
        outcome: "pass",
        reason: "The order was refunded.",
        judge: { prompt: judge.requests[k]!.messages, answer: PASS, model: "gpt-4o-mini" },
      });
      const says = {
        checkId: null,
        name: "says refunded",
        kind: "output_contains",
        outcome: "pass",
        reason: 'The final output contains "refunded".',
      };
      expect(await read()).toEqual({
        status: "completed",
        verdicts: { base: [says, judged(0)], branch: [says, judged(1)] },
      });
    } finally {
      release();
      await judge.close();
    }
  }, 60_000);
});
