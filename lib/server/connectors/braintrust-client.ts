/**
 * Braintrust's SQL query endpoint as a pull reads it: `POST /btql` with `{ query, fmt: "json" }`, answered by
 * `{ data: [...] }` and, when more rows remain, a cursor (the `x-bt-cursor` header, or `cursor` in the body) sent
 * back as `cursor` for the next page. A project's root spans (a trace each) by filter:
 * `SELECT root_span_id, created FROM project_logs('<project id>') WHERE is_root AND created >= … AND created < …`
 * with `tags INCLUDES '<tag>'`, `span_attributes.name = '<name>'`, `error IS NOT NULL` (or `IS NULL`) and the
 * analyst's own SQL condition (`query`); one trace's spans: `WHERE root_span_id = '<id>'`, every page. The API key
 * goes in `Authorization: Bearer`. A pull given an experiment reads its rows the same way, `FROM experiment('<id>')`
 * instead of the project's logs. Retries, rate limits and the outbound guard: ./http.ts.
 */
import { isObject } from "@/lib/ingest/otlp/attributes";
import { cursorTracePage, PlatformHttp, readTracePages } from "./http";
import type { ConnectorClient, PagePosition, ProjectClientOptions, PullFilter, TraceAnswer, TracePage } from "./http";

/** The most pages of one trace's spans read (1000 rows each). */
const MAX_TRACE_PAGES = 20;
const TRACE_PAGE = 1000;

/**
 * A SQL string literal: quotes doubled and backslashes doubled, so the value ends where it should whether the
 * parser treats a backslash as an escape or not.
 */
export function sqlLiteral(value: string): string {
  return `'${value.replace(/\\/g, "\\\\").replace(/'/g, "''")}'`;
}

const NOT_A_CONDITION = /^(select|from|union|join|with|limit|offset|order|group|having|into|insert|update|delete)$/i;

/**
 * Why an analyst's SQL condition cannot stand inside the list query's WHERE clause, or null when it can: it must be
 * one condition on the project's logs, so outside its string literals and quoted names its parentheses balance
 * without closing the clause's own, and it holds no statement end, comment or clause of a query (a condition that
 * closed its parenthesis could widen the pull past the root spans, or read another project with the connector's
 * key).
 */
export function conditionProblem(condition: string): string | null {
  // Whether a backslash escapes a quote, and whether backticks quote, differ between SQL dialects: a condition whose
  // reading would depend on them is refused, so the one escape left (a doubled quote) reads the same either way.
  if (/[\\`]/.test(condition)) return "it holds a backslash or a backtick";
  let depth = 0;
  const words: string[] = [];
  let word = "";
  for (let i = 0; i < condition.length; i++) {
    const c = condition[i]!;
    if (c === "'" || c === '"') {
      // A literal or a quoted name: to its closing quote (a doubled quote stays inside).
      let j = i + 1;
      for (; j < condition.length; j++) {
        if (condition[j] === c) {
          if (condition[j + 1] === c) j++;
          else break;
        }
      }
      if (j >= condition.length) return "a quote is not closed";
      i = j;
      word = "";
      continue;
    }
    if (/[A-Za-z_]/.test(c)) {
      word += c;
      continue;
    }
    if (word) words.push(word);
    word = "";
    if (c === "(") depth++;
    else if (c === ")" && --depth < 0) return "a parenthesis closes one it did not open";
    else if (c === ";") return "it holds a statement end (;)";
    else if ((c === "-" && condition[i + 1] === "-") || (c === "/" && condition[i + 1] === "*"))
      return "it holds a comment";
  }
  if (word) words.push(word);
  if (depth !== 0) return "a parenthesis is not closed";
  const clause = words.find((w) => NOT_A_CONDITION.test(w));
  return clause ? `${clause.toUpperCase()} starts a clause of a query, not a condition` : null;
}

/** The list query's WHERE clause for a filter: root spans only, and each condition the filter gives. */
export function rootSpanConditions(filter: PullFilter): string[] {
  const where = ["is_root"];
  if (filter.fromTimestamp !== undefined) where.push(`created >= ${sqlLiteral(filter.fromTimestamp)}`);
  if (filter.toTimestamp !== undefined) where.push(`created < ${sqlLiteral(filter.toTimestamp)}`);
  for (const tag of filter.tags ?? []) where.push(`tags INCLUDES ${sqlLiteral(tag)}`);
  if (filter.name !== undefined) where.push(`span_attributes.name = ${sqlLiteral(filter.name)}`);
  if (filter.error !== undefined) where.push(filter.error ? "error IS NOT NULL" : "error IS NULL");
  if (filter.query !== undefined) where.push(`(${filter.query})`);
  return where;
}

export class BraintrustClient implements ConnectorClient {
  private readonly http: PlatformHttp;
  constructor(private readonly opts: ProjectClientOptions & { experiment?: string }) {
    this.http = new PlatformHttp(
      "Braintrust",
      opts,
      { authorization: `Bearer ${opts.apiKey}` },
      "check the API key in the connector's environment variable and that it may read the project",
    );
  }

  /** The project's logs, or one experiment's rows (the same span rows, read by the same mapper). */
  private from() {
    return this.opts.experiment !== undefined
      ? `experiment(${sqlLiteral(this.opts.experiment)})`
      : `project_logs(${sqlLiteral(this.opts.project)})`;
  }

  private async query(query: string, cursor: string | null, what: string, trace: boolean) {
    const body = { query, fmt: "json", ...(cursor !== null ? { cursor } : {}) };
    const answer = trace
      ? await this.http.requestTrace("POST", "/btql", body)
      : await this.http.request("POST", "/btql", body);
    const list = this.http.listAnswer(answer, what, "data", "{ data: [...] }");
    if (!list.ok) return list;
    const header = list.headers["x-bt-cursor"];
    const next = [Array.isArray(header) ? header[0] : header, list.body.cursor].find(
      (c): c is string => typeof c === "string" && c !== "",
    );
    return { ok: true as const, items: list.items, next: next ?? null };
  }

  /** One page of the project's root spans (a trace each), filtered. */
  async listTraces(filter: PullFilter, at: PagePosition, limit: number): Promise<TracePage> {
    const sql = `SELECT root_span_id, created FROM ${this.from()} WHERE ${rootSpanConditions(filter).join(" AND ")} LIMIT ${limit}`;
    const page = await this.query(sql, at.token, `page ${at.page} of the project's logs`, false);
    return cursorTracePage(page, at, (r) => (isObject(r) ? r.root_span_id : null));
  }

  /** Every span of one trace, all pages. */
  async getTrace(id: string): Promise<TraceAnswer> {
    const sql = `SELECT * FROM ${this.from()} WHERE root_span_id = ${sqlLiteral(id)} LIMIT ${TRACE_PAGE}`;
    return readTracePages(
      async (cursor) => {
        return this.query(sql, cursor, `the spans of trace ${id}`, true);
      },
      { platform: "Braintrust", items: "spans", maxPages: MAX_TRACE_PAGES, pageSize: TRACE_PAGE },
    );
  }
}
