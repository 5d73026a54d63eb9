/**
 * Fake platforms on 127.0.0.1 for the connector tests (fakePlatform; the LangSmith one: ./langsmith-testing.ts). The Langfuse public API: it serves Langfuse's documented shapes (see
 * lib/ingest/__fixtures__/langfuse.ts for where they come from) from a set of traces, checks Basic auth,
 * filters and pages the trace list as the API does (pages from 1, oldest first with orderBy=timestamp.asc; by
 * time range, tags, user, session, name, environment, version and release; like the API, not by level),
 * and lets a test answer any request its own way first (a 429 with Retry-After, a 500 once, a slow page, a
 * hostile body). It records every request. Never used by the app.
 */
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import type { Db } from "@/lib/db";
import type { SessionEvent } from "@/lib/replay";
import { findPull } from "@/lib/db/connectors";
import { sessionEvents } from "@/lib/db/session-reads";
import { resetEnvCache } from "@/lib/env";
import { runPull, type PullDeps } from "./run-pull";
import { listedTrace } from "@/lib/ingest/__fixtures__/langfuse";

export type Hit = {
  /** Langfuse: list, trace, observations; LangSmith: roots (a project's root runs), trace (a trace's runs). */
  kind: "list" | "trace" | "observations" | "roots" | "other";
  page: number | null;
  traceId: string | null;
  at: number;
  /** How many times this exact request (path, query and body) was made, this one included. */
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

/** What a fake platform makes of a request: the hit it records, and its answer when no test answers first. */
export type Routed = {
  hit: Omit<Hit, "at" | "count">;
  answer: () => { status: number; body: unknown; headers?: Record<string, string> };
};

/**
 * A platform's API on 127.0.0.1: records each request as a hit, refuses it when not `authorized`, lets the test
 * answer first (`intercept`), else answers as `route` says. Request bodies are read as JSON (null when not).
 */
export async function fakePlatform(opts: {
  authorized: (req: IncomingMessage) => boolean;
  denied: unknown;
  route: (url: URL, body: unknown) => Routed;
  intercept?: (hit: Hit) => Override | undefined;
}) {
  const hits: Hit[] = [];
  const seen = new Map<string, number>();
  const send = (res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) => {
    res.writeHead(status, { "content-type": "application/json", ...headers });
    res.end(typeof body === "string" ? body : JSON.stringify(body));
  };
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const text = Buffer.concat(chunks).toString("utf8");
      let body: unknown = null;
      try {
        body = text ? (JSON.parse(text) as unknown) : null;
      } catch {
        body = null;
      }
      const url = new URL(req.url ?? "/", "http://127.0.0.1");
      const key = `${url.pathname}?${url.searchParams.toString()} ${text}`;
      const count = (seen.get(key) ?? 0) + 1;
      seen.set(key, count);
      const routed = opts.route(url, body);
      const hit: Hit = { ...routed.hit, at: Date.now(), count };
      hits.push(hit);
      if (!opts.authorized(req)) return send(res, 401, opts.denied);
      const override = opts.intercept?.(hit);
      const respond = () => {
        if (override?.status !== undefined || override?.body !== undefined)
          return send(res, override.status ?? 200, override.body ?? "{}", override.headers);
        const { status, body: answer, headers } = routed.answer();
        send(res, status, answer, headers);
      };
      if (override?.delayMs) setTimeout(respond, override.delayMs);
      else respond();
    });
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

