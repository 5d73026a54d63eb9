/**
 * LangSmith's runs API as a pull reads it: a project's root runs by filter (`POST /api/v1/runs/query` with
 * `session: [project]`, `is_root`, `start_time`/`end_time`, `error`, a `filter` in LangSmith's query language,
 * oldest first, paged by `cursors.next`), and a trace's run tree (the same query by `trace`, every page).
 * The API key goes in `x-api-key`. Retries, rate limits and the outbound guard: ./http.ts.
 */
import { isObject } from "@/lib/ingest/otlp/attributes";
import { cursorTracePage, PlatformHttp, readTracePages } from "./http";
import type { ConnectorClient, PagePosition, ProjectClientOptions, PullFilter, TraceAnswer, TracePage } from "./http";

/** The fields a trace's runs are read with (the SDK's default selection). */
const RUN_FIELDS = [
  "id",
  "name",
  "run_type",
  "start_time",
  "end_time",
  "extra",
  "error",
  "inputs",
  "outputs",
  "parent_run_id",
  "trace_id",
  "dotted_order",
  "session_id",
  "status",
  "tags",
  "events",
  "prompt_tokens",
  "completion_tokens",
  "total_tokens",
  "prompt_cost",
  "completion_cost",
  "total_cost",
  "feedback_stats",
  "app_path",
];
/** The most pages of one trace's runs read (100 runs each). */
const MAX_TRACE_PAGES = 100;

/** A value as a string literal of LangSmith's filter language. */
const literal = (value: string) => JSON.stringify(value);

/** The filter-language part of a pull's filter: its tags (all), its name and the analyst's own query. */
export function langSmithFilter(filter: PullFilter): string | null {
  const parts = [
    ...(filter.tags ?? []).map((tag) => `has(tags, ${literal(tag)})`),
    ...(filter.name !== undefined ? [`eq(name, ${literal(filter.name)})`] : []),
    ...(filter.query !== undefined ? [filter.query] : []),
  ];
  if (parts.length === 0) return null;
  return parts.length === 1 ? parts[0]! : `and(${parts.join(", ")})`;
}

export class LangSmithClient implements ConnectorClient {
  private readonly http: PlatformHttp;
  constructor(private readonly opts: ProjectClientOptions) {
    this.http = new PlatformHttp(
      "LangSmith",
      { ...opts, baseUrl: opts.baseUrl.replace(/\/+$/, "").replace(/\/api\/v1$/, "") },
      { "x-api-key": opts.apiKey },
      "check the API key in the connector's environment variable and that it may read the project",
    );
  }

  private async query(body: Record<string, unknown>, what: string, trace: boolean) {
    const answer = trace
      ? await this.http.requestTrace("POST", "/api/v1/runs/query", body)
      : await this.http.request("POST", "/api/v1/runs/query", body);
    const list = this.http.listAnswer(answer, what, "runs", "{ runs: [...], cursors }");
    if (!list.ok) return list;
    const cursors = isObject(list.body.cursors) ? list.body.cursors : {};
    const next = typeof cursors.next === "string" && cursors.next !== "" ? cursors.next : null;
    return { ok: true as const, items: list.items, next };
  }

  /** One page of the project's root runs (a trace each), oldest first, filtered. */
  async listTraces(filter: PullFilter, at: PagePosition, limit: number): Promise<TracePage> {
    const query = langSmithFilter(filter);
    const body = {
      session: [this.opts.project],
      is_root: true,
      order: "asc",
      limit,
      select: ["id", "trace_id", "name", "start_time"],
      ...(filter.fromTimestamp !== undefined ? { start_time: filter.fromTimestamp } : {}),
      ...(filter.toTimestamp !== undefined ? { end_time: filter.toTimestamp } : {}),
      ...(filter.error !== undefined ? { error: filter.error } : {}),
      ...(query !== null ? { filter: query } : {}),
      ...(at.token !== null ? { cursor: at.token } : {}),
    };
    const page = await this.query(body, `page ${at.page} of the project's runs`, false);
    return cursorTracePage(page, at, (r) => (isObject(r) ? (r.trace_id ?? r.id) : null));
  }

  /** Every run of one trace (its run tree, flat), all pages. */
  async getTrace(id: string): Promise<TraceAnswer> {
    return readTracePages(
      async (cursor) => {
        const body = { trace: id, limit: 100, select: RUN_FIELDS, ...(cursor !== null ? { cursor } : {}) };
        return this.query(body, `the runs of trace ${id}`, true);
      },
      { platform: "LangSmith", items: "runs", maxPages: MAX_TRACE_PAGES, pageSize: 100 },
    );
  }
}
