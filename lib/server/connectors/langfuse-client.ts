/**
 * Langfuse's public API as a pull reads it: the trace list (`GET /api/public/traces`, pages from 1), one trace
 * with its observations (`GET /api/public/traces/{id}`), and the observations of a trace
 * (`GET /api/public/observations?traceId=`) when a trace answers with their ids only. Basic auth (public key,
 * secret key). Every call goes through the executors' outbound guard (the host on the allow-list, checked again
 * after DNS and on each redirect).
 *
 * Rate limits: a 429 waits what its `Retry-After` says (seconds or an HTTP date, at most `maxWaitMs`), else
 * backs off exponentially; a 5xx, a 408, a timeout or a dropped connection backs off and tries again, up to
 * `maxRetries` times. A body that is not JSON Branchpoint can hold (nested too deep, a number too large) is a
 * refusal of that answer, never a crash.
 */
import { depthMessage, hugeNumberAt, jsonDepthExcess } from "@/lib/hostile/json";
import { isObject } from "@/lib/ingest/otlp/attributes";
import { OutboundRefused, safeRequest, type OutboundResponse, type Resolver } from "@/lib/executors/outbound";

export type PullFilter = {
  fromTimestamp?: string;
  toTimestamp?: string;
  tags?: string[];
  userId?: string;
  sessionId?: string;
  name?: string;
};

export type LangfuseClientOptions = {
  baseUrl: string;
  publicKey: string;
  secretKey: string;
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
};

/** The API could not be read: the pull stops, and says this. */
export class LangfuseApiError extends Error {
  override name = "LangfuseApiError";
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

const sleep = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason as Error);
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal!.reason as Error);
    };
    signal?.addEventListener("abort", onAbort, { once: true });
  });

export type TracePage = { data: unknown[]; totalPages: number | null; totalItems: number | null };
export type TraceAnswer = { ok: true; trace: unknown } | { ok: false; message: string };

export class LangfuseClient {
  private readonly root: string;
  private readonly auth: string;
  constructor(private readonly opts: LangfuseClientOptions) {
    this.root = opts.baseUrl.replace(/\/+$/, "");
    this.auth = `Basic ${Buffer.from(`${opts.publicKey}:${opts.secretKey}`).toString("base64")}`;
  }

  /** One page of the trace list, oldest first, filtered. */
  async listTraces(filter: PullFilter, page: number, limit: number): Promise<TracePage> {
    const query = new URLSearchParams({ page: String(page), limit: String(limit), orderBy: "timestamp.asc" });
    for (const key of ["fromTimestamp", "toTimestamp", "userId", "sessionId", "name"] as const) {
      const v = filter[key];
      if (v !== undefined) query.set(key, v);
    }
    for (const tag of filter.tags ?? []) query.append("tags", tag);
    const path = `/api/public/traces?${query.toString()}`;
    const answer = await this.get(path);
    if (answer.status !== 200) throw this.failure(answer, "the trace list");
    const body = readJsonBody(answer.text);
    if (!body.ok) throw new LangfuseApiError(`Page ${page} of the trace list cannot be read: ${body.message}.`, 200);
    if (!isObject(body.value) || !Array.isArray(body.value.data))
      throw new LangfuseApiError(`Page ${page} of the trace list is not { data: [...], meta }.`, 200);
    const meta = isObject(body.value.meta) ? body.value.meta : {};
    const int = (v: unknown) => (typeof v === "number" && Number.isSafeInteger(v) && v >= 0 ? v : null);
    return { data: body.value.data as unknown[], totalPages: int(meta.totalPages), totalItems: int(meta.totalItems) };
  }

  /** One trace with its observations (fetched from the observations API when the trace gives their ids only). */
  async getTrace(id: string): Promise<TraceAnswer> {
    let answer: OutboundResponse;
    try {
      answer = await this.get(`/api/public/traces/${encodeURIComponent(id)}`);
    } catch (error) {
      if (error instanceof LangfuseApiError && error.tooLarge) return { ok: false, message: error.message };
      throw error;
    }
    if (answer.status === 404)
      return { ok: false, message: "Langfuse has no such trace (deleted since it was listed?)" };
    if (answer.status !== 200) throw this.failure(answer, `trace ${id}`);
    const body = readJsonBody(answer.text);
    if (!body.ok) return { ok: false, message: `the trace cannot be read: ${body.message}` };
    const trace = body.value;
    if (isObject(trace) && Array.isArray(trace.observations) && trace.observations.some((o) => !isObject(o))) {
      const observations = await this.observationsOf(id);
      if (!observations.ok) return observations;
      return { ok: true, trace: { ...trace, observations: observations.value } };
    }
    return { ok: true, trace };
  }

