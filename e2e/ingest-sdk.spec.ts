import { spawn } from "node:child_process";
import type { APIRequestContext } from "@playwright/test";
import { expect, test } from "./fixtures";

// Real SDKs (AI SDK 7 generateText/streamText, AI SDK 6, @openai/agents) run a
// tool-calling agent against a scripted model on 127.0.0.1 and export through
// their real exporters to this server; the sessions must come out right.

const KEY = "e2e-test-key-0123456789";
const bearer = { authorization: `Bearer ${KEY}` };
const FINAL = "Order 4821 was found, but the refund failed: the card processor is unavailable.";

type Run = { name: string; text: string; traceIds: string[] };
type Event = {
  seq: number;
  kind: string;
  name: string;
  input: { callId?: string; args?: unknown } | null;
  output: unknown;
  error: { message: string } | null;
  status: string;
  cacheKey: string | null;
  occurrence: number | null;
  parentSeq: number | null;
};
type Session = { id: string; externalId: string; format: string; events: Event[] };

/** Runs scripts/record-sdk-traces.ts against this server; returns each run's trace ids. */
function recordLive(args: string[]): Promise<Run[]> {
  return new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      ["node_modules/tsx/dist/cli.mjs", "scripts/record-sdk-traces.ts", ...args, "--api-key", KEY, "--summary"],
      {
        env: { ...process.env, NODE_NO_WARNINGS: "1" },
      },
    );
    let out = "";
    let err = "";
    child.stdout.on("data", (d: Buffer) => (out += d.toString()));
    child.stderr.on("data", (d: Buffer) => (err += d.toString()));
    child.on("error", reject);
    child.on("exit", (code) => {
      const line = out.split("\n").find((l) => l.startsWith("SUMMARY "));
      if (code !== 0 || !line) return reject(new Error(`record-sdk-traces exited ${code}:\n${out}\n${err}`));
      resolve((JSON.parse(line.slice("SUMMARY ".length)) as { runs: Run[] }).runs);
    });
  });
}

async function sessionByExternalId(request: APIRequestContext, externalId: string): Promise<Session> {
  const list = (await (await request.get("/api/v1/sessions?limit=200", { headers: bearer })).json()) as {
    sessions: { id: string; externalId: string }[];
  };
  const found = list.sessions.filter((s) => s.externalId === externalId);
  expect(found, `one session for ${externalId}`).toHaveLength(1);
  const res = await request.get(`/api/v1/sessions/${found[0]!.id}`, { headers: bearer });
  expect(res.status()).toBe(200);
  return ((await res.json()) as { session: Session }).session;
}

/** The scripted conversation: in order, arguments and results intact, the failed call failed, identical calls kept apart. */
function expectScripted(session: Session, opts: { finalOutput: boolean; redactedErrors?: boolean }) {
  const events = session.events;
  expect(events.map((e) => e.seq)).toEqual(events.map((_, i) => i));
  const models = events.filter((e) => e.kind === "model_call");
  expect(models).toHaveLength(3);
  // Each batch of tool calls follows the model call that asked for it; calls of one batch ran in
  // parallel, so within a batch they are in the order they started (either way round).
  expect(events.map((e) => e.kind).slice(0, 7)).toEqual([
    "model_call",
    "tool_call",
    "tool_call",
    "model_call",
    "tool_call",
    "tool_call",
    "model_call",
  ]);
  const batch = (from: number) => events.slice(from, from + 2).sort((a, b) => (a.name < b.name ? -1 : 1));
  const [time1, lookup] = batch(1) as [Event, Event];
  const [time2, refund] = batch(4) as [Event, Event];
  expect([lookup.name, time1.name, time2.name, refund.name]).toEqual([
    "lookup_order",
    "get_time",
    "get_time",
    "refund_payment",
  ]);
  expect([lookup.status, time1.status, time2.status, refund.status]).toEqual([
    "completed",
    "completed",
    "completed",
    "failed",
  ]);
  for (const e of [time1, lookup]) expect(e.parentSeq).toBe(0);
  for (const e of [time2, refund]) expect(e.parentSeq).toBe(3);
  expect(lookup.input?.args).toEqual({ order_id: "4821" });
  const lookupOutput = typeof lookup.output === "string" ? (JSON.parse(lookup.output) as unknown) : lookup.output;
  expect(lookupOutput).toEqual({ order_id: "4821", status: "delivered", total: 129 });
  expect(time1.input?.args).toEqual({ zone: "UTC" });
  expect(time2.input?.args).toEqual({ zone: "UTC" });
  expect([time1.output, time2.output]).toEqual(["12:00:01Z", "12:00:02Z"]);
  expect(time1.cacheKey).not.toBeNull();
  expect(time1.cacheKey).toBe(time2.cacheKey);
  expect([time1.occurrence, time2.occurrence]).toEqual([0, 1]);
  expect(refund.input?.args).toEqual({ order_id: "4821", amount: 129 });
  // The Agents SDK records tool errors redacted; the failure itself must still be there.
  expect(refund.error?.message).toMatch(opts.redactedErrors ? /Tool execution failed/ : /card processor unavailable/);
  expect(time1.input?.callId).not.toBe(time2.input?.callId);
  if (opts.finalOutput) {
    const last = events.at(-1)!;
    expect(last.kind).toBe("final_output");
    expect(last.output).toBe(FINAL);
  }
}

