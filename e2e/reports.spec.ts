import AxeBuilder from "@axe-core/playwright";
import type { APIRequestContext, Browser, BrowserContext, Page } from "@playwright/test";
import { expect, test } from "./fixtures";

const AUTH = { Authorization: "Bearer e2e-test-key-0123456789" };

/** The recorded policy: every tool result from the base run, model outputs copied. */
const RECORDED_POLICY = {
  model: "recorded-only",
  drift: "continue_to_terminal",
  maxSteps: 100,
  tools: { default: { type: "history", scope: "baseline", on_miss: "fail" } },
};
/** refund_payment needs an analyst fixture: the branch pauses there. */
const FIXTURE_POLICY = {
  ...RECORDED_POLICY,
  tools: { ...RECORDED_POLICY.tools, overrides: { refund_payment: { type: "fixture", on_miss: "pause" } } },
};

/** Every accessibility violation axe finds (WCAG 2.1 A and AA), whatever its impact. */
async function violations(page: Page): Promise<string[]> {
  const result = await new AxeBuilder({ page }).withTags(["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"]).analyze();
  return result.violations.map((v) => `${v.id} (${v.impact}): ${v.nodes.map((n) => n.target.join(" ")).join(", ")}`);
}

async function sessionId(request: APIRequestContext, q: string): Promise<string> {
  const res = await request.get(`/api/v1/sessions?q=${encodeURIComponent(q)}`, { headers: AUTH });
  expect(res.status()).toBe(200);
  const body = (await res.json()) as { sessions: { id: string }[] };
  expect(body.sessions.length).toBeGreaterThan(0);
  return body.sessions[0]!.id;
}

/** A finished replay of the refund session whose refund failed (step 6): pair 6 is its first divergence. */
async function refundFailedReplay(request: APIRequestContext) {
  const replay = await startReplay(request, {
    sessionId: await sessionId(request, "pour-over"),
    policy: RECORDED_POLICY,
    edits: [{ seq: 6, op: "replace_tool_result", value: "refund failed: card expired" }],
  });
  expect(replay.status).toBe("completed");
  return replay;
}

/** Starts a replay and waits for a worker to run it to its first stop (the POST answers with it queued). */
async function startReplay(request: APIRequestContext, body: object): Promise<{ id: string; status: string }> {
  const res = await request.post("/api/v1/replays", { headers: AUTH, data: body });
  expect(res.status(), await res.text()).toBe(201);
  const { id } = ((await res.json()) as { replay: { id: string } }).replay;
  let status = "queued";
  await expect
    .poll(
      async () => {
        const got = await request.get(`/api/v1/replays/${id}`, { headers: AUTH });
        status = ((await got.json()) as { replay: { status: string } }).replay.status;
        return status;
      },
      { timeout: 20_000 },
    )
    .not.toMatch(/^(queued|running)$/);
  return { id, status };
}

async function createReport(request: APIRequestContext, replayId: string, title: string): Promise<string> {
  const res = await request.post("/api/v1/reports", {
    headers: AUTH,
    data: { replayId, title, sections: { finding: `Finding of ${title}` }, publish: true },
  });
  expect(res.status(), await res.text()).toBe(201);
  return ((await res.json()) as { report: { id: string } }).report.id;
}

async function share(request: APIRequestContext, reportId: string): Promise<{ id: string; url: string }> {
  const res = await request.post(`/api/v1/reports/${reportId}/share`, { headers: AUTH, data: { expiresIn: "7d" } });
  expect(res.status(), await res.text()).toBe(201);
  return ((await res.json()) as { share: { id: string; url: string } }).share;
}

/** A fresh browser context (no cookies), watched for requests that leave this machine like the default one. */
async function anonymousContext(browser: Browser, offsite: string[]): Promise<BrowserContext> {
  // Not signed in: the suite's signed-in state is every new context's default.
  const context = await browser.newContext({ storageState: { cookies: [], origins: [] } });
  context.on("request", (r) => {
    const url = new URL(r.url());
    if (["http:", "https:"].includes(url.protocol) && !["127.0.0.1", "localhost"].includes(url.hostname))
      offsite.push(r.url());
  });
  return context;
}

