/**
 * What every connector's client shares: the interface a pull reads a platform through (a filtered, paged list of
 * traces and one trace by id), and its HTTP with the rate limits respected. Every call goes through the
 * executors' outbound guard (the host on the allow-list, checked again after DNS and on each redirect).
 *
 * Rate limits: each request waits its turn under the platform's documented rate (`pace`: ./pacing.ts); a 429 or a 503 waits what its `Retry-After` says (seconds or an HTTP date, at most `maxWaitMs`), else
 * backs off exponentially; a 5xx, a 408, a timeout or a dropped connection backs off and tries again, up to
 * `maxRetries` times. A body that is not JSON Branchpoint can hold (nested too deep, a number too large) is a
 * refusal of that answer, never a crash.
 */
import { setTimeout as sleep } from "node:timers/promises";
import { depthMessage, hugeNumberAt, jsonDepthExcess } from "@/lib/hostile/json";
import { OutboundRefused, safeRequest, type OutboundResponse, type Resolver } from "@/lib/executors/outbound";
import { isObject } from "@/lib/ingest/otlp/attributes";

/** A pull's filter, as stored (each platform reads the fields it supports; connectors.ts refuses the others). */
export type PullFilter = {
  fromTimestamp?: string;
  toTimestamp?: string;
  tags?: string[];
  userId?: string;
  sessionId?: string;
  name?: string;
  /** Only runs that failed (true) or did not (false). */
  error?: boolean;
  /** Langfuse: the trace's environment, version and release. */
  environment?: string;
  version?: string;
  release?: string;
  /** Exactly these traces, by the platform's trace id (no list is read). */
  traceIds?: string[];
  /** A filter in the platform's own query language, passed as it is. */
  query?: string;
  /** Braintrust: the rows of this experiment (its id) instead of the project's logs. */
  experiment?: string;
  /** Langfuse: traces with a score of this name whose value compares so (checked on each trace read). */
  score?: ScoreFilter;
};

/** A score a trace must have: its name, and its value compared with `value` by `op`. */
export type ScoreFilter = { name: string; op: "=" | "!=" | ">" | ">=" | "<" | "<="; value: number | string | boolean };

/** Whether one score's value meets the filter (numbers by order; a text or true/false only by = and !=). */
export function scoreMeets(filter: ScoreFilter, value: unknown): boolean {
  if (typeof filter.value === "number") {
    if (typeof value !== "number" || !Number.isFinite(value)) return false;
    const v = filter.value;
    return { "=": value === v, "!=": value !== v, ">": value > v, ">=": value >= v, "<": value < v, "<=": value <= v }[
      filter.op
    ];
  }
  if (filter.op !== "=" && filter.op !== "!=") return false;
  return (value === filter.value) === (filter.op === "=");
}

/** Where a page of the trace list starts: its number (from 1) and the platform's cursor for it, if it has one. */
export type PagePosition = { page: number; token: string | null };
/** One page of the trace list: the traces' ids (null: a listed trace without one), and where the next starts. */
export type TracePage = {
  ids: (string | null)[];
  next: PagePosition | null;
  totalPages: number | null;
  totalItems: number | null;
};
export type TraceAnswer = { ok: true; trace: unknown } | { ok: false; message: string };

/** A platform as a pull reads it. */
export interface ConnectorClient {
  listTraces(filter: PullFilter, at: PagePosition, limit: number): Promise<TracePage>;
  getTrace(id: string): Promise<TraceAnswer>;
}

export type HttpOptions = {
  baseUrl: string;
  allowed: ReadonlySet<string>;
  resolve?: Resolver;
  /** One request's time limit. */
  timeoutMs?: number;
  /** Tries after the first, for a 429, a 5xx or a dropped connection. */
  maxRetries?: number;
  /** The first backoff; each next one doubles. */
  backoffMs?: number;
  /** The longest wait a Retry-After may ask for. */
  maxWaitMs?: number;
  /** Told of each wait before a retry (the pull counts them and keeps its lease). */
  onRetry?: (info: { path: string; reason: string; waitMs: number }) => void | Promise<void>;
  /** Aborts waits and requests (the pull was cancelled or lost its lease). */
  signal?: AbortSignal;
  /** Waits its turn before each request, tries again included (the platform's documented rate: ./pacing.ts). */
  pace?: { take(signal?: AbortSignal): Promise<number> } | null;
};