test.describe.configure({ mode: "serial" });

test("AI SDK 7 (generateText, streamText), AI SDK 6 and the Agents SDK export to /v1/traces (JSON) and /v1/traces/ingest", async ({
  request,
  baseURL,
  page,
}) => {
  // Starts the SDK recording script with tsx (it compiles first) and runs four real SDK clients: under a minute on a
  // quiet machine, up to three beside the other shard and the database tests.
  test.setTimeout(240_000);
  const tag = `-json-${Date.now()}`;
  const runs = await recordLive([
    "--otlp-json",
    `${baseURL}/v1/traces`,
    "--agents",
    `${baseURL}/v1/traces/ingest`,
    "--tag",
    tag,
  ]);
  expect(runs.map((r) => r.name)).toEqual([
    "ai7-genai-generate",
    "ai7-legacy-generate",
    "ai7-genai-stream",
    "ai7-legacy-stream",
    "ai6-generate",
    "ai6-stream",
    "openai-agents-chat",
    "openai-agents-responses",
  ]);
  for (const run of runs) expect(run.text, run.name).toBe(FINAL);

  const sessions: Record<string, Session> = {};
  for (const run of runs) {
    const externalId = run.name.startsWith("ai7")
      ? `trace:${run.traceIds[0]}`
      : run.name.startsWith("ai6")
        ? `session:session-${run.name}${tag}`
        : `group:group-${run.name}${tag}`;
    if (run.name.startsWith("ai7")) expect(run.traceIds, run.name).toHaveLength(1);
    const session = await sessionByExternalId(request, externalId);
    expect(session.format).toBe(run.name.startsWith("openai-agents") ? "openai-agents" : "otlp-json");
    expectScripted(session, {
      finalOutput: run.name !== "openai-agents-responses",
      redactedErrors: run.name.startsWith("openai-agents"),
    });
    sessions[run.name] = session;
  }

  // Open one in the browser: the failed call stands out, the repeated call is marked.
  const session = sessions["ai7-genai-stream"]!;
  await page.goto(`/sessions/${session.id}`);
  await expect(page.getByRole("heading", { name: /Refund order 4821/ })).toBeVisible();
  await page.getByRole("tab", { name: "Steps" }).click();
  const calls = page.locator('details[data-kind="tool_call"]');
  await expect(calls).toHaveCount(4);
  const refund = page.locator('details[data-kind="tool_call"][data-name="refund_payment"]');
  await expect(refund).toContainText("failed");
  await refund.locator("summary").click();
  await expect(refund).toContainText("card processor unavailable");
  await expect(
    page.locator('details[data-kind="tool_call"][data-name="get_time"]').last().locator("summary"),
  ).toContainText("repeat #2");
});

test("AI SDK 7 and 6 export gzipped protobuf to /v1/traces", async ({ request, baseURL }) => {
  test.setTimeout(240_000);
  const tag = `-proto-${Date.now()}`;
  const runs = await recordLive(["--otlp-proto", `${baseURL}/v1/traces`, "--tag", tag]);
  for (const run of runs.filter((r) => !r.name.startsWith("openai-agents"))) {
    const externalId = run.name.startsWith("ai7") ? `trace:${run.traceIds[0]}` : `session:session-${run.name}${tag}`;
    const session = await sessionByExternalId(request, externalId);
    expect(session.format).toBe("otlp-protobuf");
    expectScripted(session, { finalOutput: true });
  }
});
