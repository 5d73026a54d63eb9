import type { Locator, Page } from "@playwright/test";
import { expect, test } from "./fixtures";

/** Kitaru's documented example policy, as its --tool-policy JSON carries it. */
const SEED_000_TOOL_POLICY = {
  default: { type: "history", scope: "baseline", on_miss: "fail" },
  tools: {
    get_current_time: { type: "passthrough" },
    refund_payment: {
      type: "static",
      cases: [{ match_mode: "exact", match: { order_id: "4821" }, result: "refund issued: $129.00" }],
      on_miss: "error_result",
    },
  },
};

async function createPolicy(page: Page, name: string, agent: string | null, preset = "Recommended RCA default") {
  await page.goto("/policies");
  await page.getByLabel("Policy name").fill(name);
  if (agent) await page.getByLabel("Agent", { exact: true }).selectOption({ label: agent });
  await page.getByLabel("Preset", { exact: true }).selectOption({ label: preset });
  await page.getByRole("button", { name: "Create and edit" }).click();
  await expect(page).toHaveURL(/\/policies\/[^/]+$/);
  await expect(page.getByRole("heading", { name })).toBeVisible();
}

function monaco(page: Page, label: string): Locator {
  return page.locator('[data-testid^="monaco"]', { has: page.getByRole("textbox", { name: label, exact: true }) });
}

/** Replaces a Monaco editor's whole text by typing it (Monaco's auto-closed brackets and quotes are typed over). */
async function setMonacoText(page: Page, label: string, text: string) {
  await monaco(page, label).locator(".view-lines").click();
  await page.keyboard.press("ControlOrMeta+A");
  await page.keyboard.press("Delete");
  await page.keyboard.type(text);
}

const saveButton = (page: Page) => page.getByRole("button", { name: "Save version" });

test("an analyst builds Kitaru's documented example visually; the JSON follows and the --tool-policy export matches it", async ({
  page,
}) => {
  await createPolicy(page, "Kitaru example", "acme-reporting-assistant (langgraph)");
  await expect(page.getByTestId("saved-version")).toHaveText("1");
  const json = monaco(page, "Policy JSON").locator(".view-lines");
  await expect(json).toContainText('"on_miss": "pause"');

  // Default: history / baseline / fail.
  await page.getByLabel("On miss for default").selectOption("fail");
  await expect(json).toContainText('"on_miss": "fail"');
  await expect(json).not.toContainText('"pause"');
  await expect(page.getByTestId("unsaved-flag")).toBeVisible();

  // get_current_time: passthrough. Not seen yet, so not read-only: a warning says so (a replay would stop for approval).
  await page.getByLabel("New override tool name").fill("get_current_time");
  await page.getByRole("button", { name: "Add override" }).click();
  await page.getByLabel("Rule type for get_current_time").selectOption("passthrough");
  await expect(json).toContainText('"get_current_time"');
  const approval = page.getByTestId("issues-get_current_time").locator('[data-code="passthrough_requires_approval"]');
  await expect(approval).toHaveAttribute("data-severity", "warning");
  await expect(saveButton(page)).toBeEnabled();
  // Declaring it side-effect free (saved to the tool row) clears the error.
  await page.getByLabel("Side effect of get_current_time").selectOption("none");
  await expect(approval).toHaveCount(0);

  // refund_payment: static, exact {"order_id":"4821"} → "refund issued: $129.00", on miss error_result.
  await page.getByLabel("New override tool name").fill("refund_payment");
  await page.getByRole("button", { name: "Add override" }).click();
  await page.getByLabel("Rule type for refund_payment").selectOption("static");
  await page.getByLabel("On miss for refund_payment").selectOption("error_result");
  await page.getByTestId("rule-refund_payment").getByRole("button", { name: "Add case" }).click();
  await expect(page.getByLabel("Match mode of case 1 for refund_payment")).toHaveValue("exact");
  await setMonacoText(page, "Match of case 1 for refund_payment", '{"order_id": "4821"}');
  await setMonacoText(page, "Result of case 1 for refund_payment", '"refund issued: $129.00"');
  await expect(json).toContainText('"refund issued: $129.00"');
  await expect(json).toContainText('"order_id": "4821"');

  // The export is Kitaru's documented JSON, key for key.
  await page.getByRole("tab", { name: "Kitaru --tool-policy" }).click();
  const exported = JSON.parse((await page.getByTestId("export-seed-000").textContent()) ?? "") as unknown;
  expect(exported).toEqual(SEED_000_TOOL_POLICY);

  await expect(saveButton(page)).toBeEnabled();
  await saveButton(page).click();
  await expect(page.getByTestId("save-notice")).toContainText("Saved version 2");
  await expect(page.getByTestId("unsaved-flag")).toHaveCount(0);
});

