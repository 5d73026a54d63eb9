import { createServer, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
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
  await search.getByLabel("Fix to narrow down").selectOption({ label: `${agent} as recorded` });
  await search.getByRole("button", { name: "Find the smallest fix" }).click();
  await expect(search.getByRole("alert")).toContainText(
    "The policy changes nothing from the base policy: there is nothing to minimise.",
  );
  // Of the three changes, the refusal alone fixes every session: four probes, each a fix listed on the page.
  await search.getByLabel("Fix to narrow down").selectOption({ label: `${agent} refusal and more` });
  await search.getByRole("button", { name: "Find the smallest fix" }).click();
  const outcome = page.getByTestId("smallest-fix-outcome");
  await expect(outcome).toHaveText("refund_payment: static fixes 5 of 5 on its own (4 probes).", {
    timeout: 150_000,
  });
  await expect(page.getByTestId("smallest-fix-search")).toContainText(
    "Searched 3 changes: get_current_time: static; refund_payment: static; run settings: maxSteps.",
  );
  // Each probe is a fix of the cluster: the page lists them (reloaded: the list refreshes itself when the search
  // ends, but one CI run showed the refresh lost, which is a known flaw of the page, not what this test is about).
  await page.reload();
  await expect(page.getByTestId("cluster-fix")).toHaveCount(5);
  expect(await axe(page)).toEqual([]);
});

test("a fix of several edits: each row's errors on that row, and the smallest-fix search over the fix's edits", async ({
  page,
  request,
}) => {
  const agent = `e2e-fix-edits-${Date.now()}`;
  const docs = Array.from({ length: 3 }, (_, i) => session(agent, i, true));
  const imported = await request.post("/api/v1/sessions?format=native", {
    headers: { ...AUTH, "content-type": "application/x-ndjson" },
    data: docs.map((d) => JSON.stringify(d)).join("\n"),
  });
  expect(imported.status()).toBe(201);
  await page.goto(`/failures?agent=${encodeURIComponent(agent)}`);
  await page.getByTestId("cluster-row").getByRole("link").click();
  const form = page.getByTestId("try-fix");
  // The fix is the edits over the recording: the Policy field's default is the first saved policy, which other
  // tests' global policies would take, adding their changes to the search.
  await form.getByLabel("Policy").selectOption({ label: "Preset: recorded-only" });
  await form.getByLabel("Control").fill("0");
  await form.getByRole("button", { name: "Add an edit" }).click();
  await form.getByRole("button", { name: "Add an edit" }).click();
  const [first, second] = [
    form.getByRole("listitem", { name: "Edit 1" }),
    form.getByRole("listitem", { name: "Edit 2" }),
  ];
  await first.getByLabel("Tool").fill("refund_payment");
  await first.getByLabel("Returns (JSON)").fill('{"refunded": false}');
  await second.getByLabel("Tool").fill("refund_payment");
  await second.getByLabel("Only calls with these arguments").fill('{"i": 0}');
  await second.getByLabel("Returns (JSON)").fill("refunded");
  await form.getByRole("button", { name: "Try this fix" }).click();
  await expect(second).toContainText("Not JSON: give the result as JSON (a quoted string for text).");
  await expect(first.getByText("Not JSON")).toHaveCount(0);
  // Both edits set the first session's refund: the second row says so.
  await second.getByLabel("Returns (JSON)").fill('{"refunded": true}');
  await form.getByRole("button", { name: "Try this fix" }).click();
  await expect(second.getByRole("alert")).toHaveText("sets a call of refund_payment that edit 1 sets");
  await second.getByRole("button", { name: "Remove edit 2" }).click();
  await expect(form.getByTestId("fix-edit-row")).toHaveCount(1);
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
    .toMatch(/^fixes 3 of 3 /);
  await page.getByRole("link", { name: /^refund_payment: RefundRejected/ }).click();
  await expect(page.getByTestId("cluster-fix-edits")).toHaveText("Edits: refund_payment");
  const search = page.getByRole("form", { name: "Find the smallest fix" });
  const tried = await search.locator("option", { hasText: "with 1 edit (refund_payment)" }).textContent();
  await search.getByLabel("Fix to narrow down").selectOption({ label: tried! });
  await search.getByRole("button", { name: "Find the smallest fix" }).click();
  await expect(page.getByTestId("smallest-fix-outcome")).toHaveText(
    'refund_payment returns {"refunded":false} fixes 3 of 3 on its own (1 probe).',
    { timeout: 120_000 },
  );
  expect(await axe(page)).toEqual([]);
});

test("a smallest-fix search waiting on a live tool is listed on the jobs page with its cluster and its probes", async ({
  page,
  request,
}) => {
  const agent = `e2e-fix-job-${Date.now()}`;
  const docs = Array.from({ length: 3 }, (_, i) => session(agent, i, true));
  const imported = await request.post("/api/v1/sessions?format=native", {
    headers: { ...AUTH, "content-type": "application/x-ndjson" },
    data: docs.map((d) => JSON.stringify(d)).join("\n"),
  });
  expect(imported.status()).toBe(201);
  const listed = await request.get(`/api/v1/clusters?agentName=${encodeURIComponent(agent)}`, { headers: AUTH });
  const [cluster] = ((await listed.json()) as { clusters: { id: string; label: string }[] }).clusters;
  // The refund tool answers only when told: a probe that calls it live waits.
  const held: ServerResponse[] = [];
  const server = createServer((req, res) => {
    req.resume();
    req.on("end", () => held.push(res));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/tools`;
  let toolId = "";
  let searchId = "";
  try {
    const put = await request.post("/api/v1/executors/tools", {
      headers: AUTH,
      data: { tool: "refund_payment", url, readOnly: true, timeoutMs: 60_000 },
    });
    expect(put.status(), await put.text()).toBe(201);
    toolId = ((await put.json()) as { tool: { id: string } }).tool.id;
    await request.post("/api/v1/executors/allowed-hosts", { headers: AUTH, data: { host: "127.0.0.1" } });
    // Two changes from the recording (a live refund tool, a step limit): at most (4 + 6) / 2 = 5 probes.
    const started = await request.post(`/api/v1/clusters/${cluster!.id}/fixes/smallest`, {
      headers: AUTH,
      data: {
        policy: {
          ...RECORDING,
          maxSteps: 100,
          tools: { ...RECORDING.tools, overrides: { refund_payment: { type: "passthrough" } } },
        },
      },
    });
    expect(started.status(), await started.text()).toBe(202);
    searchId = ((await started.json()) as { searchId: string }).searchId;
    await expect.poll(() => held.length, { timeout: 60_000 }).toBeGreaterThan(0);

    await page.goto("/settings/jobs");
    const row = page.getByTestId("job-running").filter({ has: page.locator(`a[href="/failures/${cluster!.id}"]`) });
    await expect(row).toHaveAttribute("data-kind", "fix_search");
    await expect(row.getByRole("link", { name: cluster!.label })).toHaveText(cluster!.label);
    await expect(row).toContainText(`smallest-fix search · ${agent}`);
    await expect(row).toContainText(/ · probe [0-4] of at most 5/);
    await page.screenshot({ path: "test-results/jobs-with-fix-search.png", fullPage: true });
    expect(await axe(page)).toEqual([]);
  } finally {
    if (searchId)
      await request.post(`/api/v1/clusters/${cluster!.id}/fixes/smallest/${searchId}/cancel`, { headers: AUTH });
    for (const res of held.splice(0)) res.destroy();
    if (toolId) await request.delete(`/api/v1/executors/tools/${toolId}`, { headers: AUTH });
    server.closeAllConnections();
    server.close();
  }
});
