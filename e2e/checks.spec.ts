import { expect, test } from "./fixtures";

const AUTH = { Authorization: "Bearer e2e-test-key-0123456789" };
const SHOTS = "test-results/screens";

test("save outcome checks on their page (a bad pattern is refused beside its field), then judge an experiment by one", async ({
  page,
  request,
}) => {
  const stamp = Date.now();
  await page.goto("/sessions");
  await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Checks" }).click();
  await expect(page.getByRole("heading", { name: "Outcome checks", exact: true })).toBeVisible();
  const form = page.getByRole("form", { name: "New outcome check" });

  // A pattern RE2 cannot run: refused beside its field, nothing saved.
  const before = await page.getByTestId("check-row").count();
  await form.getByLabel("Name").fill(`lookahead ${stamp}`);
  await form.getByLabel("Kind").selectOption({ label: "Final answer matches a pattern" });
  await form.getByLabel("Pattern").fill("(?=refund)r");
  await form.getByRole("button", { name: "Save check" }).click();
  await expect(form.getByText(/lookarounds and backreferences are not supported/).first()).toBeVisible();
  await expect(form.getByLabel("Pattern")).toHaveAttribute("aria-invalid", "true");
  await expect(page.getByTestId("check-row")).toHaveCount(before);

  // A JSON value that is not JSON is caught before anything is sent.
  await form.getByLabel("Kind").selectOption({ label: "A value in the final answer equals" });
  await form.getByLabel("Path").fill("$.status");
  await form.getByLabel("Equals (JSON)").fill("refunded");
  await form.getByRole("button", { name: "Save check" }).click();
  await expect(form.getByText('Not JSON: write 7, "shipped", true, null or an object.')).toBeVisible();

  // A step limit every τ-bench run breaks, and that a branch cut to two steps keeps.
  const name = `At most 3 steps ${stamp}`;
  await form.getByLabel("Name").fill(name);
  await form.getByLabel("Kind").selectOption({ label: "At most N steps" });
  await form.getByLabel("Most model and tool steps").fill("3");
  await form.getByRole("button", { name: "Save check" }).click();
  await expect(form.getByText(`Saved “${name}”.`)).toBeVisible();
  const row = page.getByTestId("check-row").filter({ hasText: name });
  await expect(row).toContainText("at most 3 model and tool steps");
  await expect(row).toContainText("At most N steps");

  // The API sees exactly what the form saved.
  const listed = await request.get("/api/v1/checks", { headers: AUTH });
  const checks = ((await listed.json()) as { checks: { name: string; definition: unknown }[] }).checks;
  expect(checks.find((c) => c.name === name)?.definition).toEqual({ kind: "max_steps", max: 3 });
  await page.screenshot({ path: `${SHOTS}/checks.png`, fullPage: true });

  // The same name again is refused.
  await form.getByLabel("Name").fill(name);
  await form.getByLabel("Most model and tool steps").fill("4");
  await form.getByRole("button", { name: "Save check" }).click();
  await expect(form.getByText(`A check named "${name}" already exists; choose another name.`)).toBeVisible();

  // An experiment judged by the check: every base run had more than 3 steps, every branch stops at 2.
  const policyName = `Two steps ${stamp}`;
  const saved = await request.post("/api/v1/policies", {
    headers: AUTH,
    data: {
      name: policyName,
      policy: {
        model: "recorded-only",
        drift: "continue_to_terminal",
        maxSteps: 2,
        tools: { default: { type: "history", scope: "baseline", on_miss: "fail" } },
      },
    },
  });
  expect(saved.status()).toBe(201);
  await page.goto("/experiments/new");
  const agentSelect = page.getByLabel(/Agent version/);
  const tau = agentSelect.locator("option", { hasText: "tau-bench-airline-agent" });
  await agentSelect.selectOption((await tau.getAttribute("value")) ?? "");
  const cohort = Number(/Cohort: (\d+) session/.exec(await page.getByTestId("cohort-size").innerText())?.[1]);
  const policySelect = page.getByLabel(/Policy version/);
  await policySelect.selectOption(
    (await policySelect.locator("option", { hasText: policyName }).getAttribute("value")) ?? "",
  );
  await page.getByRole("checkbox", { name: new RegExp(name) }).check();
  await page.getByLabel("Name").fill(`Judged ${stamp}`);
  await page.getByRole("button", { name: `Start experiment over ${cohort} sessions` }).click();
  await expect(page.getByRole("heading", { name: `Judged ${stamp}` })).toBeVisible();

  const outcomes = page.getByTestId("experiment-outcomes");
  await expect(outcomes).toContainText(`Branches passed100% ${cohort} of ${cohort}`);
  await expect(outcomes).toContainText(`Base runs passed0% 0 of ${cohort}`);
  await expect(outcomes).toContainText(`${cohort} failed → passed`);
  await expect(page.getByTestId("experiment-outcome")).toHaveText(
    Array.from({ length: cohort }, () => "failed → passed"),
  );
  await page.screenshot({ path: `${SHOTS}/experiment-outcomes.png`, fullPage: true });
});
