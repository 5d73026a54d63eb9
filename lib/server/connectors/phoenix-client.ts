/**
 * Arize Phoenix's REST spans API as a pull reads it: a project's root spans (a trace each) by filter
 * (`GET /v1/projects/{project}/spans` with `parent_id=null`, `start_time`/`end_time`, `name`, `status_code`,
 * paged by `next_cursor`), and one trace's spans (the same list by `trace_id`, every page). The API key, when the
 * connector's variable holds one, goes in `Authorization: Bearer` (a self-hosted Phoenix without auth needs none).
 * Retries, rate limits and the outbound guard: ./http.ts.
 */
import { isObject } from "@/lib/ingest/otlp/attributes";
import { cursorTracePage, PlatformHttp, readTracePages } from "./http";
import type { ConnectorClient, PagePosition, ProjectClientOptions, PullFilter, TraceAnswer, TracePage } from "./http";

/** The most pages of one trace's spans read (1000 spans each). */
const MAX_TRACE_PAGES = 20;
const TRACE_PAGE = 1000;

export class PhoenixClient implements ConnectorClient {
  private readonly http: PlatformHttp;
  constructor(private readonly opts: ProjectClientOptions) {
    this.http = new PlatformHttp(
      "Phoenix",
      opts,
      opts.apiKey !== "" ? { authorization: `Bearer ${opts.apiKey}` } : {},
      "check the API key in the connector's environment variable and that it may read the project",
    );
  }

  private async spans(params: URLSearchParams, what: string, trace: boolean) {
    const path = `/v1/projects/${encodeURIComponent(this.opts.project)}/spans?${params.toString()}`;
    const answer = trace ? await this.http.requestTrace("GET", path) : await this.http.request("GET", path);
    const list = this.http.listAnswer(answer, what, "data", "{ data: [...], next_cursor }");
    if (!list.ok) return list;
    const cursor = list.body.next_cursor;
    const next = typeof cursor === "string" && cursor !== "" ? cursor : null;
    return { ok: true as const, items: list.items, next };
  }

  /** One page of the project's root spans (a trace each), filtered. */
  async listTraces(filter: PullFilter, at: PagePosition, limit: number): Promise<TracePage> {
    const params = new URLSearchParams({ parent_id: "null", limit: String(limit) });
    if (filter.fromTimestamp !== undefined) params.set("start_time", filter.fromTimestamp);
    if (filter.toTimestamp !== undefined) params.set("end_time", filter.toTimestamp);
    if (filter.name !== undefined) params.set("name", filter.name);
    if (filter.error !== undefined) params.set("status_code", filter.error ? "ERROR" : "OK");
    if (at.token !== null) params.set("cursor", at.token);
    const page = await this.spans(params, `page ${at.page} of the project's spans`, false);
    return cursorTracePage(page, at, (s) => (isObject(s) && isObject(s.context) ? s.context.trace_id : null));
  }

  /** Every span of one trace, all pages. */
  async getTrace(id: string): Promise<TraceAnswer> {
    return readTracePages(
      async (cursor) => {
        const params = new URLSearchParams({ trace_id: id, limit: String(TRACE_PAGE) });
        if (cursor !== null) params.set("cursor", cursor);
        return this.spans(params, `the spans of trace ${id}`, true);
      },
      { platform: "Phoenix", items: "spans", maxPages: MAX_TRACE_PAGES, pageSize: TRACE_PAGE },
    );
  }
}
