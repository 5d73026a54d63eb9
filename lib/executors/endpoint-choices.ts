/**
 * What a page that sends one call to a chosen model endpoint (the playground, a cluster's label) shares: the
 * configured endpoints with whether their host is on the allow-list, and how the executor's refusal reads.
 */
import type { DbClient } from "@/lib/db/client";
import { listExecutorRows } from "@/lib/db/executors";
import { AppError } from "@/lib/errors";
import { DEMO_MODEL } from "./demo-model";
import { type ExecutorError, urlHostAllowed } from "./live";

/**
 * The endpoints a picker offers: for demo data the built-in demo model first (it answers only demo data), then
 * every configured model endpoint, by name, with whether its host is allowed.
 */
export async function modelEndpointChoices(client: DbClient, data: { demo: boolean } = { demo: false }) {
  const { models, hosts } = await listExecutorRows(client);
  const allowed = new Set(hosts.map((h) => h.host.toLowerCase()));
  return [
    ...(data.demo
      ? [{ id: DEMO_MODEL.id, name: DEMO_MODEL.name, model: DEMO_MODEL.model, hostAllowed: true, demo: true }]
      : []),
    ...models.map((m) => ({
      id: m.id,
      name: m.name,
      model: m.model,
      hostAllowed: urlHostAllowed(m.baseUrl, allowed),
      demo: false,
    })),
  ];
}

/** The endpoint was reached and failed (an error status, garbage, no answer in time), as against a set-up problem. */
export const failedCall = (error: ExecutorError) =>
  error.code === "http_error" || error.code === "bad_response" || error.code === "timeout";

/**
 * How an executor's refusal reads: set-up problems (no endpoint, a host off the allow-list, a key not set) are a
 * 400 the admin fixes; an endpoint that answered an error, garbage or nothing in time is a failed call (502). The
 * issue's message is the executor's code, so a page can tell "refused", "timed out" and "not allowed" apart.
 */
export function executorRefusal(error: ExecutorError): AppError {
  return new AppError(failedCall(error) ? "run_failed" : "executor_missing", error.message, [
    { path: "endpointId", message: error.code },
  ]);
}
