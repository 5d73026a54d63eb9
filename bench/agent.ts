/**
 * `npm run bench:agent`: what re-running an agent through Branchpoint adds, measured in one run against the
 * same calls made directly (the route handlers behind a real local HTTP server, on PGlite, as the agent tests
 * run them):
 *   - a model call: POST chat/completions to a pinned-live replay, which stores the step and forwards the call
 *     to the scripted OpenAI-compatible model, against the same request sent to that model directly;
 *   - a tool call: POST tool-calls answered by a static rule (stored as a step), against the same call made
 *     directly to a local tool server answering the same output;
 *     each interleaved (through, direct, through, …), p50 and p99 over `--calls` calls (default 1,000), as ratios;
 *   - a whole agent-driven run under the recorded policy (a chat loop re-running a long recorded chat: each model
 *     call served from the recording, each tool call answered by the contract): its cost per step for a
 *     1,000-step run against a 100-step one (flat: within 1.3×).
 * `--runs` (default 3) repeats it all; the spread (min, median, max) and the load average are printed.
 */
import http from "node:http";
import type { AddressInfo } from "node:net";
import { loadavg } from "node:os";
import { startAgentTestApp, type AgentAccessJson, type AgentTestApp } from "../app/api/v1/replays/[id]/agent/testing";
import { importLongChat } from "../lib/db/replays-testing";
import { longChatLog } from "../lib/ingest/long-chat";
import { toolLevelPreset, type Policy } from "../lib/replay";
import { startScriptedModel, type ScriptedModel } from "../scripts/scripted-model";

const arg = (name: string, fallback: number) => {
  const k = process.argv.indexOf(`--${name}`);
  return k >= 0 ? Number(process.argv[k + 1]) : fallback;
};
const RUNS = arg("runs", 3);
const CALLS = arg("calls", 1000);

const load = () =>
  loadavg()
    .map((l) => l.toFixed(2))
    .join(" ");
const sorted = (xs: number[]) => [...xs].sort((a, b) => a - b);
const pct = (xs: number[], p: number) => sorted(xs)[Math.min(xs.length - 1, Math.floor((p / 100) * xs.length))]!;
const median = (xs: number[]) => pct(xs, 50);
const spread = (xs: number[], digits = 2) =>
  `min ${Math.min(...xs).toFixed(digits)}  median ${median(xs).toFixed(digits)}  max ${Math.max(...xs).toFixed(digits)}`;

const LOOKUP = JSON.stringify({ status: "delivered", amount: 42 });

async function json(url: string, body: unknown, token?: string): Promise<unknown> {
  const response = await fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json", ...(token ? { authorization: `Bearer ${token}` } : {}) },
    body: JSON.stringify(body),
  });
  const text = await response.text();
  if (!response.ok) throw new Error(`${url} answered ${response.status}: ${text.slice(0, 300)}`);
  return JSON.parse(text) as unknown;
}