export async function fakeLangfuse(opts: FakeLangfuseOptions) {
  // Read at each request: a test may add a trace to `traces` later (one the platform indexed late).
  const byId = { get: (id: string) => opts.traces.find((t) => String(t.id) === id) };
  const expected = `Basic ${Buffer.from(`${opts.publicKey}:${opts.secretKey}`).toString("base64")}`;

  const list = (query: URLSearchParams) => {
    const page = Number(query.get("page") ?? "1");
    const limit = Number(query.get("limit") ?? "50");
    const from = query.get("fromTimestamp");
    const to = query.get("toTimestamp");
    const tags = query.getAll("tags");
    const matching = opts.traces
      .filter((t) => (from ? ts(t) >= Date.parse(from) : true))
      .filter((t) => (to ? ts(t) < Date.parse(to) : true))
      .filter((t) =>
        ["userId", "sessionId", "name", "version", "release", "environment"].every(
          (k) => !query.get(k) || t[k] === query.get(k),
        ),
      )
      .filter((t) => tags.every((tag) => (t.tags as string[] | undefined)?.includes(tag)))
      .sort((a, b) => ts(a) - ts(b) || String(a.id).localeCompare(String(b.id)));
    const data = matching.slice((page - 1) * limit, page * limit).map(listedTrace);
    return { data, meta: { page, limit, totalItems: matching.length, totalPages: Math.ceil(matching.length / limit) } };
  };

  const route = (url: URL): Routed => {
    const traceMatch = /^\/api\/public\/traces\/([^/]+)$/.exec(url.pathname);
    const hit = {
      kind:
        url.pathname === "/api/public/traces"
          ? ("list" as const)
          : traceMatch
            ? ("trace" as const)
            : url.pathname === "/api/public/observations"
              ? ("observations" as const)
              : ("other" as const),
      page: url.searchParams.has("page") ? Number(url.searchParams.get("page")) : null,
      traceId: traceMatch ? decodeURIComponent(traceMatch[1]!) : url.searchParams.get("traceId"),
    };
    const answer = () => {
      if (hit.kind === "list") return { status: 200, body: list(url.searchParams) };
      if (hit.kind === "trace") {
        const trace = byId.get(hit.traceId!);
        if (!trace)
          return { status: 404, body: { message: `Trace ${hit.traceId} not found within authorized project` } };
        return { status: 200, body: opts.observationsByIdOnly?.has(hit.traceId!) ? listedTrace(trace) : trace };
      }
      if (hit.kind === "observations") {
        const trace = byId.get(hit.traceId ?? "");
        const all = (trace?.observations as unknown[] | undefined) ?? [];
        const page = hit.page ?? 1;
        const limit = Number(url.searchParams.get("limit") ?? "50");
        return {
          status: 200,
          body: {
            data: all.slice((page - 1) * limit, page * limit),
            meta: { page, limit, totalItems: all.length, totalPages: Math.ceil(all.length / limit) },
          },
        };
      }
      return { status: 404, body: { message: "not found" } };
    };
    return { hit, answer };
  };

  return fakePlatform({
    authorized: (req) => req.headers.authorization === expected,
    denied: { message: "Invalid credentials. Confirm that you've configured the correct host." },
    route,
    ...(opts.intercept ? { intercept: opts.intercept } : {}),
  });
}

/** The sessions of one format stored, by external id, each with its events as the app reads them. */
export async function storedSessions(prisma: Db, format: string) {
  const rows = await prisma.session.findMany({
    where: { format },
    orderBy: { externalId: "asc" },
    select: {
      id: true,
      externalId: true,
      errorCount: true,
      eventCount: true,
      inputTokens: true,
      outputTokens: true,
      costUsd: true,
      metadata: true,
    },
  });
  return Promise.all(rows.map(async ({ id, ...row }) => ({ ...row, events: await sessionEvents(prisma, id) })));
}

/**
 * A queued pull run by a worker that dies after `k` traces (its `afterTrace` throws), then taken over by another
 * that goes on from the cursor: the pull as the first left it, and as the second finished it.
 */
export async function crashAndResume(
  prisma: Db,
  pull: { connectorId: string; filter: Record<string, string | string[]> },
  k: number,
  deps: PullDeps,
) {
  const crash = new Error(`crash after trace ${k}`);
  const row = await prisma.connectorPull.create({
    data: { connectorId: pull.connectorId, filter: { ...pull.filter }, progress: {} },
  });
  const crashing: PullDeps = {
    ...deps,
    afterTrace: ({ traces }) => {
      if (traces === k) throw crash;
    },
  };
  const thrown = await runPull(prisma, row.id, { owner: "w1", leaseMs: 30_000, maxAttempts: 3 }, crashing).catch(
    (error: unknown) => error,
  );
  if (thrown !== crash) throw new Error(`the first worker did not stop after trace ${k}`);
  const stopped = (await findPull(prisma, row.id))!;
  await runPull(prisma, row.id, { owner: "w2", leaseMs: 30_000, maxAttempts: 3 }, deps);
  return { stopped, done: (await findPull(prisma, row.id))! };
}

/** A session's steps as rows a test compares: seq, kind, name, call id, parent, status, error. */
export function stepRows(events: readonly SessionEvent[]) {
  return events.map((e) => [
    e.seq,
    e.kind,
    e.name,
    (e.input as { callId?: string } | null)?.callId ?? null,
    e.parentSeq,
    e.status,
    e.error,
  ]);
}

/**
 * Secrets in environment variables the server may read as keys: each set (a name given `undefined` is listed but left
 * unset), and BRANCHPOINT_MODEL_KEY_VARS naming them all. The function returned removes them again.
 */
export function withKeyVariables(secrets: Record<string, string | undefined>): () => void {
  for (const [name, value] of Object.entries(secrets)) if (value !== undefined) process.env[name] = value;
  process.env.BRANCHPOINT_MODEL_KEY_VARS = Object.keys(secrets).join(",");
  resetEnvCache();
  return () => {
    for (const name of Object.keys(secrets)) delete process.env[name];
    delete process.env.BRANCHPOINT_MODEL_KEY_VARS;
    resetEnvCache();
  };
}