test("JSON edits show in the controls; invalid JSON keeps the visual side and says so; a pasted --tool-policy document shows visually", async ({
  page,
}) => {
  await createPolicy(page, "JSON first", null);
  const doc = {
    model: "recorded-only",
    drift: "stop_on_first_divergence",
    maxSteps: 42,
    tools: {
      default: { type: "history", scope: "agent", on_miss: "error_result" },
      overrides: { lookup_order: { type: "blocked" } },
    },
  };
  await setMonacoText(page, "Policy JSON", JSON.stringify(doc));
  await expect(page.getByLabel("Drift")).toHaveValue("stop_on_first_divergence");
  await expect(page.getByRole("spinbutton", { name: "maxSteps" })).toHaveValue("42");
  await expect(page.getByLabel("Scope for default")).toHaveValue("agent");
  await expect(page.getByLabel("On miss for default")).toHaveValue("error_result");
  await expect(page.getByTestId("tool-row-lookup_order")).toContainText("blocked");

  await setMonacoText(page, "Policy JSON", '{"model": "recorded-only", ');
  await expect(page.getByTestId("json-status")).toContainText("Invalid JSON");
  await expect(page.getByTestId("json-status")).toContainText("stays on the last valid document");
  await expect(page.getByRole("spinbutton", { name: "maxSteps" })).toHaveValue("42");
  await expect(saveButton(page)).toBeDisabled();

  // A schema error names its path.
  await setMonacoText(page, "Policy JSON", JSON.stringify({ ...doc, tools: { default: { type: "histroy" } } }));
  await expect(page.getByTestId("json-status")).toContainText("tools.default.type");
  await expect(saveButton(page)).toBeDisabled();

  // Paste Kitaru's documented --tool-policy JSON into the import tab: the rules show visually.
  await page.getByRole("tab", { name: "Import" }).click();
  await page.getByLabel("Policy to import").fill(JSON.stringify(SEED_000_TOOL_POLICY));
  await page.getByRole("button", { name: "Import into editor" }).click();
  await expect(page.getByRole("status").filter({ hasText: "Kitaru --tool-policy JSON" })).toBeVisible();
  await expect(page.getByTestId("interchange-issues")).toContainText("recommended RCA default");
  await expect(page.getByTestId("json-status")).toHaveCount(0);
  await expect(page.getByLabel("On miss for default")).toHaveValue("fail");
  await expect(page.getByTestId("tool-row-get_current_time")).toContainText("passthrough");
  await expect(page.getByTestId("tool-row-refund_payment")).toContainText(
    "Configured results static · 1 case · if none: return a tool error",
  );
  await expect(saveButton(page)).toBeEnabled();
});

test("a rule the agent's adapter rejects is a warning beside the rule, as a replay says it; it saves, as a replay runs it", async ({
  page,
}) => {
  await createPolicy(page, "Harbor RCA", "harbor-pine-support (openai-agents)");
  // The preset follows Kitaru's advice for openai-agents (no history default there): passthrough default, history per tool.
  await expect(page.getByLabel("Rule type for default")).toHaveValue("passthrough");
  await expect(page.getByTestId("tool-row-refund_payment")).toContainText("history");
  // …and asks before each live call, so it opens with neither error nor warning.
  await expect(page.getByLabel("Approval for default")).toHaveValue("per_call");
  await expect(page.locator("[data-code]")).toHaveCount(0);
  await page.getByLabel("Rule type for default").selectOption("history");
  const issue = page.getByTestId("issues-default").locator('[data-code="openai_agents_history_default"]');
  await expect(issue).toContainText("The OpenAI Agents adapter does not support a `history` default");
  await expect(issue).toContainText("Branchpoint's engine intercepts every tool itself");
  await expect(issue).toHaveAttribute("data-severity", "warning");
  await expect(saveButton(page)).toBeEnabled();
  await saveButton(page).click();
  await expect(page.getByTestId("save-notice")).toContainText("Saved version 2");
  await expect(page.getByTestId("saved-version")).toHaveText("2");
  await page.getByLabel("Rule type for default").selectOption("passthrough");
  await expect(issue).toHaveCount(0);

  // llm is rejected by pydantic-ai: its preset is not offered; typed in, the rule warns.
  await page.goto("/policies");
  await page.getByLabel("Agent", { exact: true }).selectOption({ label: "trailhead-tracking-bot (pydantic-ai)" });
  await expect(page.getByLabel("Preset", { exact: true }).locator('option[value="simulated"]')).toHaveCount(0);
  await createPolicy(page, "Trailhead sim", "trailhead-tracking-bot (pydantic-ai)");
  await page.getByLabel("Rule type for default").selectOption("llm");
  const llm = page.getByTestId("issues-default").locator('[data-code="llm_unsupported_by_adapter"]');
  await expect(llm).toContainText("PydanticAI");
  await expect(llm).toHaveAttribute("data-severity", "warning");
});