/** A client of a platform that reads one project with one API key (LangSmith, Phoenix, Braintrust). */
export type ProjectClientOptions = HttpOptions & { apiKey: string; project: string };

/** The API could not be read: the pull stops, and says this. */
export class ConnectorApiError extends Error {
  override name = "ConnectorApiError";
  constructor(
    message: string,
    readonly status: number | null,
    /** The answer was larger than Branchpoint reads (a trace's: refused on its own, the pull goes on). */
    readonly tooLarge = false,
  ) {
    super(message);
  }
}

export type ReadJson = { ok: true; value: unknown } | { ok: false; message: string };

/** A body as JSON Branchpoint can hold, or why not. */
export function readJsonBody(text: string): ReadJson {
  const deep = jsonDepthExcess(text);
  if (deep) return { ok: false, message: depthMessage(deep) };
  let value: unknown;
  try {
    value = JSON.parse(text) as unknown;
  } catch {
    return { ok: false, message: "the answer is not JSON" };
  }
  const huge = hugeNumberAt(text, value);
  if (huge) return { ok: false, message: `at line ${huge.line}, column ${huge.column}: ${huge.message}` };
  return { ok: true, value };
}

/** Milliseconds a Retry-After header asks for (delta-seconds or an HTTP date), or null. */
export function retryAfterMs(header: string | string[] | undefined, now = Date.now()): number | null {
  const value = Array.isArray(header) ? header[0] : header;
  if (value === undefined || value.trim() === "") return null;
  if (/^\d+(\.\d+)?$/.test(value.trim())) return Math.round(Number(value.trim()) * 1000);
  const at = Date.parse(value);
  return Number.isFinite(at) ? Math.max(0, at - now) : null;
}

/** A platform's HTTP API: its name (for messages), its base URL and the headers that authenticate. */
export class PlatformHttp {
  private readonly root: string;
  constructor(
    private readonly platform: string,
    private readonly opts: HttpOptions,
    private readonly headers: Record<string, string>,
    /** What a 401 or 403 hints at. */
    private readonly authHint: string,
  ) {
    this.root = opts.baseUrl.replace(/\/+$/, "");
  }

  /** The error for an answer the pull cannot go on with. */
  failure(answer: OutboundResponse, what: string): ConnectorApiError {
    const hint = answer.status === 401 || answer.status === 403 ? ` (${this.authHint})` : "";
    return new ConnectorApiError(
      `${this.platform} answered ${answer.status} for ${what}${hint}: ${answer.text.slice(0, 200)}`,
      answer.status,
    );
  }

  /** A request with the retries the rate limits and passing failures call for. */
  async request(method: "GET" | "POST", path: string, body?: unknown): Promise<OutboundResponse> {
    const { maxRetries = 5, backoffMs = 1000, maxWaitMs = 60_000, timeoutMs = 30_000 } = this.opts;
    const where = path.split("?")[0]!;
    for (let attempt = 0; ; attempt++) {
      let reason: string;
      let waitMs = Math.min(maxWaitMs, backoffMs * 2 ** attempt);
      try {
        await this.opts.pace?.take(this.opts.signal);
        const signals = [AbortSignal.timeout(timeoutMs), ...(this.opts.signal ? [this.opts.signal] : [])];
        const answer = await safeRequest(
          new URL(`${this.root}${path}`),
          {
            method,
            headers: {
              ...this.headers,
              accept: "application/json",
              ...(body !== undefined ? { "content-type": "application/json" } : {}),
            },
            ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
            signal: AbortSignal.any(signals),
          },
          this.opts.allowed,
          this.opts.resolve,
        );
        if (answer.status === 429 || answer.status === 503) {
          const asked = retryAfterMs(answer.headers["retry-after"]);
          if (asked !== null) waitMs = Math.min(maxWaitMs, asked);
          const what = answer.status === 429 ? "rate limited" : "unavailable";
          reason = `${answer.status} (${what}${asked !== null ? `, Retry-After ${Math.round(asked / 1000)} s` : ""})`;
        } else if (answer.status >= 500 || answer.status === 408) reason = `${answer.status}`;
        else return answer;
        if (attempt >= maxRetries)
          throw new ConnectorApiError(
            `${this.platform} answered ${reason} to ${where} ${attempt + 1} times; the pull stops here and can be started again.`,
            answer.status,
          );
      } catch (error) {
        if (error instanceof ConnectorApiError) throw error;
        if (this.opts.signal?.aborted) throw error;
        if (error instanceof OutboundRefused) throw new ConnectorApiError(error.message, null);
        if (error instanceof Error && /the answer is over \d+ bytes/.test(error.message))
          throw new ConnectorApiError(`${error.message}: too large to import`, null, true);
        reason = error instanceof Error ? error.message : String(error);
        if (attempt >= maxRetries)
          throw new ConnectorApiError(
            `${this.platform} could not be reached at ${where} after ${attempt + 1} tries: ${reason}`,
            null,
          );
      }
      await this.opts.onRetry?.({ path: where, reason, waitMs });
      await sleep(waitMs, undefined, this.opts.signal ? { signal: this.opts.signal } : {});
    }
  }

