import type { APIRequestContext, Page } from "@playwright/test";
import { expect } from "./fixtures";
import { AUTH, refundSessionId, settledStatus } from "./replay-form";

/** What the walk-throughs share: the two screen sizes, a finished replay of the demo's refund session, a one-span trace. */

export const PHONE = { width: 390, height: 844 };
export const DESK = { width: 1280, height: 800 };
export const RECORDED = {
  model: "recorded-only",
  drift: "continue_to_terminal",
  tools: { default: { type: "history", scope: "baseline", on_miss: "fail" } },
};

/** A replay of the refund session, finished; with `edits`, a branch that differs from its base. */
export async function completedReplay(request: APIRequestContext, edits?: readonly object[]): Promise<string> {
  const res = await request.post("/api/v1/replays", {
    headers: AUTH,
    data: { sessionId: await refundSessionId(request), policy: RECORDED, ...(edits ? { edits } : {}) },
  });
  expect(res.status(), await res.text()).toBe(201);
  const { id } = ((await res.json()) as { replay: { id: string } }).replay;
  expect(await settledStatus(request, id)).toBe("completed");
  return id;
}

/** How far the page scrolls sideways: 0 when everything fits the window's width. */
export function sidewaysScroll(page: Page): Promise<number> {
  return page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
}

/** An OTLP JSON export of one model span with no title, under trace and span ids made of `stamp` (16 hex digits). */
export function oneSpanTrace(stamp: string, service: string) {
  return {
    resourceSpans: [
      {
        resource: { attributes: [{ key: "service.name", value: { stringValue: service } }] },
        scopeSpans: [
          {
            spans: [
              {
                traceId: `${stamp}${stamp}`,
                spanId: stamp,
                name: "chat gpt-4o",
                startTimeUnixNano: "1700000000000000000",
                endTimeUnixNano: "1700000001000000000",
                attributes: [
                  { key: "gen_ai.operation.name", value: { stringValue: "chat" } },
                  { key: "gen_ai.request.model", value: { stringValue: "gpt-4o" } },
                ],
              },
            ],
          },
        ],
      },
    ],
  };
}

/** An experiment of the recorded policy over the demo's τ-bench agent version, started (not awaited). */
export async function startRecordedExperiment(request: APIRequestContext, name: string): Promise<string> {
  const saved = await request.post("/api/v1/policies", { headers: AUTH, data: { name, policy: RECORDED } });
  expect(saved.status()).toBe(201);
  const { versionId } = (await saved.json()) as { versionId: string };
  const list = await request.get("/api/v1/sessions?agent=tau-bench-airline-agent&limit=1", { headers: AUTH });
  const [first] = ((await list.json()) as { sessions: { agentVersionId: string }[] }).sessions;
  const started = await request.post("/api/v1/experiments", {
    headers: AUTH,
    data: { name, policyVersionId: versionId, agentVersionId: first!.agentVersionId },
  });
  expect(started.status(), await started.text()).toBe(201);
  return ((await started.json()) as { experiment: { id: string } }).experiment.id;
}

/** Waits until the experiment has completed. */
export async function experimentCompleted(request: APIRequestContext, id: string): Promise<void> {
  await expect
    .poll(
      async () => {
        const got = await request.get(`/api/v1/experiments/${id}`, { headers: AUTH });
        return ((await got.json()) as { experiment: { status: string } }).experiment.status;
      },
      { timeout: 60_000 },
    )
    .toBe("completed");
}
