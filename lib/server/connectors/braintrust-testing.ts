/**
 * Braintrust's SQL query endpoint on 127.0.0.1 for the connector tests: `POST /btql` with `{ query, fmt, cursor }`
 * answering `{ data }` and, while rows remain, the next page's cursor in `x-bt-cursor` (see
 * lib/ingest/__fixtures__/braintrust.ts for where the shapes come from). It checks `Authorization: Bearer`, reads
 * the queries the client writes (./braintrust-client.ts): root spans of `project_logs('<id>')` filtered by
 * `created`, `tags INCLUDES`, `span_attributes.name` and `error IS [NOT] NULL`, or one trace's rows by
 * `root_span_id`, each paged by an opaque cursor. A test may answer first (./testing.ts).
 */
import { fakePlatform, type Hit, type Override, type Routed } from "./testing";

export type FakeBraintrustOptions = {
  traces: Record<string, unknown>[][];
  /** Experiments' rows by experiment id, read `FROM experiment('<id>')`. */
  experiments?: Record<string, Record<string, unknown>[][]>;
  apiKey: string;
  project: string;
  intercept?: (hit: Hit) => Override | undefined;
};

const cursorOf = (offset: number) => Buffer.from(`offset:${offset}`).toString("base64url");
const offsetOf = (cursor: unknown) =>
  typeof cursor === "string" ? Number(Buffer.from(cursor, "base64url").toString().replace("offset:", "")) || 0 : 0;
/** The SQL literals a query compares a column with (`col op 'value'`), quotes undoubled. */
const literals = (sql: string, column: string, op: string) =>
  [...sql.matchAll(new RegExp(`${column.replace(".", "\\.")} ${op} '((?:[^']|'')*)'`, "g"))].map((m) =>
    m[1]!.replace(/''/g, "'").replace(/\\\\/g, "\\"),
  );

export async function fakeBraintrust(opts: FakeBraintrustOptions) {
  const rootOf = (rows: Record<string, unknown>[]) => rows.find((r) => r.span_parents === null)!;
  const sourceOf = (sql: string) => {
    const experiment = /FROM experiment\('((?:[^']|'')*)'\)/.exec(sql)?.[1]?.replace(/''/g, "'");
    if (experiment !== undefined) return opts.experiments?.[experiment] ?? null;
    return sql.includes(`FROM project_logs('${opts.project}')`) ? opts.traces : null;
  };
  const byTrace = (traces: Record<string, unknown>[][]) =>
    new Map(traces.map((rows) => [String(rootOf(rows).root_span_id), rows]));
  const roots = (traces: Record<string, unknown>[][], sql: string) => {
    const from = literals(sql, "created", ">=").map(Date.parse)[0] ?? -Infinity;
    const to = literals(sql, "created", "<").map(Date.parse)[0] ?? Infinity;
    const tags = literals(sql, "tags", "INCLUDES");
    const names = literals(sql, "span_attributes.name", "=");
    const error = sql.includes("error IS NOT NULL") ? true : sql.includes("error IS NULL") ? false : null;
    return traces
      .map(rootOf)
      .filter((r) => Date.parse(String(r.created)) >= from && Date.parse(String(r.created)) < to)
      .filter((r) => tags.every((t) => (r.tags as string[] | null)?.includes(t)))
      .filter((r) => names.every((n) => (r.span_attributes as { name: string }).name === n))
      .filter((r) => error === null || (r.error !== undefined && r.error !== null) === error)
      .map((r) => ({ root_span_id: r.root_span_id, created: r.created }));
  };
  const route = (url: URL, body: unknown): Routed => {
    const q = (body ?? {}) as { query?: unknown; cursor?: unknown };
    const sql = typeof q.query === "string" ? q.query : "";
    const isBtql = url.pathname === "/btql";
    const trace = literals(sql, "root_span_id", "=")[0] ?? null;
    const limit = Number(/LIMIT (\d+)$/.exec(sql)?.[1] ?? "1000");
    const offset = offsetOf(q.cursor);
    const hit = {
      kind: !isBtql ? ("other" as const) : trace !== null ? ("trace" as const) : ("roots" as const),
      page: isBtql ? Math.floor(offset / limit) + 1 : null,
      traceId: trace,
    };
    const answer = () => {
      if (!isBtql) return { status: 404, body: { error: "Not Found" } };
      const source = sourceOf(sql);
      if (source === null)
        return { status: 400, body: { error: "this fake answers the one project's logs and its experiments only" } };
      if (trace === null && !sql.includes("WHERE is_root"))
        return { status: 400, body: { error: "this fake answers root-span lists only" } };
      const items = trace !== null ? (byTrace(source).get(trace) ?? []) : roots(source, sql);
      const more = offset + limit < items.length;
      return {
        status: 200,
        body: { data: items.slice(offset, offset + limit) },
        ...(more ? { headers: { "x-bt-cursor": cursorOf(offset + limit) } } : {}),
      };
    };
    return { hit, answer };
  };
  return fakePlatform({
    authorized: (req) => req.headers.authorization === `Bearer ${opts.apiKey}`,
    denied: { error: "Invalid API key" },
    route,
    ...(opts.intercept ? { intercept: opts.intercept } : {}),
  });
}
