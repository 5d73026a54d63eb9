/**
 * A LangSmith runs API on 127.0.0.1 for the connector tests: `POST /api/v1/runs/query` as the SDK calls it (see
 * lib/ingest/__fixtures__/langsmith.ts for where the shapes come from). It checks `x-api-key`; a query by
 * `session` + `is_root` answers the project's root runs, filtered by start_time/end_time (bounds on a run's
 * start), `error` and a `filter` of `has(tags, …)` / `eq(name, …)` parts, oldest first; a query by `trace`
 * answers that trace's runs. Both page by `cursors.next` (an opaque offset). A test may answer first (./testing.ts).
 */
import { isObject } from "@/lib/ingest/otlp/attributes";
import { fakePlatform, type Hit, type Override, type Routed } from "./testing";

export type FakeLangSmithOptions = {
  /** Each trace's runs (flat, with trace_id and parent_run_id). */
  traces: Record<string, unknown>[][];
  apiKey: string;
  project: string;
  intercept?: (hit: Hit) => Override | undefined;
};

const startOf = (run: Record<string, unknown>) => Date.parse(`${String(run.start_time)}Z`);
const cursorOf = (offset: number) => Buffer.from(`offset:${offset}`).toString("base64url");
const offsetOf = (cursor: unknown) =>
  typeof cursor === "string" ? Number(Buffer.from(cursor, "base64url").toString().replace("offset:", "")) || 0 : 0;

/** Whether a root run passes the filter-language parts this fake reads (tags all present, name equal). */
function passes(run: Record<string, unknown>, filter: unknown): boolean {
  if (typeof filter !== "string") return true;
  const tags = [...filter.matchAll(/has\(tags, "([^"]*)"\)/g)].map((m) => m[1]!);
  const names = [...filter.matchAll(/eq\(name, "([^"]*)"\)/g)].map((m) => m[1]!);
  const runTags = Array.isArray(run.tags) ? run.tags : [];
  return tags.every((t) => runTags.includes(t)) && names.every((n) => run.name === n);
}

export async function fakeLangSmith(opts: FakeLangSmithOptions) {
  const byTrace = new Map(opts.traces.map((runs) => [String(runs[0]!.trace_id), runs]));
  const page = (items: unknown[], body: Record<string, unknown>) => {
    const offset = offsetOf(body.cursor);
    const limit = typeof body.limit === "number" ? body.limit : 100;
    const runs = items.slice(offset, offset + limit);
    const more = offset + limit < items.length;
    return { runs, cursors: { next: more ? cursorOf(offset + limit) : null, prev: null } };
  };
  const roots = (body: Record<string, unknown>) => {
    const from = typeof body.start_time === "string" ? Date.parse(body.start_time) : -Infinity;
    const to = typeof body.end_time === "string" ? Date.parse(body.end_time) : Infinity;
    const inProject = Array.isArray(body.session) && body.session.includes(opts.project);
    return opts.traces
      .map((runs) => runs.find((r) => r.parent_run_id === null)!)
      .filter((r) => inProject && startOf(r) >= from && startOf(r) < to)
      .filter((r) => body.error === undefined || Boolean(r.error) === body.error)
      .filter((r) => passes(r, body.filter))
      .sort((a, b) => startOf(a) - startOf(b) || String(a.id).localeCompare(String(b.id)))
      .map((r) => ({ id: r.id, trace_id: r.trace_id, name: r.name, start_time: r.start_time }));
  };
  const route = (url: URL, raw: unknown): Routed => {
    const body = isObject(raw) ? raw : {};
    const isQuery = url.pathname === "/api/v1/runs/query";
    const trace = typeof body.trace === "string" ? body.trace : null;
    const hit = {
      kind: !isQuery ? ("other" as const) : trace !== null ? ("trace" as const) : ("roots" as const),
      page: isQuery
        ? Math.floor(offsetOf(body.cursor) / (typeof body.limit === "number" ? body.limit : 100)) + 1
        : null,
      traceId: trace,
    };
    const answer = () => {
      if (!isQuery) return { status: 404, body: { detail: "Not Found" } };
      if (trace !== null) return { status: 200, body: page(byTrace.get(trace) ?? [], body) };
      if (body.is_root !== true) return { status: 400, body: { detail: "this fake answers root-run queries only" } };
      return { status: 200, body: page(roots(body), body) };
    };
    return { hit, answer };
  };
  return fakePlatform({
    authorized: (req) => req.headers["x-api-key"] === opts.apiKey,
    denied: { detail: "Invalid token" },
    route,
    ...(opts.intercept ? { intercept: opts.intercept } : {}),
  });
}
