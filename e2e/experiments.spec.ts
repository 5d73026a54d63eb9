import { expect, test } from "./fixtures";

const AUTH = { Authorization: "Bearer e2e-test-key-0123456789" };
const RECORDED = {
  model: "recorded-only",
  drift: "continue_to_terminal",
  tools: { default: { type: "history", scope: "baseline", on_miss: "fail" } },
};

test("run the recorded policy over the τ-bench cohort, watch it finish, and open a comparison", async ({
  page,
  request,
}) => {
  const name = `Recorded regression ${Date.now()}`;
  const saved = await request.post("/api/v1/policies", { headers: AUTH, data: { name, policy: RECORDED } });
  expect(saved.status()).toBe(201);

  await page.goto("/experiments");
  await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Experiments" }).click();
  await expect(page.getByRole("heading", { name: "Experiments", exact: true })).toBeVisible();
  await page.getByRole("link", { name: "New experiment" }).click();

  const agentSelect = page.getByLabel(/Agent version/);
  const tau = agentSelect.locator("option", { hasText: "tau-bench-airline-agent" });
  await agentSelect.selectOption((await tau.getAttribute("value")) ?? "");
  const cohortText = await page.getByTestId("cohort-size").innerText();
  const cohort = Number(/Cohort: (\d+) session/.exec(cohortText)?.[1]);
  expect(cohort).toBeGreaterThan(1);

  const policySelect = page.getByLabel(/Policy version/);
  await policySelect.selectOption(
    (await policySelect.locator("option", { hasText: name }).getAttribute("value")) ?? "",
  );
  await page.getByLabel("Name").fill("τ-bench recorded regression");
  await page.getByRole("button", { name: `Start experiment over ${cohort} sessions` }).click();

  await expect(page.getByRole("heading", { name: "τ-bench recorded regression" })).toBeVisible();
  await expect(page).toHaveURL(/\/experiments\/(?!new$)[^/]+$/);
  const experimentId = new URL(page.url()).pathname.split("/").at(-1)!;
  // It finishes on its own (the page polls): every session reproduces exactly.
  await expect(page.getByTestId("experiment-summary")).toContainText(`${cohort} of ${cohort} exact`);
  await expect(page.getByRole("status")).toHaveCount(0);
  await expect(page.getByTestId("experiment-result")).toHaveCount(cohort);
  await expect(page.locator("header, div").getByText("completed", { exact: true }).first()).toBeVisible();

  // The API answers the same per-session results.
  const api = await request.get(`/api/v1/experiments/${experimentId}`, { headers: AUTH });
  expect(api.status()).toBe(200);
  const body = (await api.json()) as {
    experiment: { status: string; total: number; results: { sessionId: string; comparability: string }[] };
  };
  expect(body.experiment).toMatchObject({ status: "completed", total: cohort });
  expect(body.experiment.results.map((r) => r.comparability)).toEqual(Array.from({ length: cohort }, () => "exact"));
  const { versionId } = (await saved.json()) as { versionId: string };
  const refused = await request.post("/api/v1/experiments", {
    headers: AUTH,
    data: { name: "x", policyVersionId: versionId, agentVersionId: "no-such-version" },
  });
  expect(refused.status()).toBe(404);
  expect(((await refused.json()) as { error: { code: string } }).error.code).toBe("not_found");

  // A script finds the agent version in the sessions API and starts the same experiment there.
  const list = await request.get("/api/v1/sessions?agent=tau-bench-airline-agent&limit=1", { headers: AUTH });
  const [first] = ((await list.json()) as { sessions: { agentVersionId: string }[] }).sessions;
  expect(first?.agentVersionId).toBeTruthy();
  const viaApi = await request.post("/api/v1/experiments", {
    headers: AUTH,
    data: { name: "τ-bench via API", policyVersionId: versionId, agentVersionId: first!.agentVersionId },
  });
  expect(viaApi.status()).toBe(201);
  const started = (await viaApi.json()) as { experiment: { id: string; total: number } };
  expect(started.experiment.total).toBe(cohort);
  await expect
    .poll(async () => {
      const r = await request.get(`/api/v1/experiments/${started.experiment.id}`, { headers: AUTH });
      return ((await r.json()) as { experiment: { status: string } }).experiment.status;
    })
    .toBe("completed");

  // The list shows it done.
  await page.getByRole("navigation", { name: "Breadcrumb" }).getByRole("link", { name: "Experiments" }).click();
  const row = page.getByTestId("experiment-row").filter({ hasText: "τ-bench recorded regression" });
  await expect(row).toContainText(`${cohort} / ${cohort}`);
  await expect(row).toContainText("completed");
  await expect(row).toContainText(`${name} v1`);

  // One comparison, from the experiment's table.
  await row.getByRole("link", { name: "τ-bench recorded regression" }).click();
  await page
    .getByTestId("experiment-result")
    .first()
    .getByRole("link", { name: /^Compare / })
    .click();
  await expect(page).toHaveURL(/\/replays\/[^/]+\/compare/);
  await expect(page.getByTestId("compare-row").first()).toBeVisible();
  await expect(page.getByTestId("evidence-panel")).toContainText("recorded");
});
