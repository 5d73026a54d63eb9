import { expect, test } from "./fixtures";

const AUTH = { Authorization: "Bearer e2e-test-key-0123456789" };

/** A session of `agent` whose refund call was rejected for a returned order (order and date vary), or that passed. */
function session(agent: string, i: number, failed: boolean) {
  return {
    externalId: `${agent}:${i}`,
    title: `${failed ? "Returned" : "Refunded"} order ${5000 + i}`,
    agent: { name: agent, adapter: "generic" },
    agentVersion: { version: "1", capabilities: ["overrides", "tool_policies"] },
    startedAt: new Date(Date.UTC(2025, 4, 1 + i, 10)).toISOString(),
    events: [
      {
        seq: 0,
        kind: "model_call",
        name: "m",
        input: { messages: [{ role: "user", content: `refund order ${5000 + i}` }] },
        output: { role: "assistant", content: null, toolCalls: [{ id: "c0", name: "refund_payment", args: { i } }] },
      },
      {
        seq: 1,
        kind: "tool_call",
        name: "refund_payment",
        parentSeq: 0,
        input: { callId: "c0", args: { i } },
        ...(failed
          ? { error: { type: "RefundRejected", message: `Order ${5000 + i} was returned on 2025-05-0${1 + (i % 9)}` } }
          : { output: "ok" }),
      },
      ...(failed ? [] : [{ seq: 2, kind: "final_output", name: "final_output", output: "Refunded." }]),
    ],
  };
}

test.setTimeout(180_000);

test("a static override tried from a cluster's page fixes every member and breaks no control session", async ({
  page,
  request,
}) => {
  const agent = `e2e-fix-${Date.now()}`;
  const docs = Array.from({ length: 10 }, (_, i) => session(agent, i, i < 5));
  const imported = await request.post("/api/v1/sessions?format=native", {
    headers: { ...AUTH, "content-type": "application/x-ndjson" },
    data: docs.map((d) => JSON.stringify(d)).join("\n"),
  });
  expect(imported.status()).toBe(201);
  const policy = await request.post("/api/v1/policies", {
    headers: AUTH,
    data: {
      name: `${agent} refusal`,
      agentName: agent,
      policy: {
        model: "recorded-only",
        drift: "continue_to_terminal",
        tools: {
          default: { type: "history", scope: "baseline", on_miss: "fail" },
          overrides: {
            refund_payment: { type: "static", cases: [{ match_mode: "subset", result: { refunded: false } }] },
          },
        },
      },
    },
  });
  expect(policy.status()).toBe(201);

  await page.goto(`/failures?agent=${encodeURIComponent(agent)}`);
  await page.getByTestId("cluster-row").getByRole("link").click();
  await expect(page.getByRole("heading", { level: 1 })).toContainText("RefundRejected");
  const form = page.getByTestId("try-fix");
  await form.getByLabel("Policy").selectOption({ label: `${agent} refusal` });
  await form.getByLabel("Control").fill("3");
  await form.getByRole("button", { name: "Try this fix" }).click();

  await expect(page).toHaveURL(/\/experiments\//);
  await expect
    .poll(
      async () => {
        await page.reload();
        return page.getByTestId("cluster-fix-figures").textContent();
      },
      { timeout: 90_000 },
    )
    .toBe("fixes 5 of 5 (95% interval 57%–100%), breaks none of 3 control sessions");
  await page.getByRole("link", { name: /RefundRejected/ }).click();
  await expect(page.getByTestId("cluster-fix")).toContainText("fixes 5 of 5");
});
