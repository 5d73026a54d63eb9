import AxeBuilder from "@axe-core/playwright";
import type { Page } from "@playwright/test";
import { mkdirSync } from "node:fs";
import { expect, test } from "./fixtures";

const SHOTS = "test-results/screens";
mkdirSync(SHOTS, { recursive: true });

/** Every dashboard page: the list pages, and one of each detail page reachable from them with the demo data. */
async function dashboardPages(page: Page): Promise<string[]> {
  const pages = [
    "/sessions",
    "/import",
    "/policies",
    "/replays",
    "/experiments",
    "/experiments/new",
    "/checks",
    "/failures",
    "/failures/regressions",
    "/reports",
    "/settings",
    "/settings/api-keys",
    "/settings/executors",
  ];
  await page.goto("/sessions");
  const session = await page.getByTestId("session-row").first().getByRole("link").first().getAttribute("href");
  expect(session).toMatch(/^\/sessions\/[^/]+$/);
  pages.push(session!, `${session!}/replay`, `${session!}/investigate`);
  // Detail pages of the other kinds, when other specs (or the demo data) made some.
  for (const [list, pattern] of [
    ["/policies", /^\/policies\/[^/?]+$/],
    ["/replays", /^\/replays\/[^/?]+$/],
    ["/experiments", /^\/experiments\/(?!new)[^/?]+$/],
    ["/reports", /^\/reports\/[^/?]+$/],
    ["/failures", /^\/failures\/(?!regressions)[^/?]+$/],
  ] as const) {
    await page.goto(list);
    const hrefs = await page.locator("main a[href]").evaluateAll((as) => as.map((a) => a.getAttribute("href") ?? ""));
    const detail = hrefs.find((h) => pattern.test(h));
    if (detail) pages.push(detail);
    if (list === "/replays" && detail) pages.push(`${detail}/compare`);
  }
  return pages;
}

/** Serious and critical violations of WCAG 2.1 AA; `coloursOnly`: of the rules a theme can change (colours). */
async function seriousViolations(page: Page, coloursOnly = false): Promise<string[]> {
  const axe = new AxeBuilder({ page });
  const result = await (
    coloursOnly
      ? axe.withRules(["color-contrast", "link-in-text-block"])
      : axe.withTags(["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"])
  ).analyze();
  return result.violations
    .filter((v) => v.impact === "serious" || v.impact === "critical")
    .map((v) => `${v.id} (${v.impact}): ${v.nodes.map((n) => n.target.join(" ")).join(", ")}`);
}

/** Switch the theme as a user does, with the toggle in the navigation (it also sets the cookie the next page reads). */
async function switchTheme(page: Page, theme: "light" | "dark") {
  await page
    .getByRole("radiogroup", { name: "Colour theme" })
    .filter({ visible: true })
    .first()
    .getByRole("radio", { name: theme === "dark" ? "Dark" : "Light" })
    .click();
  await expect(page.locator("html")).toHaveClass(theme);
}

// Each page is loaded once and checked in both themes: every rule in the theme the page loaded in, then the
// colour rules in the other one after the toggle (the toggle changes colours only), which the next page loads in.
test("every dashboard page has no serious or critical accessibility violation, light and dark", async ({
  page,
  context,
}) => {
  test.setTimeout(480_000);
  await context.addCookies([{ name: "branchpoint-theme", value: "light", url: "http://127.0.0.1" }]);
  const found: Record<string, string[]> = {};
  let theme: "light" | "dark" = "light";
  for (const path of await dashboardPages(page)) {
    await page.goto(path);
    await expect(page.locator("h1").first()).toBeVisible();
    await expect(page.getByTestId("page-skeleton")).toHaveCount(0);
    await expect(page.locator("html")).toHaveClass(theme);
    // Check editors once they are there: Monaco loads after the page, and an unnamed input only shows then.
    await expect(page.getByText("Loading editor…")).toHaveCount(0);
    for (const editor of await page.locator('[data-testid^="monaco"]').all()) {
      await expect(editor.locator(".monaco-editor").first()).toBeAttached();
    }
    const name = path.replaceAll("/", "_").replace(/^_/, "") || "root";
    const shoot = /^(sessions|policies|settings_executors|import)$/.test(name) || /^sessions_[^_]+$/.test(name);
    for (const pass of [0, 1]) {
      if (pass === 1) {
        theme = theme === "light" ? "dark" : "light";
        await switchTheme(page, theme);
      }
      const violations = await seriousViolations(page, pass === 1);
      if (violations.length > 0) found[`${path} (${theme})`] = violations;
      if (shoot) await page.screenshot({ path: `${SHOTS}/${name}-${theme}.png`, fullPage: false });
    }
  }
  expect(found).toEqual({});
});