  private async observationsOf(
    traceId: string,
  ): Promise<{ ok: true; value: unknown[] } | { ok: false; message: string }> {
    const all: unknown[] = [];
    for (let page = 1; page <= 1000; page++) {
      const query = new URLSearchParams({ traceId, page: String(page), limit: "100" });
      const answer = await this.get(`/api/public/observations?${query.toString()}`);
      if (answer.status !== 200) throw this.failure(answer, `the observations of trace ${traceId}`);
      const body = readJsonBody(answer.text);
      if (!body.ok) return { ok: false, message: `its observations cannot be read: ${body.message}` };
      if (!isObject(body.value) || !Array.isArray(body.value.data))
        return { ok: false, message: "its observations are not { data: [...], meta }" };
      all.push(...(body.value.data as unknown[]));
      const meta = isObject(body.value.meta) ? body.value.meta : {};
      const totalPages = typeof meta.totalPages === "number" ? meta.totalPages : 1;
      if (body.value.data.length === 0 || page >= totalPages) break;
    }
    return { ok: true, value: all };
  }

  private failure(answer: OutboundResponse, what: string): LangfuseApiError {
    const hint =
      answer.status === 401 || answer.status === 403
        ? " (check the connector's public key and the secret key in its environment variable)"
        : "";
    return new LangfuseApiError(
      `Langfuse answered ${answer.status} for ${what}${hint}: ${answer.text.slice(0, 200)}`,
      answer.status,
    );
  }

  /** A GET with the retries the rate limits and passing failures call for. */
  private async get(path: string): Promise<OutboundResponse> {
    const { maxRetries = 5, backoffMs = 1000, maxWaitMs = 60_000, timeoutMs = 30_000 } = this.opts;
    for (let attempt = 0; ; attempt++) {
      let reason: string;
      let waitMs = Math.min(maxWaitMs, backoffMs * 2 ** attempt);
      try {
        const signals = [AbortSignal.timeout(timeoutMs), ...(this.opts.signal ? [this.opts.signal] : [])];
        const answer = await safeRequest(
          new URL(`${this.root}${path}`),
          {
            method: "GET",
            headers: { authorization: this.auth, accept: "application/json" },
            signal: AbortSignal.any(signals),
          },
          this.opts.allowed,
          this.opts.resolve,
        );
        if (answer.status === 429) {
          const asked = retryAfterMs(answer.headers["retry-after"]);
          if (asked !== null) waitMs = Math.min(maxWaitMs, asked);
          reason = `429 (rate limited${asked !== null ? `, Retry-After ${Math.round(asked / 1000)} s` : ""})`;
        } else if (answer.status >= 500 || answer.status === 408) reason = `${answer.status}`;
        else return answer;
        if (attempt >= maxRetries)
          throw new LangfuseApiError(
            `Langfuse answered ${reason} to ${path.split("?")[0]} ${attempt + 1} times; the pull stops here and can be started again.`,
            answer.status,
          );
      } catch (error) {
        if (error instanceof LangfuseApiError) throw error;
        if (this.opts.signal?.aborted) throw error;
        if (error instanceof OutboundRefused) throw new LangfuseApiError(error.message, null);
        if (error instanceof Error && /the answer is over \d+ bytes/.test(error.message))
          throw new LangfuseApiError(`${error.message}: too large to import`, null, true);
        reason = error instanceof Error ? error.message : String(error);
        if (attempt >= maxRetries)
          throw new LangfuseApiError(
            `Langfuse could not be reached at ${path.split("?")[0]} after ${attempt + 1} tries: ${reason}`,
            null,
          );
      }
      await this.opts.onRetry?.({ path: path.split("?")[0]!, reason, waitMs });
      await sleep(waitMs, this.opts.signal);
    }
  }
}
