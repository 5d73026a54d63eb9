import AxeBuilder from "@axe-core/playwright";
import type { Page } from "@playwright/test";
import { expect, test } from "./fixtures";
import { AUTH } from "./replay-form";
import { completedReplay, DESK, oneSpanTrace, PHONE, sidewaysScroll } from "./walkthrough-helpers";

/**
 * A second walk through the comparison, the report and its shared page, and the import page:
 * what it found rough on a phone, for a keyboard, and in the words a user reads.
 */

/** The branch differs from its base: the refund fails. */
const EDITS = [{ seq: 6, op: "replace_tool_result", value: "refund failed: card expired" }];

/** The innermost elements that reach past the window's right edge: what to fix when the page scrolls sideways. */
function pastTheEdge(page: Page): Promise<string> {
  return page.evaluate(() => {
    const width = document.documentElement.clientWidth;
    const past = [...document.body.querySelectorAll("*")].filter((e) => e.getBoundingClientRect().right > width + 0.5);
    return past
      .filter((e) => !past.some((other) => other !== e && e.contains(other)))
      .slice(0, 5)
      .map(
        (e) =>
          `${e.tagName.toLowerCase()}.${[...e.classList].join(".")} → ${Math.round(e.getBoundingClientRect().right)}`,
      )
      .join("; ");
  });
}

