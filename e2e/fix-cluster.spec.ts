import AxeBuilder from "@axe-core/playwright";
import type { Page } from "@playwright/test";
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

async function axe(page: Page) {
  const result = await new AxeBuilder({ page }).withTags(["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"]).analyze();
  return result.violations.filter((v) => v.impact === "serious" || v.impact === "critical").map((v) => v.id);
}

const RECORDING = {
  model: "recorded-only",
  drift: "continue_to_terminal",
  tools: { default: { type: "history", scope: "baseline", on_miss: "fail" } },
};
const REFUSAL = { type: "static", cases: [{ match_mode: "subset", result: { refunded: false } }] };

test.setTimeout(300_000);

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
        tools: { ...RECORDING.tools, overrides: { refund_payment: REFUSAL } },
      },
    },
  });
  expect(policy.status()).toBe(201);
  // For the smallest-fix search: the refusal with two changes that do not matter, and the recording itself.
  const saved = [
    {
      name: `${agent} refusal and more`,
      policy: {
        ...RECORDING,
        maxSteps: 100,
        tools: {
          ...RECORDING.tools,
          overrides: {
            get_current_time: { type: "static", cases: [{ match_mode: "subset", result: {} }] },
            refund_payment: REFUSAL,
          },
        },
      },
    },
    { name: `${agent} as recorded`, policy: RECORDING },
  ];
  for (const p of saved)
    expect((await request.post("/api/v1/policies", { headers: AUTH, data: { ...p, agentName: agent } })).status()).toBe(
      201,
    );

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

  // The smallest fix: none searched yet; a policy that changes nothing is refused in words.
  const search = page.getByRole("form", { name: "Find the smallest fix" });
  await expect(page.getByTestId("smallest-fix-empty")).toContainText("No search yet.");
  expect(await axe(page)).toEqual([]);
  await search.getByLabel("Policy to narrow down").selectOption({ label: `${agent} as recorded` });
  await search.getByRole("button", { name: "Find the smallest fix" }).click();
  await expect(search.getByRole("alert")).toContainText(
    "The policy changes nothing from the base policy: there is nothing to minimise.",
  );
  // Of the three changes, the refusal alone fixes every session: four probes, each a fix listed on the page.
  await search.getByLabel("Policy to narrow down").selectOption({ label: `${agent} refusal and more` });
  await search.getByRole("button", { name: "Find the smallest fix" }).click();
  const outcome = page.getByTestId("smallest-fix-outcome");
  await expect(outcome).toHaveText("refund_payment: static fixes 5 of 5 on its own (4 probes).", {
    timeout: 150_000,
  });
  await expect(page.getByTestId("smallest-fix-search")).toContainText(
    "Searched 3 changes: get_current_time: static; refund_payment: static; run settings: maxSteps.",
  );
  await expect(page.getByTestId("cluster-fix")).toHaveCount(5);
  expect(await axe(page)).toEqual([]);
});