  /**
   * A page answered as a JSON object with a list under `field` (`shape` says what was expected, for the refusal);
   * its body, the list and the answer's headers. An answer that is not one is refused in words; a status other than 200 ends the pull.
   */
  listAnswer(
    answer: OutboundResponse | string,
    what: string,
    field: string,
    shape: string,
  ):
    | { ok: true; body: Record<string, unknown>; items: unknown[]; headers: OutboundResponse["headers"] }
    | { ok: false; message: string } {
    if (typeof answer === "string") return { ok: false, message: answer };
    if (answer.status !== 200) throw this.failure(answer, what);
    const read = readJsonBody(answer.text);
    if (!read.ok) return { ok: false, message: `${what} cannot be read: ${read.message}` };
    const list = isObject(read.value) ? read.value[field] : undefined;
    if (!isObject(read.value) || !Array.isArray(list)) return { ok: false, message: `${what} is not ${shape}` };
    return { ok: true, body: read.value, items: list as unknown[], headers: answer.headers };
  }

  /** A request for one trace: too large an answer is that trace's refusal (its message), not the pull's end. */
  async requestTrace(method: "GET" | "POST", path: string, body?: unknown): Promise<OutboundResponse | string> {
    try {
      return await this.request(method, path, body);
    } catch (error) {
      if (error instanceof ConnectorApiError && error.tooLarge) return error.message;
      throw error;
    }
  }
}

/** One page of a trace's spans or runs as a platform answers it, with the cursor to the next page, if any. */
export type TracePart = { ok: true; items: unknown[]; next: string | null } | { ok: false; message: string };

/**
 * A page of a trace list paged by cursor: each listed item's trace id (`idOf`; null when it has none), and the next
 * page while there is a cursor and this page was not empty. A page refused is the pull's end.
 */
export function cursorTracePage(page: TracePart, at: PagePosition, idOf: (item: unknown) => unknown): TracePage {
  if (!page.ok) throw new ConnectorApiError(`${page.message}.`, 200);
  return {
    ids: page.items.map((item) => {
      const id = idOf(item);
      return typeof id === "string" && id !== "" ? id : null;
    }),
    next: page.next !== null && page.items.length > 0 ? { page: at.page + 1, token: page.next } : null,
    totalPages: null,
    totalItems: null,
  };
}

/**
 * Every span (or run) of one trace from a platform that pages them by cursor: page after page until it gives no
 * cursor or an empty page, at most `maxPages` of `pageSize`; a trace with none is refused (deleted since it was
 * listed).
 */
export async function readTracePages(
  read: (cursor: string | null) => Promise<TracePart>,
  o: { platform: string; items: "spans" | "runs"; maxPages: number; pageSize: number },
): Promise<TraceAnswer> {
  const items: unknown[] = [];
  let cursor: string | null = null;
  for (let page = 1; page <= o.maxPages; page++) {
    const answer = await read(cursor);
    if (!answer.ok) return answer;
    items.push(...answer.items);
    cursor = answer.next;
    if (cursor === null || answer.items.length === 0) break;
    if (page === o.maxPages)
      return {
        ok: false,
        message: `the trace has more than ${o.maxPages * o.pageSize} ${o.items}; too large to import`,
      };
  }
  if (items.length === 0)
    return { ok: false, message: `${o.platform} has no ${o.items} for this trace (deleted since it was listed?)` };
  return { ok: true, trace: items };
}
