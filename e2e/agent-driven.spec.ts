import OpenAI from "openai";
import { expect, test } from "./fixtures";
import { AUTH } from "./replay-form";

const SYSTEM = "You are the refund agent of Harbor & Pine.";
const ASK = `Please refund order 7310 (agent-driven e2e ${Date.now()}).`;
const TOOLS = [
  {
    type: "function" as const,
    function: {
      name: "lookup_order",
      description: "Look an order up",
      parameters: { type: "object", properties: { orderId: { type: "string" } }, required: ["orderId"] },
    },
  },
];
/** The recording: look the order up, then answer. */
const CHAT_LOG = {
  model: "gpt-4o-mini",
  tools: TOOLS,
  messages: [
    { role: "system", content: SYSTEM },
    { role: "user", content: ASK },
    {
      role: "assistant",
      content: null,
      tool_calls: [
        { id: "call_1", type: "function", function: { name: "lookup_order", arguments: '{"orderId":"7310"}' } },
      ],
    },
    { role: "tool", tool_call_id: "call_1", content: '{"status":"delivered","amount":18}' },
    { role: "assistant", content: "Order 7310 is refunded ($18)." },
  ],
};

/** Reads `export NAME=value` lines into a map. */
function environmentOf(text: string): Record<string, string> {
  return Object.fromEntries(
    text
      .split("\n")
      .map((line) => /^export ([A-Z_]+)=(.*)$/.exec(line))
      .filter((m): m is RegExpExecArray => m !== null)
      .map((m) => [m[1]!, m[2]!]),
  );
}

test("run with my agent: start from the form, point a real OpenAI client at the branch, watch its steps arrive, compare", async ({
  page,
  request,
}) => {
  const imported = await request.post("/api/v1/sessions", { headers: AUTH, data: CHAT_LOG });
  expect(imported.status(), await imported.text()).toBe(201);
  const [session] = ((await imported.json()) as { sessions: { id: string }[] }).sessions;

  await page.goto(`/sessions/${session!.id}/replay`);
  await page.getByLabel(/The rules the branch runs under/).selectOption("preset:recorded");
  await page.getByRole("radio", { name: /Run with my agent/ }).check();
  await page.getByRole("button", { name: "Start and wait for my agent" }).click();

  const panel = page.getByRole("region", { name: "Connect your agent" });
  await expect(panel).toBeVisible();
  const env = environmentOf(await page.getByTestId("agent-environment").innerText());
  expect(Object.keys(env)).toEqual([
    "OPENAI_BASE_URL",
    "OPENAI_API_KEY",
    "ANTHROPIC_BASE_URL",
    "ANTHROPIC_API_KEY",
    "BRANCHPOINT_REPLAY_URL",
    "BRANCHPOINT_REPLAY_TOKEN",
  ]);
  const token = env.BRANCHPOINT_REPLAY_TOKEN!;
  expect(env.OPENAI_API_KEY).toBe(token);
  const replayUrl = env.BRANCHPOINT_REPLAY_URL!;
  const replayId = replayUrl.split("/").at(-1)!;

  await panel.getByRole("link", { name: "Open the branch →" }).click();
  await expect(page).toHaveURL(new RegExp(`/replays/${replayId}$`));
  await expect(page.getByTestId("replay-progress-text")).toContainText("Waiting for your agent's first call");

  // The agent: the real openai client at the printed base URL, asking the tool-call contract before its tool.
  const client = new OpenAI({ apiKey: env.OPENAI_API_KEY, baseURL: env.OPENAI_BASE_URL, maxRetries: 0 });
  const messages: OpenAI.Chat.ChatCompletionMessageParam[] = [
    { role: "system", content: SYSTEM },
    { role: "user", content: ASK },
  ];
  const first = (await client.chat.completions.create({ model: "gpt-4o-mini", messages, tools: TOOLS })).choices[0]!
    .message;
  const call = first.tool_calls![0]!;
  expect(call.type === "function" && call.function.name).toBe("lookup_order");

  // Its first step is on the page while it is still running.
  await expect(page.getByTestId("replay-progress-text")).toContainText("Your agent is running: 1 step so far");
  await expect(page.getByTestId("replay-step")).toHaveCount(1);
  await expect(page.getByTestId("replay-step").first()).toContainText("lookup_order");

  const asked = await fetch(`${replayUrl}/agent/tool-calls`, {
    method: "POST",
    headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
    body: JSON.stringify({ tool: "lookup_order", args: { orderId: "7310" }, callId: call.id }),
  });
  const answer = (await asked.json()) as { action: string; source: string; output: unknown };
  expect(answer).toMatchObject({ action: "return", source: "recorded" });
  messages.push({ role: "assistant", content: first.content, tool_calls: first.tool_calls });
  messages.push({
    role: "tool",
    tool_call_id: call.id,
    content: typeof answer.output === "string" ? answer.output : JSON.stringify(answer.output),
  });
  const final = (await client.chat.completions.create({ model: "gpt-4o-mini", messages, tools: TOOLS })).choices[0]!
    .message.content;
  expect(final).toBe("Order 7310 is refunded ($18).");

  const finished = await fetch(`${replayUrl}/agent/finish`, {
    method: "POST",
    headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
    body: JSON.stringify({ finalOutput: final }),
  });
  expect(finished.status).toBe(200);

  // The page settles on the finished branch; the comparison says it matches its base.
  await expect(page.getByTestId("replay-progress-text")).toHaveCount(0);
  await page.getByRole("link", { name: "Compare with base" }).click();
  await expect(page).toHaveURL(/\/compare/);
  await expect(page.getByText(/exact/i).first()).toBeVisible();

  // The token ends with the branch.
  const after = await client.chat.completions.create({ model: "gpt-4o-mini", messages }).catch((e: unknown) => e);
  expect(after).toBeInstanceOf(OpenAI.PermissionDeniedError);
});