/** Every serious or critical axe violation (WCAG 2.1 A and AA). */
async function seriousViolations(page: Page): Promise<string[]> {
  const result = await new AxeBuilder({ page }).withTags(["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"]).analyze();
  return result.violations
    .filter((v) => v.impact === "serious" || v.impact === "critical")
    .map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(" ")).join(", ")}`);
}

test("the comparison's figures are named in words, and on a phone no label runs into its value", async ({
  page,
  request,
}) => {
  const replayId = await completedReplay(request, EDITS);
  for (const size of [DESK, PHONE]) {
    await page.setViewportSize(size);
    await page.goto(`/replays/${replayId}/compare`);
    const figures = page.getByTestId("comparison-figures");
    await expect(figures).toBeVisible();
    await expect(figures.locator("dt")).toHaveText([
      "First divergence at pair",
      "Tool calls added, removed or swapped",
      "Steps answered by a fixture",
      "Tool arguments changed",
    ]);
    await expect(figures.locator("dd").first()).toHaveText("6");
    await expect(figures).not.toContainText("_");
    // Each label's text ends before its value's text starts (they overlapped on a phone).
    const gaps = await figures.evaluate((dl) => {
      const textBox = (e: Element) => {
        const range = document.createRange();
        range.selectNodeContents(e);
        return range.getBoundingClientRect();
      };
      const dts = [...dl.querySelectorAll("dt")];
      return dts.map((dt) => textBox(dt.nextElementSibling!).left - textBox(dt).right);
    });
    for (const gap of gaps) expect.soft(gap).toBeGreaterThanOrEqual(8);
    expect.soft(await sidewaysScroll(page)).toBe(0);
    expect.soft(await seriousViolations(page)).toEqual([]);
  }
});

test("the comparison's diff editors' text inputs are named from their creation on, not only once the page settles", async ({
  page,
  request,
}) => {
  const replayId = await completedReplay(request, EDITS);
  // Watches every editor text input from the page's first script: after each change to the page (at the end of the
  // task that made it, when an audit or a screen reader could next look), any input without a name is noted.
  await page.addInitScript(() => {
    const seen: string[] = [];
    (window as unknown as { unnamedInputs: string[] }).unnamedInputs = seen;
    new MutationObserver(() => {
      for (const input of document.querySelectorAll(
        ".monaco-editor .native-edit-context, .monaco-editor textarea.inputarea",
      ))
        if (!input.getAttribute("aria-label"))
          seen.push(input.closest("[data-uri]")?.getAttribute("data-uri") ?? input.className);
    }).observe(document, { subtree: true, childList: true, attributes: true, attributeFilter: ["aria-label"] });
  });
  for (const size of [DESK, PHONE]) {
    await page.setViewportSize(size);
    await page.goto(`/replays/${replayId}/compare`);
    // The first divergence's diff: two diff editors, four inputs, each named for its side.
    const inputs = page.locator(".monaco-editor .native-edit-context, .monaco-editor textarea.inputarea");
    await expect(inputs).toHaveCount(4);
    for (const input of await inputs.all()) await expect(input).toHaveAttribute("aria-label", /\S/);
    expect(await page.evaluate(() => (window as unknown as { unnamedInputs: string[] }).unnamedInputs)).toEqual([]);
  }
});

test("a report and its shared page fit a phone, and their JSON blocks can be scrolled by keyboard", async ({
  page,
  request,
}) => {
  const replayId = await completedReplay(request, EDITS);
  const created = await request.post("/api/v1/reports", {
    headers: AUTH,
    data: {
      replayId,
      title: `Walkthrough report ${Date.now()}`,
      sections: { finding: "The agent looked up the wrong order.", pinnedPairs: ["p6-6"] },
      publish: true,
    },
  });
  expect(created.status(), await created.text()).toBe(201);
  const reportId = ((await created.json()) as { report: { id: string } }).report.id;
  const shared = await request.post(`/api/v1/reports/${reportId}/share`, { headers: AUTH, data: { expiresIn: "7d" } });
  expect(shared.status(), await shared.text()).toBe(201);
  const shareUrl = ((await shared.json()) as { share: { url: string } }).share.url;

  for (const path of [`/reports/${reportId}`, new URL(shareUrl).pathname]) {
    for (const size of [DESK, PHONE]) {
      await page.setViewportSize(size);
      await page.goto(path);
      await expect(page.getByTestId("report-pair").first()).toBeVisible();
      expect.soft(await sidewaysScroll(page), `${path} at ${size.width} px: ${await pastTheEdge(page)}`).toBe(0);
      // The policy: its frame is named, and a keyboard reaches it. The pinned pair (changed) is the compare page's
      // folded diff, opened at its first difference.
      await expect.soft(page.getByRole("region", { name: "Policy document" }).first()).toHaveAttribute("tabindex", "0");
      await expect
        .soft(page.getByTestId("report-pair-diff").first().getByTestId("monaco-diff"))
        .toHaveAttribute("data-first-change-line", /^\d+$/);
      expect.soft(await seriousViolations(page), `${path} at ${size.width} px`).toEqual([]);
    }
  }

  // The share list in the report's side column: who made a link sits under its date, and no cell's text runs into the next.
  await page.setViewportSize(DESK);
  await page.goto(`/reports/${reportId}`);
  const row = page.getByTestId("share-row").first();
  await expect(row.getByTestId("share-author")).toHaveText("by BRANCHPOINT_API_KEY");
  const gaps = await row.evaluate((tr) => {
    const textBox = (e: Element) => {
      const range = document.createRange();
      range.selectNodeContents(e);
      return range.getBoundingClientRect();
    };
    const cells = [...tr.querySelectorAll("td")].filter((td) => td.textContent.trim() !== "");
    return cells.slice(1).map((td, i) => textBox(td).left - textBox(cells[i]!).right);
  });
  for (const gap of gaps) expect.soft(gap).toBeGreaterThanOrEqual(8);
});

test("an import that cannot be read says why: not a valid OTLP protobuf export, or malformed JSON and where", async ({
  page,
  request,
}) => {
  for (const size of [DESK, PHONE]) {
    await page.setViewportSize(size);
    await page.goto("/import");
    const truncated = JSON.stringify({ resourceSpans: [{ scopeSpans: [] }] }).slice(0, 30);
    await page.getByLabel("Session files").setInputFiles([
      { name: "trace.pb", mimeType: "application/octet-stream", buffer: Buffer.from([0x7b, 0xff, 0xfe, 0x7d]) },
      { name: "cut.json", mimeType: "application/json", buffer: Buffer.from(truncated) },
    ]);
    const pb = page.locator('[data-testid="upload"][data-file="trace.pb"]');
    await expect(pb).toHaveAttribute("data-state", "failed");
    await expect(pb.getByRole("alert").locator("p")).toHaveText(
      "Not a valid OTLP protobuf export: expected the bytes of an OTLP ExportTraceServiceRequest (what an OTLP/HTTP trace exporter sends, gzipped or not); nor is it JSON text (the bytes are not valid UTF-8). Nothing was imported from this file.",
    );
    const cut = page.locator('[data-testid="upload"][data-file="cut.json"]');
    await expect(cut).toHaveAttribute("data-state", "failed");
    await expect(cut.getByRole("alert").locator("p")).toHaveText(
      "Malformed JSON at line 1, column 31: unterminated string (the text ends before the JSON does: was the file cut short?). Nothing was imported from this file.",
    );
    expect.soft(await sidewaysScroll(page)).toBe(0);
    expect.soft(await seriousViolations(page)).toEqual([]);
  }

  // The API says the same, under the same error code as before.
  const res = await request.post("/api/v1/sessions?filename=trace.pb", {
    headers: { ...AUTH, "content-type": "application/x-protobuf" },
    data: Buffer.from([0x7b, 0xff, 0xfe, 0x7d]),
  });
  expect(res.status()).toBe(400);
  const body = (await res.json()) as { error: { code: string; message: string } };
  expect(body.error.code).toBe("unknown_format");
  expect(body.error.message).toMatch(/^Not a valid OTLP protobuf export: expected the bytes of an OTLP/);
});

test("an OTLP session with no title is listed by its service and start time, not a raw id", async ({
  page,
  request,
}) => {
  const stamp = Date.now().toString(16).padStart(16, "0").slice(-16);
  const service = `untitled-svc-${stamp}`;
  const otlp = oneSpanTrace(stamp, service);
  const res = await request.post("/api/v1/sessions", { headers: AUTH, data: otlp });
  expect(res.status(), await res.text()).toBe(201);
  const [session] = ((await res.json()) as { sessions: { id: string }[] }).sessions;
  const label = `${service} · 2023-11-14 22:13:20 UTC`;

  await page.goto(`/sessions?agent=${encodeURIComponent(service)}`);
  const row = page.getByTestId("session-row");
  await expect(row).toHaveCount(1);
  await expect(row.getByRole("link").first()).toHaveText(label);
  await page.goto(`/sessions/${session!.id}`);
  await expect(page.getByRole("heading", { level: 1 })).toHaveText(label);
});
