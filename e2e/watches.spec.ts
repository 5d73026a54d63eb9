import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import AxeBuilder from "@axe-core/playwright";
import type { Page } from "@playwright/test";
import { expect, test } from "./fixtures";

const AUTH = { Authorization: "Bearer e2e-test-key-0123456789" };

/** A session of `agent` whose lookup failed with a not-found order (ids vary), or that passed. */
function session(agent: string, version: string, i: number, failed: boolean) {
  return {
    externalId: `${agent}:${version}:${i}`,
    title: `Order ${i}`,
    agent: { name: agent, adapter: "generic" },
    agentVersion: { version, capabilities: [] },
    startedAt: new Date(Date.UTC(2025, 4, 1, 10, i)).toISOString(),
    events: [
      {
        seq: 0,
        kind: "model_call",
        name: "m",
        input: { messages: [{ role: "user", content: "where is my order" }] },
        output: { role: "assistant", content: null, toolCalls: [{ id: "c0", name: "lookup_order", args: { i } }] },
      },
      {
        seq: 1,
        kind: "tool_call",
        name: "lookup_order",
        parentSeq: 0,
        input: { callId: "c0", args: { i } },
        ...(failed ? { error: { type: "NotFound", message: `Order '${5000 + i}' not found` } } : { output: "ok" }),
      },
      ...(failed ? [] : [{ seq: 2, kind: "final_output", name: "final_output", output: "On its way." }]),
    ],
  };
}

async function axe(page: Page) {
  const result = await new AxeBuilder({ page }).withTags(["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"]).analyze();
  return result.violations.filter((v) => v.impact === "serious" || v.impact === "critical").map((v) => v.id);
}

test.setTimeout(180_000);

test("a watch saved on the page posts a new cluster to a webhook once, and lists the delivery", async ({
  page,
  request,
}) => {
  const got: unknown[] = [];
  const receiver = createServer((req, res) => {
    let text = "";
    req.on("data", (c: Buffer) => (text += c.toString("utf8")));
    req.on("end", () => {
      got.push(JSON.parse(text));
      res.writeHead(200).end("ok");
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve));
  const { port } = receiver.address() as AddressInfo;
  try {
    const agent = `e2e-watches-${Date.now()}`;
    const post = (docs: object[]) =>
      request.post("/api/v1/sessions?format=native", {
        headers: { ...AUTH, "content-type": "application/x-ndjson" },
        data: docs.map((d) => JSON.stringify(d)).join("\n"),
      });
    expect((await post(Array.from({ length: 3 }, (_, i) => session(agent, "1", i, false)))).status()).toBe(201);
    const host = await request.post("/api/v1/executors/allowed-hosts", {
      headers: AUTH,
      data: { host: `127.0.0.1:${port}` },
    });
    expect(host.status()).toBe(201);

    await page.goto("/failures");
    const tab = page.getByRole("navigation", { name: "Agents" }).getByRole("link", { name: agent });
    await tab.click();
    await expect(tab).toHaveAttribute("aria-current", "page");
    await page.getByRole("link", { name: "Watches", exact: true }).click();
    await expect(page).toHaveURL(/\/failures\/watches\?agent=/);
    await expect(page.getByText(`No watches on ${agent}`)).toBeVisible();

    const form = page.getByRole("form", { name: "New watch" });
    await form.getByLabel("Name").fill("Lookups failing");
    await form.getByLabel("Webhook URL (optional)").fill("http://169.254.169.254/latest");
    await form.getByRole("button", { name: "Save watch" }).click();
    await expect(form).toContainText("not on the executor allow-list");

    await form.getByLabel("Webhook URL (optional)").fill(`http://127.0.0.1:${port}/hook`);
    await form.getByRole("button", { name: "Save watch" }).click();
    await expect(form.getByRole("status")).toContainText("Saved “Lookups failing”.");
    await expect(page.getByRole("heading", { name: "Lookups failing" })).toBeVisible();
    await expect(page.getByText("Not fired yet.")).toBeVisible();
    expect(await axe(page)).toEqual([]);

    // Failed lookups arrive: a new cluster; the job evaluates the watch and posts once.
    expect((await post(Array.from({ length: 4 }, (_, i) => session(agent, "2", i, true)))).status()).toBe(201);
    await expect.poll(() => got.length, { timeout: 60_000 }).toBe(1);
    expect(got[0]).toMatchObject({ agent: { name: agent }, text: expect.stringContaining("New failure cluster") });

    await page.reload();
    await expect(page.getByTestId("watch-trigger")).toHaveCount(1);
    const delivery = page.getByTestId("watch-delivery");
    await expect(delivery).toHaveCount(1);
    await expect(delivery).toContainText("delivered");
    await expect(delivery).toContainText("200");
    expect(await axe(page)).toEqual([]);
  } finally {
    await new Promise<void>((resolve) => receiver.close(() => resolve()));
  }
});