/** A local tool server: the direct call a tool call through the contract is compared with. */
async function startToolServer(): Promise<{ url: string; close(): Promise<void> }> {
  const server = http.createServer((req, res) => {
    req.resume();
    req.on("end", () =>
      res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ output: LOOKUP })),
    );
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/tools/lookup_order`,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

/** `calls` pairs, interleaved: the time of each through the endpoints and of each made directly (ms). */
async function interleaved(
  calls: number,
  through: (k: number) => Promise<unknown>,
  direct: (k: number) => Promise<unknown>,
) {
  const a: number[] = [];
  const b: number[] = [];
  for (let k = 0; k < calls; k++) {
    let t = performance.now();
    await through(k);
    a.push(performance.now() - t);
    t = performance.now();
    await direct(k);
    b.push(performance.now() - t);
  }
  return { through: a, direct: b };
}

/** The agent under the replay: a chat loop re-running the long recorded chat, asking the contract before each tool. */
async function rerunLongChat(agent: AgentAccessJson, turns: number): Promise<number> {
  const log = longChatLog(turns);
  const messages: unknown[] = log.messages.slice(0, 2);
  let steps = 0;
  for (;;) {
    const answer = (await json(
      `${agent.openaiBaseUrl}/chat/completions`,
      { model: log.model, messages, tools: log.tools },
      agent.token,
    )) as {
      choices: {
        message: {
          content: string | null;
          tool_calls?: { id: string; function: { name: string; arguments: string } }[];
        };
      }[];
    };
    steps++;
    const message = answer.choices[0]!.message;
    messages.push({
      role: "assistant",
      content: message.content,
      ...(message.tool_calls ? { tool_calls: message.tool_calls } : {}),
    });
    if (!message.tool_calls?.length) return steps;
    for (const call of message.tool_calls) {
      const told = (await json(
        agent.toolCallsUrl,
        { tool: call.function.name, args: JSON.parse(call.function.arguments) as unknown, callId: call.id },
        agent.token,
      )) as { action: string; output: unknown };
      if (told.action !== "return") throw new Error(`the contract answered ${JSON.stringify(told)}`);
      steps++;
      messages.push({
        role: "tool",
        tool_call_id: call.id,
        content: typeof told.output === "string" ? told.output : JSON.stringify(told.output),
      });
    }
  }
}

async function main() {
  const app: AgentTestApp = await startAgentTestApp();
  const model: ScriptedModel = await startScriptedModel({ script: () => ({ content: "pong" }) });
  const tool = await startToolServer();
  try {
    for (const [path, body] of [
      ["/api/v1/executors/allowed-hosts", { host: model.host }],
      ["/api/v1/executors/models", { name: "scripted", baseUrl: model.baseUrl, model: "gpt-4o-mini" }],
    ] as const) {
      const response = await app.api(path, { method: "POST", body });
      if (response.status !== 201) throw new Error(`${path}: ${response.status} ${await response.text()}`);
    }
    // The long recordings: 100 and 1,000 steps (model and tool calls; a turn is one of each, plus the answer).
    const long = { 100: await importLongChat(app.db.prisma, 50), 1000: await importLongChat(app.db.prisma, 500) };
    const live: Policy = {
      model: "pinned-live",
      drift: "continue_to_terminal",
      maxSteps: 1_000_000,
      tools: toolLevelPreset("recorded-only"),
    };
    const staticLookup: Policy = {
      model: "recorded-only",
      drift: "continue_to_terminal",
      maxSteps: 1_000_000,
      tools: {
        default: { type: "history", scope: "baseline", on_miss: "fail" },
        overrides: {
          lookup_order: {
            type: "static",
            cases: [{ match_mode: "subset", match: {}, result: LOOKUP }],
            on_miss: "fail",
          },
        },
      },
    };
    const recorded: Policy = {
      model: "recorded-only",
      drift: "continue_to_terminal",
      maxSteps: 1_000_000,
      tools: toolLevelPreset("recorded-only"),
    };

    const figures = {
      modelP50: [] as number[],
      modelP99: [] as number[],
      toolP50: [] as number[],
      toolP99: [] as number[],
      flat: [] as number[],
    };
    for (let run = 1; run <= RUNS; run++) {
      const loadBefore = load();
      // Model calls: each request is a new conversation, so every one is forwarded live after the first difference.
      const modelReplay = await app.start(live);
      const request = (k: number) => ({ model: "gpt-4o-mini", messages: [{ role: "user", content: `ping ${k}` }] });
      const models = await interleaved(
        CALLS,
        (k) => json(`${modelReplay.agent.openaiBaseUrl}/chat/completions`, request(k), modelReplay.agent.token),
        (k) => json(`${model.baseUrl}/chat/completions`, request(k)),
      );
      // Tool calls: answered by the static rule through the contract; directly, by the tool server.
      const toolReplay = await app.start(staticLookup);
      const tools = await interleaved(
        CALLS,
        (k) =>
          json(
            toolReplay.agent.toolCallsUrl,
            { tool: "lookup_order", args: { orderId: String(k) }, callId: `c${k}` },
            toolReplay.agent.token,
          ),
        (k) => json(tool.url, { orderId: String(k) }),
      );
      // Whole runs: cost per step of a 1,000-step run against a 100-step one.
      const perStep: Record<number, number> = {};
      for (const size of [100, 1000] as const) {
        const { agent } = await app.start(recorded, { sessionId: long[size].sessionId });
        const t = performance.now();
        const steps = await rerunLongChat(agent, size === 100 ? 50 : 500);
        const finished = (await json(agent.finishUrl, {}, agent.token)) as { comparability: string };
        if (finished.comparability !== "exact") throw new Error(`the ${size}-step re-run is ${finished.comparability}`);
        perStep[size] = (performance.now() - t) / steps;
      }
      const ratio = (a: number[], b: number[], p: number) => pct(a, p) / pct(b, p);
      figures.modelP50.push(ratio(models.through, models.direct, 50));
      figures.modelP99.push(ratio(models.through, models.direct, 99));
      figures.toolP50.push(ratio(tools.through, tools.direct, 50));
      figures.toolP99.push(ratio(tools.through, tools.direct, 99));
      figures.flat.push(perStep[1000]! / perStep[100]!);
      console.log(
        `run ${run}/${RUNS} (load before ${loadBefore}, after ${load()}):\n` +
          `  model call, ${CALLS}×: through p50 ${pct(models.through, 50).toFixed(2)} ms p99 ${pct(models.through, 99).toFixed(2)} ms; direct p50 ${pct(models.direct, 50).toFixed(2)} ms p99 ${pct(models.direct, 99).toFixed(2)} ms\n` +
          `  tool call, ${CALLS}×: through p50 ${pct(tools.through, 50).toFixed(2)} ms p99 ${pct(tools.through, 99).toFixed(2)} ms; direct p50 ${pct(tools.direct, 50).toFixed(2)} ms p99 ${pct(tools.direct, 99).toFixed(2)} ms\n` +
          `  re-run per step: 100 steps ${perStep[100]!.toFixed(2)} ms, 1,000 steps ${perStep[1000]!.toFixed(2)} ms`,
      );
    }
    console.log(
      `\nover ${RUNS} runs (load now ${load()}):\n` +
        `  model call through / direct: p50 ${spread(figures.modelP50)}×  p99 ${spread(figures.modelP99)}×\n` +
        `  tool call through / direct: p50 ${spread(figures.toolP50)}×  p99 ${spread(figures.toolP99)}×\n` +
        `  per-step cost, 1,000-step run / 100-step run: ${spread(figures.flat)}× (target ≤ 1.3×)`,
    );
  } finally {
    await tool.close();
    await model.close();
    await app.close();
  }
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
