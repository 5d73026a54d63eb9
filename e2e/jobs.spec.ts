import { createServer, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import type { APIRequestContext, Browser, Page } from "@playwright/test";
import { lastToolResult, REFUND_SESSION, startScriptedModel } from "../scripts/scripted-model";
import { expect, test } from "./fixtures";

const AUTH = { Authorization: "Bearer e2e-test-key-0123456789" };
const FAIL_ON_MISS = {
  model: "recorded-only",
  drift: "continue_to_terminal",
  tools: { default: { type: "history", scope: "baseline", on_miss: "fail" } },
};

type ApiReplay = { id: string; status: string; finishedAt: string | null; error: { message: string } | null };

async function replayOf(request: APIRequestContext, id: string): Promise<ApiReplay> {
  return ((await (await request.get(`/api/v1/replays/${id}`, { headers: AUTH })).json()) as { replay: ApiReplay })
    .replay;
}

/** Waits until a worker has run the replay (the POST answers with it queued). */
async function settled(request: APIRequestContext, id: string): Promise<ApiReplay> {
  await expect
    .poll(async () => (await replayOf(request, id)).status, { timeout: 30_000 })
    .not.toMatch(/^(queued|running)$/);
  return replayOf(request, id);
}

test("the jobs page lists a failed replay with its reason, and Retry runs it again on a worker", async ({
  page,
  request,
}) => {
  const sessions = (await (await request.get("/api/v1/sessions?q=refund&limit=200", { headers: AUTH })).json()) as {
    sessions: { id: string; title: string | null }[];
  };
  // The demo session itself: other specs import copies of it whose titles also match "refund".
  const sessionId = sessions.sessions.find((s) => s.title === "Refund for cracked pour-over set (order 4821)")!.id;
  // An argument the recording never saw, under a rule that stops on a miss: the run ends failed.
  const started = await request.post("/api/v1/replays", {
    headers: AUTH,
    data: {
      sessionId,
      policy: FAIL_ON_MISS,
      edits: [{ seq: 1, op: "replace_tool_args", value: { order_id: "9999" } }],
    },
  });
  expect(started.status()).toBe(201);
  const { id } = ((await started.json()) as { replay: ApiReplay }).replay;
  const failed = await settled(request, id);
  expect(failed.status).toBe("failed");

  await page.goto("/settings");
  await page.getByRole("link", { name: /Jobs/ }).first().click();
  await expect(page.getByRole("heading", { name: "Jobs", exact: true })).toBeVisible();
  await expect(page.getByText(/: 2 workers in this server process, any number more/)).toBeVisible();
  const row = page.getByTestId("job-failed").filter({ has: page.locator(`a[href="/replays/${id}"]`) });
  await expect(row).toHaveCount(1);
  await expect(row).toContainText("Refund for cracked pour-over set");
  await expect(row).toContainText("on_miss: fail");
  await page.screenshot({ path: "test-results/jobs-page.png", fullPage: true });

  await row.getByRole("button", { name: "Retry" }).click();
  // The worker runs it again from its log; the same miss fails it again, later than the first time.
  await expect
    .poll(
      async () => {
        const again = await replayOf(request, id);
        return again.status === "failed" && again.finishedAt !== null && again.finishedAt > failed.finishedAt!;
      },
      { timeout: 30_000 },
    )
    .toBe(true);
  await page.reload();
  await expect(page.getByTestId("job-failed").filter({ has: page.locator(`a[href="/replays/${id}"]`) })).toHaveCount(1);
});

/** A viewer (invited by the signed-in admin) and an API key of theirs. */
async function viewerKey(page: Page, browser: Browser, baseURL: string | undefined): Promise<string> {
  await page.goto("/settings/team");
  await page.getByLabel("Role", { exact: true }).selectOption("viewer");
  await page.getByRole("button", { name: "Create invitation link" }).click();
  const link = (await page.getByTestId("invite-link").textContent())!;
  const context = await browser.newContext({ baseURL, storageState: { cookies: [], origins: [] } });
  const vera = await context.newPage();
  await vera.goto(link);
  await vera.getByLabel("Name").fill("Vera");
  await vera.getByLabel("Email").fill(`vera-${Date.now()}@e2e.test`);
  await vera.getByLabel("Password (8 characters or more)").fill("vera-password-1");
  await vera.getByRole("button", { name: "Create account" }).click();
  await expect(vera).toHaveURL(/\/sessions$/);
  await vera.goto("/settings/api-keys");
  await vera.getByLabel("Name").fill("vera's script");
  await vera.getByRole("button", { name: "Create key" }).click();
  const key = (await vera.getByTestId("new-api-key").textContent())!.trim();
  await context.close();
  return key;
}

type ErrorBody = { error: { code: string; message: string } };

test("job control over the API: cancel a replay, retry a failed one, list jobs; a viewer is refused, unknown ids and wrong states are 4xx", async ({
  page,
  browser,
  baseURL,
  request,
}) => {
  const sessions = (await (await request.get("/api/v1/sessions?q=refund&limit=200", { headers: AUTH })).json()) as {
    sessions: { id: string; title: string | null }[];
  };
  const sessionId = sessions.sessions.find((s) => s.title === "Refund for cracked pour-over set (order 4821)")!.id;
  // A replay that pauses on an argument the recording never saw: it waits for a fixture, and can be cancelled.
  const paused = await request.post("/api/v1/replays", {
    headers: AUTH,
    data: {
      sessionId,
      policy: { ...FAIL_ON_MISS, tools: { default: { type: "history", scope: "baseline", on_miss: "pause" } } },
      edits: [{ seq: 1, op: "replace_tool_args", value: { order_id: "7777" } }],
    },
  });
  expect(paused.status()).toBe(201);
  const pausedId = ((await paused.json()) as { replay: ApiReplay }).replay.id;
  expect((await settled(request, pausedId)).status).toBe("paused");

  const viewer = await viewerKey(page, browser, baseURL);
  const asViewer = { Authorization: `Bearer ${viewer}` };
  for (const [method, path] of [
    ["post", `/api/v1/replays/${pausedId}/cancel`],
    ["get", "/api/v1/jobs"],
    ["post", `/api/v1/jobs/${pausedId}/retry`],
    ["post", "/api/v1/experiments/any/cancel"],
  ] as const) {
    const refused = await request[method](path, { headers: asViewer });
    expect(refused.status(), path).toBe(403);
    expect(((await refused.json()) as ErrorBody).error.code).toBe("forbidden");
  }
  expect((await replayOf(request, pausedId)).status).toBe("paused");

  const cancelled = await request.post(`/api/v1/replays/${pausedId}/cancel`, { headers: AUTH });
  expect(cancelled.status()).toBe(200);
  expect(await cancelled.json()).toMatchObject({
    outcome: "cancelled",
    replay: { id: pausedId, status: "cancelled", error: { code: "cancelled", message: "Cancelled by a person." } },
  });
  const again = await request.post(`/api/v1/replays/${pausedId}/cancel`, { headers: AUTH });
  expect(again.status()).toBe(409);
  expect(await again.json()).toEqual({
    error: {
      code: "wrong_state",
      message: "The replay has already finished; there is nothing to cancel.",
      issues: [],
    },
  });
  const unknown = await request.post("/api/v1/replays/no-such-replay/cancel", { headers: AUTH });
  expect(unknown.status()).toBe(404);
  expect(((await unknown.json()) as ErrorBody).error.message).toBe('No replay with id "no-such-replay".');
  const unknownExperiment = await request.post("/api/v1/experiments/no-such-experiment/cancel", { headers: AUTH });
  expect(unknownExperiment.status()).toBe(404);
  expect(((await unknownExperiment.json()) as ErrorBody).error.message).toBe(
    'No experiment with id "no-such-experiment".',
  );

  // A failed replay is listed with its reason; retry puts it back on the queue, and only a failed one.
  const failing = await request.post("/api/v1/replays", {
    headers: AUTH,
    data: {
      sessionId,
      policy: FAIL_ON_MISS,
      edits: [{ seq: 1, op: "replace_tool_args", value: { order_id: "8888" } }],
    },
  });
  const failedId = ((await failing.json()) as { replay: ApiReplay }).replay.id;
  const failed = await settled(request, failedId);
  expect(failed.status).toBe("failed");
  const listed = await request.get("/api/v1/jobs", { headers: AUTH });
  expect(listed.status()).toBe(200);
  type Job = { id: string; kind: string; status: string; error: { message: string } | null; session: { id: string } };
  const jobs = ((await listed.json()) as { jobs: { counts: Record<string, number>; failed: Job[]; queued: Job[] } })
    .jobs;
  const row = jobs.failed.find((j) => j.id === failedId)!;
  expect(row).toMatchObject({ kind: "replay", status: "failed", session: { id: sessionId } });
  expect(row.error!.message).toContain("on_miss: fail");
  expect(jobs.counts.failed).toBeGreaterThanOrEqual(1);
  expect(jobs.failed.find((j) => j.id === pausedId)).toBeUndefined();

  const retried = await request.post(`/api/v1/jobs/${failedId}/retry`, { headers: AUTH });
  expect(retried.status()).toBe(200);
  expect(await retried.json()).toEqual({ job: { id: failedId, kind: "replay", status: "queued" } });
  await expect
    .poll(
      async () => {
        const r = await replayOf(request, failedId);
        return r.status === "failed" && r.finishedAt! > failed.finishedAt!;
      },
      { timeout: 30_000 },
    )
    .toBe(true);
  const notFailed = await request.post(`/api/v1/jobs/${pausedId}/retry`, { headers: AUTH });
  expect(notFailed.status()).toBe(409);
  expect(((await notFailed.json()) as ErrorBody).error).toMatchObject({
    code: "wrong_state",
    message: "Only a failed replay can be retried; this one is not failed (any more).",
  });
  const noJob = await request.post("/api/v1/jobs/no-such-job/retry", { headers: AUTH });
  expect(noJob.status()).toBe(404);
  expect(((await noJob.json()) as ErrorBody).error.message).toBe('No job with id "no-such-job".');
});

test("cancel an experiment over the API while its members wait on a live tool: queued ones end at once, running ones at their next step, no further live calls", async ({
  request,
}) => {
  // A customer tool that holds every call until told to answer.
  const hits: string[] = [];
  const held: ServerResponse[] = [];
  const server = createServer((req, res) => {
    let body = "";
    req.on("data", (c: Buffer) => (body += c.toString()));
    req.on("end", () => {
      hits.push((JSON.parse(body) as { tool: string }).tool);
      held.push(res);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/tools`;
  const toolIds: string[] = [];
  try {
    for (const tool of ["get_user_details", "get_reservation_details"]) {
      const put = await request.post("/api/v1/executors/tools", {
        headers: AUTH,
        data: { tool, url, readOnly: true, timeoutMs: 60_000 },
      });
      expect(put.status(), await put.text()).toBe(201);
      toolIds.push(((await put.json()) as { tool: { id: string } }).tool.id);
    }
    await request.post("/api/v1/executors/allowed-hosts", { headers: AUTH, data: { host: "127.0.0.1" } });
    const live = {
      ...FAIL_ON_MISS,
      tools: {
        default: { type: "history", scope: "baseline", on_miss: "fail" },
        overrides: { get_user_details: { type: "passthrough" }, get_reservation_details: { type: "passthrough" } },
      },
    };
    const saved = await request.post("/api/v1/policies", {
      headers: AUTH,
      data: { name: `live lookups ${Date.now()}`, policy: live },
    });
    expect(saved.status(), await saved.text()).toBe(201);
    const { versionId } = (await saved.json()) as { versionId: string };
    const list = await request.get("/api/v1/sessions?agent=tau-bench-airline-agent&limit=1", { headers: AUTH });
    const [first] = ((await list.json()) as { sessions: { agentVersionId: string }[] }).sessions;
    const started = await request.post("/api/v1/experiments", {
      headers: AUTH,
      data: { name: "cancel me", policyVersionId: versionId, agentVersionId: first!.agentVersionId },
    });
    expect(started.status(), await started.text()).toBe(201);
    const { id, total } = ((await started.json()) as { experiment: { id: string; total: number } }).experiment;
    // The server's two workers each wait on a held call.
    await expect.poll(() => held.length, { timeout: 30_000 }).toBe(2);

    const cancel = await request.post(`/api/v1/experiments/${id}/cancel`, { headers: AUTH });
    expect(cancel.status(), await cancel.text()).toBe(200);
    const body = (await cancel.json()) as {
      experiment: { id: string; cancelRequested?: boolean };
      cancelled: number;
      stopping: number;
    };
    expect(body.stopping).toBe(2);
    // The one session with no tool call may have finished before the cancel; every other waiting member is cancelled now.
    expect(body.cancelled).toBeGreaterThanOrEqual(total - 3);
    expect(body.cancelled + body.stopping).toBeLessThanOrEqual(total);

    // The held calls are answered: their runs stop at the next step boundary, calling nothing more.
    for (const res of held.splice(0)) {
      res.setHeader("content-type", "application/json");
      res.end(JSON.stringify({ output: { user_id: "held", reservations: [] } }));
    }
    await expect
      .poll(async () => {
        const r = await request.get(`/api/v1/experiments/${id}`, { headers: AUTH });
        return ((await r.json()) as { experiment: { status: string } }).experiment.status;
      })
      .toBe("cancelled");
    const done = (await (await request.get(`/api/v1/experiments/${id}`, { headers: AUTH })).json()) as {
      experiment: { results: { replayId: string; status: string }[] };
    };
    const statuses = done.experiment.results.map((r) => r.status);
    expect(statuses.filter((s) => s === "cancelled").length).toBe(body.cancelled + body.stopping);
    expect(statuses.every((s) => s === "cancelled" || s === "completed")).toBe(true);
    expect(hits).toHaveLength(2);
    // A stopped member keeps the steps it made, the live call among them.
    const stopped = await Promise.all(
      done.experiment.results.filter((r) => r.status === "cancelled").map((r) => replayOf(request, r.replayId)),
    );
    const withSteps = stopped.filter((r) => (r as ApiReplay & { steps: unknown[] }).steps.length > 0);
    expect(withSteps).toHaveLength(2);
    const again = await request.post(`/api/v1/experiments/${id}/cancel`, { headers: AUTH });
    expect(again.status()).toBe(409);
    expect(((await again.json()) as ErrorBody).error.message).toBe(
      "The experiment has already finished; there is nothing to cancel.",
    );
  } finally {
    for (const res of held.splice(0)) res.destroy();
    for (const toolId of toolIds) await request.delete(`/api/v1/executors/tools/${toolId}`, { headers: AUTH });
    server.closeAllConnections();
    server.close();
  }
});

test("a running investigation's page shows probes done of its bound with a bar, live", async ({ page, request }) => {
  // The model answers only when told: the first probe's first call waits.
  let release: () => void = () => undefined;
  const released = new Promise<void>((resolve) => (release = resolve));
  const model = await startScriptedModel({
    script: (req) =>
      lastToolResult(req.messages, "lookup_order") === null
        ? { toolCalls: [{ name: "lookup_order", args: { order_id: "4821" } }] }
        : { content: REFUND_SESSION.refuse },
    gate: async (index) => {
      if (index === 0) await released;
    },
  });
  const name = `held-${Date.now()}`;
  try {
    await request.post("/api/v1/executors/allowed-hosts", { headers: AUTH, data: { host: model.host } });
    const put = await request.post("/api/v1/executors/models", {
      headers: AUTH,
      data: { name, baseUrl: model.baseUrl, model: "gpt-4.1-2025-04-14" },
    });
    expect(put.status(), await put.text()).toBe(201);
    const sessions = (await (await request.get("/api/v1/sessions?q=refund&limit=200", { headers: AUTH })).json()) as {
      sessions: { id: string; title: string | null }[];
    };
    const sessionId = sessions.sessions.find((s) => s.title === "Refund for cracked pour-over set (order 4821)")!.id;
    const started = await request.post("/api/v1/investigations", {
      headers: AUTH,
      data: {
        kind: "blame",
        sessionId,
        modelEndpoint: name,
        trials: 1,
        checks: [{ name: "no refund", definition: { kind: "tool_not_called", tool: "refund_payment" } }],
      },
    });
    expect(started.status(), await started.text()).toBe(201);
    const { id } = ((await started.json()) as { investigation: { id: string } }).investigation;
    await expect.poll(() => model.requests.length, { timeout: 30_000 }).toBe(1);

    // The jobs page lists it beside the replays, with the worker holding it and its probes.
    await page.goto("/settings/jobs");
    const row = page.getByTestId("job-running").filter({ has: page.locator(`a[href="/investigations/${id}"]`) });
    await expect(row).toHaveAttribute("data-kind", "investigation");
    await expect(row).toContainText("blame search");
    await expect(row).toContainText(/ · probe 0 of 3/);
    await page.screenshot({ path: "test-results/jobs-with-investigation.png", fullPage: true });

    await page.goto(`/investigations/${id}`);
    await expect(page.getByTestId("investigation-progress-text")).toContainText("Running: 0 of at most 3 probes done.");
    await expect(page.getByRole("progressbar", { name: "Probes done" })).toHaveAttribute("aria-valuenow", "0");
    await page.screenshot({ path: "test-results/investigation-progress.png", fullPage: true });
    // The held call is answered: the page follows the probes to the end on its own.
    release();
    await expect(page.getByTestId("investigation-result")).toBeVisible({ timeout: 30_000 });
    await expect(page.getByTestId("investigation-progress-text")).toHaveCount(0);
  } finally {
    release();
    await model.close();
  }
});