test("cohort_version typed in the JSON saves with a note that it applies in experiments; the saved document is exactly the one typed", async ({
  page,
  request,
}) => {
  await createPolicy(page, "Cohort check", "harbor-pine-support (openai-agents)");
  const id = new URL(page.url()).pathname.split("/").pop()!;
  const typed = {
    model: "recorded-only",
    drift: "continue_to_terminal",
    maxSteps: 100,
    tools: {
      default: { type: "passthrough" },
      overrides: { lookup_order: { type: "history", scope: "cohort_version", on_miss: "error_result" } },
    },
  };
  await setMonacoText(page, "Policy JSON", JSON.stringify(typed));
  // The override opens below its row, the note under its scope.
  const note = page.getByTestId("rule-lookup_order").locator('[data-code="cohort_scope_outside_experiment"]');
  await expect(note).toHaveAttribute("data-severity", "warning");
  await expect(note).toContainText("`cohort_version` applies in experiments");
  await expect(saveButton(page)).toBeEnabled();
  await saveButton(page).click();
  await expect(page.getByTestId("saved-version")).toHaveText("2");
  const res = await request.get(`/api/v1/policies/${id}`, {
    headers: { Authorization: "Bearer e2e-test-key-0123456789" },
  });
  expect(res.status()).toBe(200);
  const body = (await res.json()) as { policy: { versions: { version: number; document: unknown }[] } };
  expect(body.policy.versions.find((v) => v.version === 2)?.document).toEqual(typed);
});

test("saving twice makes two versions, an unchanged save makes none, drafts survive a reload, and versions diff", async ({
  page,
}) => {
  await createPolicy(page, "Versioned", null);
  await expect(page.getByTestId("saved-version")).toHaveText("1");
  await saveButton(page).click();
  await expect(page.getByTestId("save-notice")).toContainText("No change");
  await expect(page.getByTestId("saved-version")).toHaveText("1");

  await page.getByRole("spinbutton", { name: "maxSteps" }).fill("50");
  await saveButton(page).click();
  await expect(page.getByTestId("save-notice")).toContainText("Saved version 2");

  // Unsaved changes survive a reload.
  await page.getByRole("spinbutton", { name: "maxSteps" }).fill("77");
  await expect(page.getByTestId("unsaved-flag")).toBeVisible();
  await page.reload();
  await expect(page.getByText("Restored unsaved changes")).toBeVisible();
  await expect(page.getByRole("spinbutton", { name: "maxSteps" })).toHaveValue("77");
  await expect(page.getByTestId("unsaved-flag")).toBeVisible();

  await page.getByRole("link", { name: "Versions" }).click();
  await expect(page.getByTestId("version-row")).toHaveCount(2);
  await expect(page.getByTestId("diff-title")).toHaveText("v1 → v2");
  const diff = page.getByTestId("monaco-diff");
  await expect(diff).toContainText('"maxSteps": 50');
  await expect(diff).toContainText('"maxSteps": 100');
  await page.getByLabel("From version").selectOption("2");
  await page.getByRole("button", { name: "Compare" }).click();
  await expect(page).toHaveURL(/a=2&b=2/);
  await expect(page.getByTestId("diff-title")).toHaveText("v2 → v2 (same document)");
});

test("try a rule on a recorded call: a hit returns the recording, a miss says why", async ({ page }) => {
  await createPolicy(page, "Harbor try", "harbor-pine-support (openai-agents)");
  const call = page.getByLabel("Recorded call");
  const refund = call.locator("option", { hasText: "refund_payment" }).first();
  await call.selectOption((await refund.getAttribute("value")) ?? "");
  await page.getByRole("button", { name: "Try", exact: true }).click();
  await expect(page.getByTestId("try-verdict")).toHaveText("Answers");
  await expect(page.getByTestId("try-result")).toContainText("recorded");

  await page.getByLabel("Rule type for refund_payment").selectOption("static");
  await page.getByRole("button", { name: "Try", exact: true }).click();
  await expect(page.getByTestId("try-verdict")).toHaveText("Pauses for a fixture");
  await expect(page.getByTestId("try-miss")).toContainText("Miss:");
});