test("keyboard: ? lists the shortcuts, / focuses the search, j/k move through rows, Ctrl K goes to a session by name", async ({
  page,
}) => {
  await page.goto("/sessions");
  await expect(page.getByTestId("session-row").first()).toBeVisible();

  await page.keyboard.press("?");
  const help = page.getByRole("dialog", { name: "Keyboard shortcuts" });
  await expect(help).toBeVisible();
  await expect(help).toContainText("Focus the search or filter box of this page");
  await page.keyboard.press("Escape");
  await expect(help).toBeHidden();

  await page.keyboard.press("/");
  await expect(page.getByRole("searchbox", { name: "Search" })).toBeFocused();
  await page.keyboard.press("Escape");
  await page.locator("h1").click();

  const rows = page.getByTestId("session-row");
  await page.keyboard.press("j");
  await expect(rows.nth(0)).toHaveAttribute("data-kbd-active", "true");
  await expect(rows.nth(0).getByRole("link").first()).toBeFocused();
  await page.keyboard.press("j");
  await expect(rows.nth(1)).toHaveAttribute("data-kbd-active", "true");
  await expect(rows.nth(0)).not.toHaveAttribute("data-kbd-active", "true");
  await page.keyboard.press("k");
  await expect(rows.nth(0).getByRole("link").first()).toBeFocused();
  // Enter opens the row's link.
  const first = await rows.nth(0).getByRole("link").first().getAttribute("href");
  await page.keyboard.press("Enter");
  await expect(page).toHaveURL(new RegExp(`${first}$`));

  // g then p goes to Policies.
  await page.locator("h1").click();
  await page.keyboard.press("g");
  await page.keyboard.press("p");
  await expect(page).toHaveURL(/\/policies$/);
  // g then r goes to Reports.
  await page.locator("h1").click();
  await page.keyboard.press("g");
  await page.keyboard.press("r");
  await expect(page).toHaveURL(/\/reports$/);

  // The palette finds a session by its title and goes there.
  await page.keyboard.press("Control+k");
  const palette = page.getByRole("dialog");
  await expect(palette).toBeVisible();
  await palette.getByRole("combobox").fill("task 0, trial 3");
  const hit = palette.getByRole("option", { name: /Session.*task 0, trial 3/ });
  await expect(hit).toBeVisible();
  await page.keyboard.press("ArrowDown");
  await hit.click();
  await expect(page.getByRole("heading", { name: /task 0, trial 3/ })).toBeVisible();
  await expect(palette).toBeHidden();
});

test("dark mode: the toggle sets it, it survives a reload rendered by the server, and System follows the OS", async ({
  page,
}) => {
  await page.emulateMedia({ colorScheme: "light" });
  await page.goto("/sessions");
  const bg = () => page.evaluate(() => getComputedStyle(document.body).backgroundColor);
  const lightBg = await bg();
  await page.getByRole("radio", { name: "Dark", exact: true }).click();
  await expect(page.locator("html")).toHaveClass("dark");
  await expect.poll(bg).not.toBe(lightBg);
  const darkBg = await bg();

  // The server renders the class from the cookie: the HTML itself is dark, before any script runs.
  const html = await (await page.request.get("/sessions")).text();
  expect(html).toMatch(/<html[^>]*class="dark"/);
  await page.reload();
  await expect(page.locator("html")).toHaveClass("dark");
  expect(await bg()).toBe(darkBg);

  // System: no class, and the OS preference decides.
  await page.getByRole("radio", { name: "System", exact: true }).click();
  await expect(page.locator("html")).not.toHaveClass(/dark|light/);
  expect(await bg()).toBe(lightBg);
  await page.emulateMedia({ colorScheme: "dark" });
  expect(await bg()).toBe(darkBg);
});

test("phone width: the navigation folds into a menu and nothing overflows sideways", async ({ page }) => {
  await page.setViewportSize({ width: 390, height: 844 });
  for (const path of [
    "/sessions",
    "/policies",
    "/replays",
    "/import",
    "/investigations",
    "/experiments",
    "/checks",
    "/failures",
    "/reports",
    "/settings",
    ...["executors", "prices", "connectors", "jobs", "team", "api-keys", "audit"].map((p) => `/settings/${p}`),
  ]) {
    await page.goto(path);
    await expect(page.locator("h1").first()).toBeVisible();
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    expect(overflow, `${path} scrolls sideways`).toBeLessThanOrEqual(0);
  }
  // A table wider than the phone scrolls inside its own box, and its last column can be scrolled to.
  await page.goto("/settings/prices");
  const prices = page.getByRole("region", { name: "Prices" });
  expect(await prices.evaluate((e) => e.scrollWidth - e.clientWidth)).toBeGreaterThan(0);
  await prices.evaluate((e) => e.scrollTo({ left: e.scrollWidth }));
  const lastHeader = prices.locator("thead th").last();
  const box = await lastHeader.boundingBox();
  expect(box && box.x + box.width).toBeLessThanOrEqual(390);
  await page.goto("/sessions");
  await expect(page.getByRole("link", { name: "Policies" })).toBeHidden();
  await page.getByRole("button", { name: "Menu" }).click();
  await page.screenshot({ path: `${SHOTS}/phone-menu.png` });
  await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Policies" }).click();
  await expect(page).toHaveURL(/\/policies$/);
  await expect(page.getByRole("button", { name: "Menu" })).toHaveAttribute("aria-expanded", "false");
});

test("favicon, and a tab kept in the URL", async ({ page }) => {
  const icon = await page.request.get("/icon.svg");
  expect(icon.status()).toBe(200);
  expect(icon.headers()["content-type"]).toContain("image/svg+xml");
  await page.goto("/policies");
  await expect(page.locator('head link[rel="icon"][href^="/icon.svg"]')).toHaveCount(1);

  await page.getByRole("radio", { name: /an imported document/ }).click();
  await expect(page.getByRole("radio", { name: /an imported document/ })).toBeChecked();
  await expect(page).toHaveURL(/[?&]create=import/);
  await page.reload();
  await expect(page.getByLabel("Document to import")).toBeVisible();
  await page.getByRole("radio", { name: "a preset" }).click();
  await expect(page.getByRole("radio", { name: "a preset" })).toBeChecked();
  await expect(page).toHaveURL(/\/policies$/);
  await expect(page.getByLabel("Preset", { exact: true })).toBeVisible();
});
