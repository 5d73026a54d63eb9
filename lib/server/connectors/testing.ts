/**
 * A Langfuse public API on 127.0.0.1 for the connector tests: it serves Langfuse's documented shapes (see
 * lib/ingest/__fixtures__/langfuse.ts for where they come from) from a set of traces, checks Basic auth,
 * filters and pages the trace list as the API does (pages from 1, oldest first with orderBy=timestamp.asc),
 * and lets a test answer any request its own way first (a 429 with Retry-After, a 500 once, a slow page, a
 * hostile body). It records every request. Never used by the app.
 */
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { listedTrace } from "@/lib/ingest/__fixtures__/langfuse";

export type Hit = {
  kind: "list" | "trace" | "observations" | "other";
  page: number | null;
  traceId: string | null;
  at: number;
  /** How many times this exact request (path and query) was made, this one included. */
  count: number;
};

/** A test's own answer to a request: status, headers and body text, after `delayMs`. */
export type Override = { status?: number; headers?: Record<string, string>; body?: string; delayMs?: number };

export type FakeLangfuseOptions = {
  traces: Record<string, unknown>[];
  publicKey: string;
  secretKey: string;
  /** Answers a request before the API does; undefined lets the API answer. */
  intercept?: (hit: Hit) => Override | undefined;
  /** Traces whose detail answers list their observations as ids (fetched from /api/public/observations). */
  observationsByIdOnly?: ReadonlySet<string>;
};

const ts = (t: Record<string, unknown>) => Date.parse(String(t.timestamp));

export async function fakeLangfuse(opts: FakeLangfuseOptions) {
  const hits: Hit[] = [];
  const seen = new Map<string, number>();
  const byId = new Map(opts.traces.map((t) => [String(t.id), t]));
  const expected = `Basic ${Buffer.from(`${opts.publicKey}:${opts.secretKey}`).toString("base64")}`;

  const answer = (res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) => {
    res.writeHead(status, { "content-type": "application/json", ...headers });
    res.end(typeof body === "string" ? body : JSON.stringify(body));
  };

  const list = (query: URLSearchParams) => {
    const page = Number(query.get("page") ?? "1");
    const limit = Number(query.get("limit") ?? "50");
    const from = query.get("fromTimestamp");
    const to = query.get("toTimestamp");
    const tags = query.getAll("tags");
    const matching = opts.traces
      .filter((t) => (from ? ts(t) >= Date.parse(from) : true))
      .filter((t) => (to ? ts(t) < Date.parse(to) : true))
      .filter((t) => ["userId", "sessionId", "name"].every((k) => !query.get(k) || t[k] === query.get(k)))
      .filter((t) => tags.every((tag) => (t.tags as string[] | undefined)?.includes(tag)))
      .sort((a, b) => ts(a) - ts(b) || String(a.id).localeCompare(String(b.id)));
    const data = matching.slice((page - 1) * limit, page * limit).map(listedTrace);
    return { data, meta: { page, limit, totalItems: matching.length, totalPages: Math.ceil(matching.length / limit) } };
  };

  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url ?? "/", "http://127.0.0.1");
    const key = `${url.pathname}?${url.searchParams.toString()}`;
    const count = (seen.get(key) ?? 0) + 1;
    seen.set(key, count);
    const traceMatch = /^\/api\/public\/traces\/([^/]+)$/.exec(url.pathname);
    const hit: Hit = {
      kind:
        url.pathname === "/api/public/traces"
          ? "list"
          : traceMatch
            ? "trace"
            : url.pathname === "/api/public/observations"
              ? "observations"
              : "other",
      page: url.searchParams.has("page") ? Number(url.searchParams.get("page")) : null,
      traceId: traceMatch ? decodeURIComponent(traceMatch[1]!) : url.searchParams.get("traceId"),
      at: Date.now(),
      count,
    };
    hits.push(hit);
    if (req.headers.authorization !== expected)
      return answer(res, 401, { message: "Invalid credentials. Confirm that you've configured the correct host." });
    const override = opts.intercept?.(hit);
    const respond = () => {
      if (override?.status !== undefined || override?.body !== undefined)
        return answer(res, override.status ?? 200, override.body ?? "{}", override.headers);
      if (hit.kind === "list") return answer(res, 200, list(url.searchParams));
      if (hit.kind === "trace") {
        const trace = byId.get(hit.traceId!);
        if (!trace) return answer(res, 404, { message: `Trace ${hit.traceId} not found within authorized project` });
        return answer(res, 200, opts.observationsByIdOnly?.has(hit.traceId!) ? listedTrace(trace) : trace);
      }
      if (hit.kind === "observations") {
        const trace = byId.get(hit.traceId ?? "");
        const all = (trace?.observations as unknown[] | undefined) ?? [];
        const page = hit.page ?? 1;
        const limit = Number(url.searchParams.get("limit") ?? "50");
        return answer(res, 200, {
          data: all.slice((page - 1) * limit, page * limit),
          meta: { page, limit, totalItems: all.length, totalPages: Math.ceil(all.length / limit) },
        });
      }
      return answer(res, 404, { message: "not found" });
    };
    if (override?.delayMs) setTimeout(respond, override.delayMs);
    else respond();
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    hits,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
