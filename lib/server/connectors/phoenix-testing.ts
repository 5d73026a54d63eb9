/**
 * A Phoenix REST spans API on 127.0.0.1 for the connector tests: `GET /v1/projects/{project}/spans` answering
 * `{ data, next_cursor }` (see lib/ingest/__fixtures__/phoenix.ts for where the shapes come from). It checks
 * `Authorization: Bearer` (none at all when its key is empty); `parent_id=null` lists root spans (filtered by start_time/end_time on the root's
 * start, `name` and `status_code`, oldest first); `trace_id` lists that trace's spans. Both page by an opaque
 * `cursor`. A test may answer first (./testing.ts).
 */
import { fakePlatform, type Hit, type Override, type Routed } from "./testing";

export type FakePhoenixOptions = {
  traces: Record<string, unknown>[][];
  apiKey: string;
  project: string;
  intercept?: (hit: Hit) => Override | undefined;
};

const traceOf = (span: Record<string, unknown>) => String((span.context as { trace_id: string }).trace_id);
const cursorOf = (offset: number) => Buffer.from(`offset:${offset}`).toString("base64url");
const offsetOf = (cursor: string | null) =>
  cursor ? Number(Buffer.from(cursor, "base64url").toString().replace("offset:", "")) || 0 : 0;

export async function fakePhoenix(opts: FakePhoenixOptions) {
  const byTrace = new Map(opts.traces.map((spans) => [traceOf(spans[0]!), spans]));
  const roots = (q: URLSearchParams) => {
    const from = Date.parse(q.get("start_time") ?? "") || -Infinity;
    const to = Date.parse(q.get("end_time") ?? "") || Infinity;
    return opts.traces
      .map((spans) => spans.find((s) => s.parent_id === null)!)
      .filter((s) => Date.parse(String(s.start_time)) >= from && Date.parse(String(s.start_time)) < to)
      .filter((s) => !q.has("name") || s.name === q.get("name"))
      .filter((s) => !q.has("status_code") || s.status_code === q.get("status_code"))
      .sort((a, b) => Date.parse(String(a.start_time)) - Date.parse(String(b.start_time)));
  };
  const route = (url: URL): Routed => {
    const q = url.searchParams;
    const isSpans = url.pathname === `/v1/projects/${opts.project}/spans`;
    const trace = q.get("trace_id");
    const limit = Number(q.get("limit") ?? "100");
    const offset = offsetOf(q.get("cursor"));
    const hit = {
      kind: !isSpans ? ("other" as const) : trace !== null ? ("trace" as const) : ("roots" as const),
      page: isSpans ? Math.floor(offset / limit) + 1 : null,
      traceId: trace,
    };
    const answer = () => {
      if (!isSpans) return { status: 404, body: { detail: "Not Found" } };
      if (trace === null && q.get("parent_id") !== "null")
        return { status: 400, body: { detail: "this fake answers root-span lists only" } };
      const items = trace !== null ? (byTrace.get(trace) ?? []) : roots(q);
      const more = offset + limit < items.length;
      return {
        status: 200,
        body: { data: items.slice(offset, offset + limit), next_cursor: more ? cursorOf(offset + limit) : null },
      };
    };
    return { hit, answer };
  };
  return fakePlatform({
    // An empty key: a self-hosted Phoenix without auth, which must get no Authorization header at all.
    authorized: (req) => req.headers.authorization === (opts.apiKey === "" ? undefined : `Bearer ${opts.apiKey}`),
    denied: { detail: "Invalid token" },
    route,
    ...(opts.intercept ? { intercept: opts.intercept } : {}),
  });
}
