import AxeBuilder from "@axe-core/playwright";
import { readFileSync } from "node:fs";
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

test("an experiment waiting for fixtures says so, and one fixture resumes every member paused on the same call", async ({
  page,
  request,
}) => {
  const run = Date.now();
  // Four runs of a fresh agent version: three look up order 4821, one order 4822.
  const raw = readFileSync("prisma/seed/native/refund-agent.json", "utf8");
  const ids: string[] = [];
  for (const [i, order] of ["4821", "4821", "4821", "4822"].entries()) {
    const doc = JSON.parse(raw.replaceAll("4821", order)) as {
      externalId: string;
      title: string;
      agentVersion: { version: string };
    };
    doc.externalId = `batch-${run}-${i}`;
    doc.title = `Batch copy ${i} (order ${order})`;
    doc.agentVersion.version = `batch-${run}`;
    const res = await request.post("/api/v1/sessions", { headers: AUTH, data: doc });
    expect(res.status(), await res.text()).toBe(201);
    ids.push(((await res.json()) as { sessions: { id: string }[] }).sessions[0]!.id);
  }
  const listed = await request.get(`/api/v1/sessions?q=batch-${run}-0`, { headers: AUTH });
  const agentVersionId = ((await listed.json()) as { sessions: { agentVersionId: string }[] }).sessions[0]!
    .agentVersionId;
  const policy = {
    model: "recorded-only",
    drift: "continue_to_terminal",
    tools: {
      default: { type: "history", scope: "baseline", on_miss: "fail" },
      overrides: { lookup_order: { type: "fixture" } },
    },
  };
  const saved = await request.post("/api/v1/policies", { headers: AUTH, data: { name: `ask ${run}`, policy } });
  expect(saved.status(), await saved.text()).toBe(201);
  const { versionId } = (await saved.json()) as { versionId: string };
  const started = await request.post("/api/v1/experiments", {
    headers: AUTH,
    data: { name: `Batch fixtures ${run}`, policyVersionId: versionId, agentVersionId },
  });
  expect(started.status(), await started.text()).toBe(201);
  const experimentId = ((await started.json()) as { experiment: { id: string } }).experiment.id;

  // The run ends, but it is not "completed": every member waits for a fixture.
  type Api = { experiment: { status: string; state: string; counts: Record<string, number> } };
  await expect
    .poll(async () => {
      const r = await request.get(`/api/v1/experiments/${experimentId}`, { headers: AUTH });
      return ((await r.json()) as Api).experiment.state;
    })
    .toBe("waiting_for_fixtures");
  const before = (
    (await await request.get(`/api/v1/experiments/${experimentId}`, { headers: AUTH }).then((r) => r.json())) as Api
  ).experiment;
  expect(before.status).toBe("completed");
  expect(before.counts).toEqual({
    total: 4,
    finished: 0,
    failed: 0,
    waitingForFixture: 4,
    waitingForApproval: 0,
    running: 0,
    queued: 0,
  });

  await page.goto(`/experiments/${experimentId}`);
  await expect(page.getByTestId("experiment-counts")).toHaveText("4 waiting for a fixture (of 4)");
  await expect(page.getByText("waiting for fixtures", { exact: true })).toBeVisible();
  const groups = page.getByTestId("fixture-group");
  await expect(groups).toHaveCount(2);
  const three = groups.filter({ hasText: "3 replays wait for lookup_order" });
  await expect(three).toContainText('"order_id": "4821"');
  await page.screenshot({ path: "test-results/rx-experiment-waiting.png", fullPage: true });

  await three.getByLabel("Note (where the value comes from)").fill("the recorded lookup of order 4821");
  await three.getByRole("button", { name: "Supply to all 3 replays" }).click();
  await expect(page.getByTestId("experiment-counts")).toHaveText("3 finished · 1 waiting for a fixture (of 4)");
  await expect(groups).toHaveCount(1);
  await expect(groups.first()).toContainText("1 replay waits for lookup_order");
  await page.screenshot({ path: "test-results/rx-experiment-after-batch.png", fullPage: true });

  // Every one of the three got the same fixture and finished; the fourth still waits.
  const after = (await (await request.get(`/api/v1/experiments/${experimentId}`, { headers: AUTH })).json()) as {
    experiment: { results: { sessionId: string; status: string }[] };
  };
  const statusOf = new Map(after.experiment.results.map((r) => [r.sessionId, r.status]));
  expect(ids.map((id) => statusOf.get(id))).toEqual(["completed", "completed", "completed", "paused"]);
});