/**
 * A 404 page's HTML with what may legitimately differ taken out: the token is part of the URL
 * (echoed in the router payload), and the payload's rows stream in any order and any script
 * chunking. Everything else, the visible page and every row, must be identical.
 */
function normalize404(html: string, token: string): string {
  const text = html.replaceAll(token, "TOKEN");
  const flight = [...text.matchAll(/self\.__next_f\.push\(\[1,("(?:[^"\\]|\\.)*")\]\)/g)]
    .map((m) => JSON.parse(m[1]!) as string)
    .join("");
  const shell = text.replace(/<script\b[^>]*>[\s\S]*?<\/script>/g, "");
  return [shell, ...flight.split("\n").sort()].join("\n");
}

test("draft a report from a comparison, edit it, publish it, share it, open the link with no cookies, revoke it", async ({
  page,
  browser,
  request,
  baseURL,
  offsiteRequests,
}) => {
  const replay = await refundFailedReplay(request);

  await page.goto(`/reports/new?replayId=${replay.id}`);
  await expect(page.getByRole("heading", { name: "New report" })).toBeVisible();
  // Policy and Evidence come from the replay.
  await expect(page.getByRole("heading", { name: "Policy" })).toBeVisible();
  await expect(page.getByText("filled from the replay · always included").first()).toBeVisible();
  await expect(page.getByText("First divergence at pair 6: tool_call refund_payment: result changed")).toBeVisible();
  // The suggestion is preselected.
  await expect(page.getByRole("radio", { name: /confirmed by replay/ })).toBeChecked();

  const title = "Refund reported as done after a card decline";
  await page.getByLabel("Title").fill(title);
  await page
    .locator("#section-finding")
    .fill("The agent **confirms** a refund that failed.\n\n<script>alert(1)</script>");
  await page.getByRole("tab", { name: "Preview" }).first().click();
  const preview = page.getByTestId("section-finding-preview");
  await expect(preview.locator("strong")).toHaveText("confirms");
  await expect(preview.locator("script")).toHaveCount(0);
  // The pair picker opens on the differences, the first divergence pinned for good.
  const pickFilter = page.getByRole("combobox", { name: "Show", exact: true });
  await expect(pickFilter).toHaveValue("changes");
  const firstDivergence = page.getByRole("checkbox", { name: /^Pin pair 6, changed: tool_call refund_payment/ });
  await expect(firstDivergence).toBeChecked();
  await expect(firstDivergence).toBeDisabled();
  await expect(page.getByRole("checkbox", { name: /^Pin pair 1, / })).toHaveCount(0);
  // The model call after it differs by its input alone, named as the comparison page names it.
  await expect(page.getByRole("checkbox", { name: /^Pin pair 7, input only: model_call / })).toHaveCount(1);
  // An equal pair is found under "all" and pinned; another is pinned, then unpinned from the summary.
  await pickFilter.selectOption("all");
  await page.getByRole("checkbox", { name: /^Pin pair 1, equal: tool_call lookup_order/ }).check();
  await page.getByRole("checkbox", { name: /^Pin pair 2, / }).check();
  const summary = page.getByTestId("pinned-summary");
  await expect(summary).toContainText("3 pinned");
  await summary.getByRole("button", { name: /^Unpin pair 2, / }).click();
  // Back on the differences, the pin made under "all" is still listed.
  await pickFilter.selectOption("changes");
  await expect(summary).toContainText("2 pinned");
  await expect(summary.locator("li[data-pair-id]")).toHaveText([
    /^pair 1\D.*lookup_order/,
    /^pair 6\D.*refund_payment/,
  ]);
  await page.screenshot({ path: "test-results/rx-report-form.png", fullPage: true });
  // A first draft, with a working title.
  await page.getByLabel("Title").fill("Draft title");
  await page.getByRole("button", { name: "Save as draft" }).click();

  await expect(page).toHaveURL(/\/reports\/(?!new)[^/?]+$/);
  const reportId = new URL(page.url()).pathname.split("/").pop()!;
  const created = (await (await page.request.get(`/api/v1/reports/${reportId}`, { headers: AUTH })).json()) as {
    report: { sections: { pinnedPairs: string[] } };
  };
  expect(created.report.sections.pinnedPairs).toEqual(["p1-1", "p6-6"]);
  await expect(page.getByRole("heading", { name: "Draft title" })).toBeVisible();
  await expect(page.getByRole("heading", { name: "Draft", exact: true })).toBeVisible();
  // A draft is not shared.
  await expect(page.getByRole("button", { name: "Create share link" })).toHaveCount(0);
  await expect(page.getByText("Share links are for published reports")).toBeVisible();
  await page.screenshot({ path: "test-results/rx-report-draft.png", fullPage: true });

  // Edit the draft: the form opens with what was saved.
  await page.getByRole("link", { name: "Edit draft" }).click();
  await expect(page.getByRole("heading", { name: "Edit report" })).toBeVisible();
  await expect(page.getByLabel("Title")).toHaveValue("Draft title");
  await expect(page.locator("#section-finding")).toHaveValue(
    "The agent **confirms** a refund that failed.\n\n<script>alert(1)</script>",
  );
  await expect(page.getByTestId("pinned-summary")).toContainText("2 pinned");
  await page.getByRole("combobox", { name: "Show", exact: true }).selectOption("all");
  await expect(page.getByRole("checkbox", { name: /^Pin pair 1, equal: tool_call lookup_order/ })).toBeChecked();
  await page.getByLabel("Title").fill(title);
  await page.locator("#section-scope").fill("Order 4821 only");
  await page.getByRole("button", { name: "Save draft" }).click();
  await expect(page).toHaveURL(new RegExp(`/reports/${reportId}$`));
  await expect(page.getByRole("heading", { name: title })).toBeVisible();
  await expect(page.getByText("Order 4821 only")).toBeVisible();
  const draftApi = await page.request.get(`/api/v1/reports/${reportId}`, { headers: AUTH });
  expect(((await draftApi.json()) as { report: { status: string; sections: { scope: string } } }).report).toMatchObject(
    {
      status: "draft",
      sections: { scope: "Order 4821 only" },
    },
  );

  // Publish asks first (it cannot be undone); then it is frozen, Edit is gone, and it can be shared.
  await page.getByRole("button", { name: "Publish…" }).click();
  const confirmPublish = page.getByRole("alertdialog", { name: "Publish this report?" });
  await expect(confirmPublish).toBeVisible();
  await expect(page.getByRole("heading", { name: "Draft", exact: true })).toBeVisible();
  await confirmPublish.getByRole("button", { name: "Publish report" }).click();
  await expect(page.getByRole("heading", { name: "Published", exact: true })).toBeVisible();
  await expect(page.getByRole("link", { name: "Edit draft" })).toHaveCount(0);
  const patched = await page.request.patch(`/api/v1/reports/${reportId}`, {
    headers: AUTH,
    data: { title: "changed" },
  });
  expect(patched.status()).toBe(409);
  expect(((await patched.json()) as { error: { code: string } }).error.code).toBe("wrong_state");
  await page.screenshot({ path: "test-results/rx-report-published.png", fullPage: true });
  const hash = (await page.getByTestId("policy-hash").textContent())!.trim();
  expect(hash).toMatch(/^[0-9a-f]{64}$/);
  await expect(page.getByTestId("report-pair")).toHaveCount(2);

  // The team comments on the published report; the comment is signed, and stays off the share link (below).
  const comments = page.getByTestId("report-comments");
  await expect(comments.getByRole("heading", { name: "Comments (0)" })).toBeVisible();
  await comments
    .getByRole("textbox", { name: "Comment" })
    .fill("Checked with billing: the invoice copy was a day old.");
  await comments.getByRole("button", { name: "Add comment" }).click();
  await expect(comments.getByRole("heading", { name: "Comments (1)" })).toBeVisible();
  await expect(comments.getByTestId("report-comment")).toContainText(
    "Checked with billing: the invoice copy was a day old.",
  );
  await expect(comments.getByTestId("report-comment")).toContainText("admin@e2e.test");
  await expect(comments.getByRole("textbox", { name: "Comment" })).toHaveValue("");

  await page.getByLabel("Expires after").selectOption("1d");
  await page.getByRole("button", { name: "Create share link" }).click();
  const url = await page.getByTestId("share-url").inputValue();
  expect(url).toMatch(new RegExp(`^${baseURL}/share/[A-Za-z0-9_-]{22}$`));
  await expect(page.getByTestId("share-row")).toHaveCount(1);
  await expect(page.getByTestId("share-row").first()).toHaveAttribute("data-state", "active");

  // Someone without the dashboard opens the link.
  const stranger = await anonymousContext(browser, offsiteRequests);
  expect(await stranger.cookies()).toEqual([]);
  const viewer = await stranger.newPage();
  const res = await viewer.goto(url);
  expect(res?.status()).toBe(200);
  expect(res?.headers()["x-robots-tag"]).toContain("noindex");
  await expect(viewer.getByRole("heading", { name: title })).toBeVisible();
  await expect(viewer.getByRole("heading", { name: "Policy" })).toBeVisible();
  await expect(viewer.getByTestId("policy-hash")).toHaveText(hash);
  await expect(viewer.getByText('"on_miss": "fail"')).toBeVisible();
  await expect(viewer.locator('meta[name="robots"]')).toHaveAttribute("content", /noindex/);
  // Read-only: no navigation into the dashboard, no forms or buttons.
  await expect(viewer.getByRole("navigation")).toHaveCount(0);
  await expect(viewer.getByText("Checked with billing")).toHaveCount(0);
  // (The pinned pairs' diff is Monaco's, read-only: its own text area and controls are the editor's, not a form.)
  const hrefs = await viewer
    .locator("a[href]:not(.monaco-editor *)")
    .evaluateAll((as) => as.map((a) => a.getAttribute("href") ?? ""));
  expect(hrefs.every((h) => h.startsWith("/share/"))).toBe(true);
  await expect(viewer.locator(":is(form, button, input, textarea):not(.monaco-editor *)")).toHaveCount(0);
  // Its exports carry the policy.
  const md = await viewer.request.get(`${url}/export?format=md`);
  expect(md.status()).toBe(200);
  expect(await md.text()).toContain(hash);
  const json = (await (await viewer.request.get(`${url}/export?format=json`)).json()) as {
    report: { policy: { hash: string; document: unknown } };
  };
  expect(json.report.policy).toEqual({ hash, document: RECORDED_POLICY, version: null });

  // The dashboard's own exports.
  const dash = await page.request.get(`/api/reports/${reportId}/export?format=json`);
  expect(dash.status()).toBe(200);
  expect(((await dash.json()) as { report: { policy: { hash: string } } }).report.policy.hash).toBe(hash);

  // Revoke: the link stops working.
  await page.getByRole("button", { name: "Revoke" }).click();
  await expect(page.getByTestId("share-row").first()).toHaveAttribute("data-state", "revoked");
  const gone = await viewer.goto(url);
  expect(gone?.status()).toBe(404);
  await expect(viewer.getByText("This link does not open a report")).toBeVisible();
  await expect(viewer.getByText(title)).toHaveCount(0);
  await stranger.close();

  await page.goto("/reports");
  await expect(page.getByTestId("report-row").filter({ hasText: title })).toHaveCount(1);
});

test("share links fail closed: unknown, malformed and revoked tokens are the same 404, and a page shows one report only", async ({
  browser,
  request,
  offsiteRequests,
}) => {
  const refund = await sessionId(request, "pour-over");
  const other = await sessionId(request, "carrier API error");
  const a = await startReplay(request, { sessionId: refund, policy: RECORDED_POLICY });
  const b = await startReplay(request, { sessionId: other, policy: RECORDED_POLICY });
  const titleA = `Report A ${Date.now()}`;
  const titleB = `Report B ${Date.now()}`;
  const reportA = await createReport(request, a.id, titleA);
  const reportB = await createReport(request, b.id, titleB);
  const linkA = await share(request, reportA);
  const linkB = await share(request, reportB);

  // The share page and every response it loads hold nothing of report B or its session and replay.
  const context = await anonymousContext(browser, offsiteRequests);
  const viewer = await context.newPage();
  const bodies: string[] = [];
  viewer.on("response", (r) => {
    if (new URL(r.url()).hostname === "127.0.0.1") bodies.push(r.url());
    void r.text().then(
      (t) => bodies.push(t),
      () => undefined,
    );
  });
  const res = await viewer.goto(linkA.url);
  expect(res?.status()).toBe(200);
  await expect(viewer.getByRole("heading", { name: titleA })).toBeVisible();
  await viewer.waitForLoadState("networkidle");
  const html = await res!.text();
  const seen = [html, ...bodies].join("\n");
  for (const secret of [titleB, reportB, b.id, other, linkB.url.split("/").pop()!, "carrier"])
    expect(seen).not.toContain(secret);
  expect(seen).toContain(titleA);

  // One neutral 404 for every token that does not open a report.
  const notFound = async (token: string) => {
    const r = await request.get(`/share/${token}`);
    const text = await r.text();
    return { status: r.status(), body: normalize404(text, token) };
  };
  const unknown = await notFound("AAAAAAAAAAAAAAAAAAAAAA");
  const random = await notFound(Buffer.from(crypto.getRandomValues(new Uint8Array(16))).toString("base64url"));
  const malformed = await notFound("not-a-token");
  await request.delete(`/api/v1/shares/${linkA.id}`, { headers: AUTH }).then((r) => expect(r.status()).toBe(200));
  const revoked = await notFound(linkA.url.split("/").pop()!);
  expect(unknown.status).toBe(404);
  for (const other404 of [random, malformed, revoked]) {
    expect(other404.status).toBe(404);
    expect(other404.body).toBe(unknown.body);
  }
  expect(revoked.body).toContain("This link does not open a report");
  expect(revoked.body).not.toContain(titleA);
  // Exports of a revoked link are the same 404 too.
  const exp = await request.get(`${linkA.url}/export?format=json`);
  expect(exp.status()).toBe(404);
  expect(await exp.text()).toBe(await (await request.get("/share/AAAAAAAAAAAAAAAAAAAAAA/export?format=json")).text());
  await context.close();
});

test("the API refuses a report on a replay that has not finished, and serves and revokes shares", async ({
  page,
  request,
}) => {
  const refund = await sessionId(request, "pour-over");
  const paused = await startReplay(request, { sessionId: refund, policy: FIXTURE_POLICY });
  expect(paused.status).toBe("paused");
  const refused = await request.post("/api/v1/reports", {
    headers: AUTH,
    data: { replayId: paused.id, title: "Too early", sections: {} },
  });
  expect(refused.status()).toBe(409);
  const error = ((await refused.json()) as { error: { code: string; message: string } }).error;
  expect(error.code).toBe("wrong_state");
  expect(error.message).toContain("The replay is paused: a report needs a finished replay");

  // The form says the same instead of offering to create one.
  await page.goto(`/reports/new?replayId=${paused.id}`);
  await expect(page.getByText("This replay is paused")).toBeVisible();
  await expect(page.getByRole("button", { name: "Save as draft" })).toHaveCount(0);

  expect((await request.post("/api/v1/reports", { data: { replayId: paused.id, title: "x" } })).status()).toBe(401);
  const badBody = await request.post("/api/v1/reports", {
    headers: AUTH,
    data: { replayId: paused.id, title: "x", sections: { validity: "maybe" } },
  });
  expect(badBody.status()).toBe(400);

  const done = await startReplay(request, { sessionId: refund, policy: RECORDED_POLICY });
  const id = await createReport(request, done.id, "API report");
  const got = await request.get(`/api/v1/reports/${id}`, { headers: AUTH });
  expect(got.status()).toBe(200);
  const report = (
    (await got.json()) as {
      report: {
        id: string;
        sections: { validity: string };
        snapshot: { policy: { document: unknown } };
        shares: unknown[];
      };
    }
  ).report;
  expect(report.sections.validity).toBe("confirmed_by_replay");
  expect(report.snapshot.policy.document).toEqual(RECORDED_POLICY);
  const link = await request.post(`/api/v1/reports/${id}/share`, { headers: AUTH, data: { expiresIn: "never" } });
  const s = ((await link.json()) as { share: { id: string; url: string; expiresAt: string | null } }).share;
  expect(s.expiresAt).toBeNull();
  expect((await request.get(s.url)).status()).toBe(200);
  const del = await request.delete(`/api/v1/shares/${s.id}`, { headers: AUTH });
  expect(((await del.json()) as { share: { state: string } }).share.state).toBe("revoked");
  expect((await request.get(s.url)).status()).toBe(404);
  expect((await request.delete("/api/v1/shares/nope", { headers: AUTH })).status()).toBe(404);
  expect((await request.get("/api/v1/reports/nope", { headers: AUTH })).status()).toBe(404);
});

test("an empty draft cannot be published or shared; deleting asks first, and a deleted report's link stops working", async ({
  page,
  request,
}) => {
  const refund = await sessionId(request, "pour-over");
  const done = await startReplay(request, { sessionId: refund, policy: RECORDED_POLICY });

  // An empty form makes a draft, not an immutable "Not filled in" report.
  const res = await request.post("/api/v1/reports", { headers: AUTH, data: { replayId: done.id, title: "Empty" } });
  expect(res.status()).toBe(201);
  const draft = ((await res.json()) as { report: { id: string; status: string } }).report;
  expect(draft.status).toBe("draft");
  const shareDraft = await request.post(`/api/v1/reports/${draft.id}/share`, { headers: AUTH, data: {} });
  expect(shareDraft.status()).toBe(409);
  const publishEmpty = await request.post(`/api/v1/reports/${draft.id}/publish`, { headers: AUTH });
  expect(publishEmpty.status()).toBe(400);
  expect(((await publishEmpty.json()) as { error: { issues: { path: string }[] } }).error.issues).toEqual([
    { path: "sections.finding", message: "Write the Finding before publishing." },
  ]);

  await page.goto(`/reports/${draft.id}`);
  await expect(page.getByText("Write the Finding before publishing.")).toBeVisible();
  await expect(page.getByRole("button", { name: "Publish" })).toBeDisabled();

  // Delete asks first; Cancel keeps it.
  await page.getByRole("button", { name: "Delete…" }).click();
  const dialog = page.getByRole("alertdialog", { name: "Delete this report?" });
  await expect(dialog).toContainText("The draft and everything written in it are removed.");
  await page.screenshot({ path: "test-results/rx-report-delete-confirm.png", fullPage: true });
  await dialog.getByRole("button", { name: "Cancel" }).click();
  await expect(dialog).toHaveCount(0);
  expect((await request.get(`/api/v1/reports/${draft.id}`, { headers: AUTH })).status()).toBe(200);
  await page.getByRole("button", { name: "Delete…" }).click();
  await page.getByRole("alertdialog").getByRole("button", { name: "Delete report" }).click();
  await expect(page).toHaveURL(/\/reports$/);
  expect((await request.get(`/api/v1/reports/${draft.id}`, { headers: AUTH })).status()).toBe(404);

  // A published, shared report: the confirmation names the link, and the link stops opening it.
  const title = `Shared then deleted ${Date.now()}`;
  const id = await createReport(request, done.id, title);
  const link = await share(request, id);
  expect((await request.get(link.url)).status()).toBe(200);
  await page.goto(`/reports/${id}`);
  await page.getByRole("button", { name: "Delete…" }).click();
  await expect(page.getByRole("alertdialog")).toContainText("its 1 active share link will stop working");
  await page.getByRole("alertdialog").getByRole("button", { name: "Delete report" }).click();
  await expect(page).toHaveURL(/\/reports$/);
  await expect(page.getByTestId("report-row").filter({ hasText: title })).toHaveCount(0);
  expect((await request.get(link.url)).status()).toBe(404);
  expect((await request.delete(`/api/v1/reports/${id}`, { headers: AUTH })).status()).toBe(404);
});

test("the pair picker says which window failed and loads it again on Retry; the form and the comparison pass axe", async ({
  page,
  request,
}) => {
  const replay = await refundFailedReplay(request);
  await page.goto(`/reports/new?replayId=${replay.id}`);
  const pickFilter = page.getByRole("combobox", { name: "Show", exact: true });
  await expect(pickFilter).toHaveValue("changes");
  // Each pair's checkbox names its type, as the row shows it.
  await expect(page.getByRole("checkbox", { name: /^Pin pair 6, changed: tool_call refund_payment/ })).toBeChecked();
  expect(await violations(page)).toEqual([]);

  // The window of "all" is asked for at a cursor the server refuses (the request rewritten on its way): the
  // server's real refusal shows with a Retry, and no pair of that window.
  let refused = 0;
  await page.route(`**/reports/new?replayId=${replay.id}`, async (route) => {
    const body = route.request().postData() ?? "";
    if (route.request().method() !== "POST" || !body.includes('"filter":"all"')) return route.continue();
    refused++;
    await route.continue({ postData: body.replace('"cursor":0', '"cursor":-1') });
  });
  await pickFilter.selectOption("all");
  const alert = page.getByRole("alert").filter({ hasText: "Some pairs could not be loaded" });
  await expect(alert).toHaveText("Some pairs could not be loaded: Some fields are not valid.Retry");
  expect(refused).toBe(1);
  await expect(page.getByTestId("pair-picker").getByText("Not loaded (see above)").first()).toBeVisible();
  await expect(page.getByTestId("pair-choice")).toHaveCount(0);
  expect(await violations(page)).toEqual([]);
  await alert.scrollIntoViewIfNeeded();
  await page.screenshot({ path: "test-results/rx-picker-window-failed.png" });

  // Retry asks again, as sent: the window loads.
  await page.unroute(`**/reports/new?replayId=${replay.id}`);
  await alert.getByRole("button", { name: "Retry" }).click();
  await expect(alert).toHaveCount(0);
  await expect(page.getByRole("checkbox", { name: /^Pin pair 1, equal: tool_call lookup_order/ })).not.toBeChecked();
  await expect(page.getByTestId("pair-choice").first()).toHaveAttribute("data-pair-id", "p0-0");
  await page.getByTestId("pair-picker").scrollIntoViewIfNeeded();
  await page.screenshot({ path: "test-results/rx-picker-all.png" });

  await page.goto(`/replays/${replay.id}/compare`);
  await expect(page.getByTestId("compare-row").first()).toBeVisible();
  expect(await violations(page)).toEqual([]);
  await page.screenshot({ path: "test-results/rx-compare.png" });
});
