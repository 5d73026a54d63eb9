/**
 * Langfuse's public API as a pull reads it: the trace list (`GET /api/public/traces`, pages from 1), one trace
 * with its observations (`GET /api/public/traces/{id}`), and the observations of a trace
 * (`GET /api/public/observations?traceId=`) when a trace answers with their ids only. Basic auth (public key,
 * secret key). Retries, rate limits and the outbound guard: ./http.ts.
 */
import { isObject } from "@/lib/ingest/otlp/attributes";
import { ConnectorApiError, PlatformHttp, readJsonBody } from "./http";
import type { ConnectorClient, HttpOptions, PagePosition, PullFilter, TraceAnswer, TracePage } from "./http";

/** The filter fields Langfuse's trace list takes as query parameters, as they are (tags are repeated, apart). */
export const LANGFUSE_LIST_PARAMS = [
  "fromTimestamp",
  "toTimestamp",
  "userId",
  "sessionId",
  "name",
  "environment",
  "version",
  "release",
] as const;

export type LangfuseClientOptions = HttpOptions & { publicKey: string; secretKey: string };

export class LangfuseClient implements ConnectorClient {
  private readonly http: PlatformHttp;
  constructor(opts: LangfuseClientOptions) {
    const auth = `Basic ${Buffer.from(`${opts.publicKey}:${opts.secretKey}`).toString("base64")}`;
    this.http = new PlatformHttp(
      "Langfuse",
      opts,
      { authorization: auth },
      "check the connector's public key and the secret key in its environment variable",
    );
  }

  /**
   * One page of the trace list, oldest first, filtered by the list's own parameters. Its list has none for failed
   * runs: a pull with `error` reads each listed trace and keeps it by its observations' level (./run-pull.ts).
   */
  async listTraces(filter: PullFilter, at: PagePosition, limit: number): Promise<TracePage> {
    const { page } = at;
    const query = new URLSearchParams({ page: String(page), limit: String(limit), orderBy: "timestamp.asc" });
    for (const key of LANGFUSE_LIST_PARAMS) {
      const v = filter[key];
      if (v !== undefined) query.set(key, v);
    }
    for (const tag of filter.tags ?? []) query.append("tags", tag);
    const answer = await this.http.request("GET", `/api/public/traces?${query.toString()}`);
    if (answer.status !== 200) throw this.http.failure(answer, "the trace list");
    const body = readJsonBody(answer.text);
    if (!body.ok) throw new ConnectorApiError(`Page ${page} of the trace list cannot be read: ${body.message}.`, 200);
    if (!isObject(body.value) || !Array.isArray(body.value.data))
      throw new ConnectorApiError(`Page ${page} of the trace list is not { data: [...], meta }.`, 200);
    const meta = isObject(body.value.meta) ? body.value.meta : {};
    const int = (v: unknown) => (typeof v === "number" && Number.isSafeInteger(v) && v >= 0 ? v : null);
    const data = body.value.data as unknown[];
    const totalPages = int(meta.totalPages);
    const last = data.length === 0 || (totalPages !== null ? page >= totalPages : data.length < limit);
    return {
      ids: data.map((t) => (isObject(t) && typeof t.id === "string" && t.id !== "" ? t.id : null)),
      next: last ? null : { page: page + 1, token: null },
      totalPages,
      totalItems: int(meta.totalItems),
    };
  }

  /** One trace with its observations (fetched from the observations API when the trace gives their ids only). */
  async getTrace(id: string): Promise<TraceAnswer> {
    const answer = await this.http.requestTrace("GET", `/api/public/traces/${encodeURIComponent(id)}`);
    if (typeof answer === "string") return { ok: false, message: answer };
    if (answer.status === 404)
      return { ok: false, message: "Langfuse has no such trace (deleted since it was listed?)" };
    if (answer.status !== 200) throw this.http.failure(answer, `trace ${id}`);
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
      const answer = await this.http.request("GET", `/api/public/observations?${query.toString()}`);
      if (answer.status !== 200) throw this.http.failure(answer, `the observations of trace ${traceId}`);
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
}
