import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import AxeBuilder from "@axe-core/playwright";
import type { Page } from "@playwright/test";
import { PHOENIX_PROJECT, phoenixTrace } from "../lib/ingest/__fixtures__/phoenix";
import { expect, test } from "./fixtures";

const AUTH = { Authorization: "Bearer e2e-test-key-0123456789" };

async function axe(page: Page) {
  const result = await new AxeBuilder({ page }).withTags(["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"]).analyze();
  return result.violations.filter((v) => v.impact === "serious" || v.impact === "critical").map((v) => v.id);
}

type Span = Record<string, unknown> & { parent_id: string | null; status_code: string; start_time: string };

/**
 * A self-hosted Phoenix without auth on 127.0.0.1 serving its REST spans API on one page: four traces in range, the
 * second and fourth with a failed tool call their agent span reports (status ERROR), one a day later.
 */
function fakePhoenix() {
  const traces = [0, 1, 2, 3].map((n) => phoenixTrace(n, { failTool: n % 2 === 1 }) as Span[]);
  traces.push(phoenixTrace(9, { offsetMs: 86_400_000 }));
  for (const [n, spans] of traces.entries()) if (n % 2 === 1 && n < 4) spans[0]!.status_code = "ERROR";
  const traceIdOf = (span: Span) => (span.context as { trace_id: string }).trace_id;
  const asked: string[] = [];
  const server = createServer((req, res) => {
    const url = new URL(req.url ?? "/", "http://127.0.0.1");
    asked.push(url.search);
    const q = url.searchParams;
    if (url.pathname !== `/v1/projects/${PHOENIX_PROJECT}/spans` || req.headers.authorization !== undefined) {
      res.writeHead(404, { "content-type": "application/json" }).end('{"detail":"Not Found"}');
      return;
    }
    const from = Date.parse(q.get("start_time") ?? "") || -Infinity;
    const to = Date.parse(q.get("end_time") ?? "") || Infinity;
    const data = q.has("trace_id")
      ? (traces.find((spans) => traceIdOf(spans[0]!) === q.get("trace_id")) ?? [])
      : traces
          .map((spans) => spans[0]!)
          .filter((root) => Date.parse(root.start_time) >= from && Date.parse(root.start_time) < to)
          .filter((root) => !q.has("status_code") || root.status_code === q.get("status_code"));
    res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ data, next_cursor: null }));
  });
  return { server, asked };
}

// The pull form reads From and To in the browser's time zone.
test.use({ timezoneId: "UTC" });

test("an analyst adds a Phoenix connection, pulls the failed runs of a day as a job, and a second pull finds them again", async ({
  page,
  request,
}) => {
  const { server, asked } = fakePhoenix();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  try {
    const host = await request.post("/api/v1/executors/allowed-hosts", {
      headers: AUTH,
      data: { host: `127.0.0.1:${port}` },
    });
    expect(host.status()).toBe(201);
    const name = `phoenix-e2e-${port}`;

    await page.goto("/settings/connectors");
    const add = page.getByRole("form", { name: "Add a connector" });
    await add.getByLabel("Platform").selectOption("phoenix");
    await expect(add).toContainText("the API key is optional");
    await add.getByLabel("Name").fill(name);
    await add.getByLabel("Base URL").fill(`http://127.0.0.1:${port}`);
    await add.getByLabel("Project").fill(PHOENIX_PROJECT);
    await add.getByLabel("API key's environment variable").fill("LOCAL_MODEL_KEY");
    await add.getByRole("button", { name: "Add connector" }).click();
    await expect(page.getByRole("heading", { name })).toBeVisible();

    const pull = page.getByRole("form", { name: "Import from Phoenix" }).last();
    await pull.getByLabel("From").fill("2026-11-20T00:00");
    await pull.getByLabel("To (default: now)").fill("2026-11-21T00:00");
    await pull.getByLabel("Only runs that failed").check();
    await pull.getByRole("button", { name: "Import traces" }).click();
    const rows = page.getByTestId("connector-pull");
    await expect(rows.first()).toContainText("completed", { timeout: 60_000 });
    await expect(rows.first()).toContainText("2 traces: 2 imported, 0 already here, 0 refused");
    // The filter reached Phoenix as its API reads it: root spans of the day that ended in an error.
    const roots = asked.map((s) => new URLSearchParams(s)).filter((q) => q.get("parent_id") === "null");
    expect(roots.map((q) => [q.get("start_time"), q.get("end_time"), q.get("status_code")])).toEqual([
      ["2026-11-20T00:00:00.000Z", "2026-11-21T00:00:00.000Z", "ERROR"],
    ]);
    expect(await axe(page)).toEqual([]);

    await pull.getByRole("button", { name: "Import traces" }).click();
    await expect(rows).toHaveCount(2);
    await expect(rows.first()).toContainText("completed", { timeout: 60_000 });
    await expect(rows.first()).toContainText("2 traces: 0 imported, 2 already here, 0 refused");
  } finally {
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
});
