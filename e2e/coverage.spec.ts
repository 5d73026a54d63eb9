import { refundSessionId, settledStatus } from "./replay-form";
import { readFile } from "node:fs/promises";
import { expect, test } from "./fixtures";

const AUTH = { Authorization: "Bearer e2e-test-key-0123456789" };
const ERROR_ON_MISS = {
  model: "recorded-only",
  drift: "continue_to_terminal",
  tools: { default: { type: "history", scope: "baseline", on_miss: "error_result" } },
};

type ToolRow = {
  tool: string;
  calls: number;
  bySource: Record<string, number>;
  misses: { reason: string; closest: { seq: number } | null; differingPaths: string[] }[];
  unused: { seq: number; args: unknown }[];
};

test("policy coverage of a branch: API, CSV, and the panel on the replay page", async ({ page, request }) => {
  const session = { id: await refundSessionId(request) };
  // Look up another order: history has no answer, the rule answers with an error result.
  const started = await request.post("/api/v1/replays", {
    headers: AUTH,
    data: {
      sessionId: session.id,
      policy: ERROR_ON_MISS,
      edits: [{ seq: 1, op: "replace_tool_args", value: { order_id: "4822" } }],
    },
  });
  expect(started.status()).toBe(201);
  const { replay } = (await started.json()) as { replay: { id: string } };
  expect(await settledStatus(request, replay.id)).toBe("completed");

  expect((await request.get(`/api/v1/replays/${replay.id}/coverage`)).status()).toBe(401);
  const missing = await request.get("/api/v1/replays/nope/coverage", { headers: AUTH });
  expect(missing.status()).toBe(404);
  expect(((await missing.json()) as { error: { code: string } }).error.code).toBe("not_found");

  const answer = await request.get(`/api/v1/replays/${replay.id}/coverage`, { headers: AUTH });
  expect(answer.status()).toBe(200);
  const { coverage } = (await answer.json()) as { coverage: { tools: ToolRow[] } };
  const lookup = coverage.tools.find((t) => t.tool === "lookup_order")!;
  expect(lookup.bySource.error_result).toBe(1);
  expect(lookup.misses.map((m) => [m.reason, m.closest?.seq, m.differingPaths])).toEqual([
    ["no_recorded_call", 1, ["order_id"]],
  ]);
  expect(lookup.unused).toEqual([{ seq: 1, args: { order_id: "4821" }, status: "completed" }]);

  const csv = await request.get(`/api/v1/replays/${replay.id}/coverage.csv`, { headers: AUTH });
  expect(csv.headers()["content-type"]).toBe("text/csv; charset=utf-8");
  const csvText = await csv.text();
  expect(csvText.split("\r\n")[0]).toBe(
    "row,tool,calls,recorded,static,fixture,live,llm,error_result,blocked,edited,reason,count,steps,closest_seq,differing_paths,session_id,replay_id,seq,args",
  );
  expect(csvText).toContain('unused,lookup_order,,,,,,,,,,,,,,,,,1,"{""order_id"":""4821""}"');

  await page.goto(`/replays/${replay.id}`);
  const panel = page.getByTestId("coverage-panel");
  await expect(panel).toContainText("1 miss");
  await expect(panel.getByRole("table", { name: "Recorded calls never used" })).toBeHidden();
  await panel.getByText("Policy coverage").click();
  const never = panel.getByRole("table", { name: "Recorded calls never used" });
  await expect(never).toBeVisible();
  await expect(never.getByRole("row").filter({ hasText: "lookup_order" })).toContainText('{"order_id":"4821"}');
  const misses = panel.getByRole("table", { name: "Misses by reason" });
  await expect(misses).toContainText("no recorded call with these arguments");
  await expect(misses).toContainText("order_id");
  await panel.scrollIntoViewIfNeeded();
  await page.screenshot({ path: "test-results/coverage-panel.png", fullPage: true });

  const [download] = await Promise.all([
    page.waitForEvent("download"),
    panel.getByRole("link", { name: "Download CSV" }).click(),
  ]);
  expect(download.suggestedFilename()).toBe(`coverage-replay-${replay.id}.csv`);
  expect(await readFile(await download.path(), "utf8")).toBe(csvText);
});