test("an experiment over part of a cohort: the session browser's filters, counted before starting", async ({
  page,
  request,
}) => {
  const listed = (await (
    await request.get("/api/v1/sessions?agent=tau-bench-airline-agent&limit=200", { headers: AUTH })
  ).json()) as { sessions: { toolNames: string[] }[] };
  const all = listed.sessions;
  // A tool some sessions called and others did not.
  const tool = [...new Set(all.flatMap((s) => s.toolNames))].find((t) => {
    const n = all.filter((s) => s.toolNames.includes(t)).length;
    return n > 0 && n < all.length;
  })!;
  const matching = all.filter((s) => s.toolNames.includes(tool)).length;
  const name = `Subset policy ${Date.now()}`;
  expect((await request.post("/api/v1/policies", { headers: AUTH, data: { name, policy: RECORDED } })).status()).toBe(
    201,
  );

  await page.goto("/experiments/new");
  const agentSelect = page.getByLabel(/Agent version/);
  await agentSelect.selectOption(
    (await agentSelect.locator("option", { hasText: "tau-bench-airline-agent" }).getAttribute("value")) ?? "",
  );
  const policySelect = page.getByLabel(/Policy version/);
  await policySelect.selectOption(
    (await policySelect.locator("option", { hasText: name }).getAttribute("value")) ?? "",
  );
  await page.getByLabel("Tool used").fill(tool);
  await expect(page.getByTestId("cohort-matching")).toHaveText(`${matching} of ${all.length} sessions match.`);
  await page.getByLabel("Started on or after").fill("2001-01-01");
  await page.getByLabel("Started on or before").fill("2000-01-01");
  await expect(page.getByTestId("cohort-matching")).toHaveText("The first day comes after the last.");
  await page.getByLabel("Started on or before").fill("");
  await page.getByLabel("Started on or after").fill("");
  await expect(page.getByTestId("cohort-matching")).toHaveText(`${matching} of ${all.length} sessions match.`);
  await page.screenshot({ path: "test-results/experiment-subset.png", fullPage: true });

  await page.getByLabel("Name").fill(`Subset by ${tool}`);
  await page
    .getByRole("button", { name: `Start experiment over ${matching} session${matching === 1 ? "" : "s"}` })
    .click();
  await expect(page.getByRole("heading", { name: `Subset by ${tool}` })).toBeVisible();
  const experimentId = new URL(page.url()).pathname.split("/").at(-1)!;
  const body = (await (await request.get(`/api/v1/experiments/${experimentId}`, { headers: AUTH })).json()) as {
    experiment: { results: unknown[] };
  };
  expect(body.experiment.results).toHaveLength(matching);
});

test("an experiment's charts: pass rates with intervals, first divergences, misses per tool, cost and latency, each with its numbers in words", async ({
  page,
  request,
}) => {
  const stamp = Date.now();
  // Recorded, except that the user lookup now answers "no such user" (the branches that looked a user up diverge
  // there) and no direct-flight search is answered (a miss).
  const policy = {
    ...RECORDED,
    tools: {
      default: { type: "history", scope: "baseline", on_miss: "error_result" },
      overrides: {
        get_user_details: { type: "static", cases: [{ match_mode: "subset", result: { error: "no such user" } }] },
        // No case matches a real search: every direct-flight search misses.
        search_direct_flight: {
          type: "static",
          cases: [{ match_mode: "exact", match: { origin: "nowhere" }, result: [] }],
          on_miss: "error_result",
        },
      },
    },
  };
  const saved = await request.post("/api/v1/policies", { headers: AUTH, data: { name: `Charts ${stamp}`, policy } });
  expect(saved.status()).toBe(201);
  const { versionId } = (await saved.json()) as { versionId: string };
  const list = await request.get("/api/v1/sessions?agent=tau-bench-airline-agent&limit=1", { headers: AUTH });
  const [first] = ((await list.json()) as { sessions: { agentVersionId: string }[] }).sessions;
  const started = await request.post("/api/v1/experiments", {
    headers: AUTH,
    data: {
      name: `Charts ${stamp}`,
      policyVersionId: versionId,
      agentVersionId: first!.agentVersionId,
      checks: [{ name: "books a reservation", definition: { kind: "tool_called", tool: "book_reservation" } }],
    },
  });
  expect(started.status()).toBe(201);
  const experimentId = ((await started.json()) as { experiment: { id: string } }).experiment.id;
  type Api = {
    experiment: {
      status: string;
      summary: {
        outcomes: Record<"base" | "branch", { successes: number; n: number; rate: number; low: number; high: number }>;
      };
      results: {
        session: { label: string };
        firstDivergence: { pairIndex: number } | null;
        deltas: { costUsd: number; latencyMs: number } | null;
      }[];
    };
  };
  let api: Api["experiment"] | null = null;
  await expect
    .poll(
      async () => {
        const r = await request.get(`/api/v1/experiments/${experimentId}`, { headers: AUTH });
        api = ((await r.json()) as Api).experiment;
        return api.status;
      },
      { timeout: 60_000 },
    )
    .toBe("completed");
  const { summary, results } = api!;
  const pct = (x: number) => Math.round(x * 100);
  const rate = (r: Api["experiment"]["summary"]["outcomes"]["base"]) =>
    `${r.successes} of ${r.n} (${pct(r.rate)}%, 95% interval ${pct(r.low)}–${pct(r.high)}%)`;
  expect(results.every((r) => r.deltas !== null)).toBe(true);

  await page.goto(`/experiments/${experimentId}`);
  const charts = page.getByTestId("experiment-charts");
  const passRate = charts.getByTestId("chart-pass-rate");
  await expect(passRate.getByTestId("chart-summary")).toHaveText(
    `Base runs passed ${rate(summary.outcomes.base)}; branches passed ${rate(summary.outcomes.branch)}.`,
  );
  await expect(passRate.locator(".recharts-bar-rectangle")).toHaveCount(2);
  await expect(passRate.locator(".recharts-errorBar")).toHaveCount(2);

  // Where each branch first diverged, as the API says.
  const counts = new Map<number, number>();
  for (const r of results)
    if (r.firstDivergence) counts.set(r.firstDivergence.pairIndex, (counts.get(r.firstDivergence.pairIndex) ?? 0) + 1);
  expect(counts.size).toBeGreaterThan(0);
  const never = results.filter((r) => !r.firstDivergence).length;
  const buckets = [...counts].sort((a, b) => a[0] - b[0]);
  const divergence = charts.getByTestId("chart-first-divergence");
  await expect(divergence.getByTestId("chart-summary")).toHaveText(
    `Of ${results.length} finished branches, ${never} never diverged from the base run; ${results.length - never} first diverged at ${buckets.map(([step, n]) => `step ${step} (${n})`).join(", ")}.`,
  );
  await expect(divergence.locator(".recharts-bar-rectangle")).toHaveCount(buckets.length);

  // The user lookups answered by the static rule are not misses; the flight searches are, and nothing else.
  const coverage = (await (
    await request.get(`/api/v1/experiments/${experimentId}/coverage`, { headers: AUTH })
  ).json()) as {
    coverage: { tools: { tool: string; calls: number; misses: { count: number }[] }[] };
  };
  const missRows = coverage.coverage.tools
    .filter((t) => t.calls > 0)
    .map((t) => ({ tool: t.tool, calls: t.calls, missed: t.misses.reduce((n, m) => n + m.count, 0) }));
  const missed = missRows.filter((t) => t.missed > 0);
  expect(missed.map((t) => t.tool)).toEqual(["search_direct_flight"]);
  const search = missed[0]!;
  expect(search.missed).toBe(search.calls);
  const misses = charts.getByTestId("chart-miss-rate");
  await expect(misses.getByTestId("chart-summary")).toHaveText(
    `search_direct_flight missed ${search.calls} of ${search.calls} calls (100%); the other ${missRows.length - 1} tools never missed.`,
  );
  await misses.getByText("Show the numbers").click();
  await expect(misses.getByTestId("chart-row").first()).toHaveText(
    new RegExp(`^search_direct_flight\\s*${search.calls}\\s*${search.calls}\\s*100%$`),
  );
  await expect(misses.getByTestId("chart-row")).toHaveCount(missRows.length);

  // Cost and latency against the base: per branch, or one sentence when every branch matched its base.
  for (const [id, key, zero] of [
    ["cost-delta", "costUsd", "cost the same as their base runs (Δ $0)"],
    ["latency-delta", "latencyMs", "took as long as their base runs (Δ 0 ms)"],
  ] as const) {
    const chart = charts.getByTestId(`chart-${id}`);
    if (results.every((r) => r.deltas![key] === 0)) {
      await expect(chart.getByTestId("chart-summary")).toContainText(`All ${results.length} finished branches ${zero}`);
    } else {
      await expect(chart.getByTestId("chart-summary")).toContainText(`Over ${results.length} finished branches`);
      await chart.getByText("Show the numbers").click();
      await expect(chart.getByTestId("chart-row")).toHaveCount(results.length);
    }
  }

  for (const theme of ["light", "dark"] as const) {
    await page.context().addCookies([{ name: "branchpoint-theme", value: theme, url: "http://127.0.0.1" }]);
    await page.reload();
    await expect(passRate.locator(".recharts-bar-rectangle")).toHaveCount(2);
    await page.mouse.move(0, 0);
    await charts.screenshot({ path: `test-results/screens/experiment-charts-${theme}.png` });
    for (const id of ["pass-rate", "first-divergence", "miss-rate", "cost-delta", "latency-delta"])
      await charts.getByTestId(`chart-${id}`).screenshot({ path: `test-results/screens/chart-${id}-${theme}.png` });
    // The whole page in each theme: the charts, and the header around them (its policy link among its text).
    const axe = await new AxeBuilder({ page }).withTags(["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"]).analyze();
    expect(
      axe.violations
        .filter((v) => v.impact === "serious" || v.impact === "critical")
        .map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(" ")).join(", ")}`),
    ).toEqual([]);
  }
  await page.context().addCookies([{ name: "branchpoint-theme", value: "light", url: "http://127.0.0.1" }]);
});
