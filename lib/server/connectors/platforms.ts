/**
 * The platforms a connector can point at, each with its client, the filter fields its list reads, and the mapper
 * that turns one of its traces into a session (the same mapper its export files import with).
 */
import type { ConnectorRow } from "@/lib/db/connectors";
import { isObject } from "@/lib/ingest/otlp/attributes";
import { mapLangfuseTrace } from "@/lib/ingest/langfuse";
import { mapLangSmithTrace } from "@/lib/ingest/langsmith";
import { mapPhoenixTrace } from "@/lib/ingest/phoenix";
import { mapBraintrustTrace } from "@/lib/ingest/braintrust";
import type { ImportedSession, ImportIssue } from "@/lib/ingest/types";
import type { ConnectorClient, HttpOptions, PullFilter } from "./http";
import { LANGFUSE_LIST_PARAMS, LangfuseClient } from "./langfuse-client";
import { LangSmithClient } from "./langsmith-client";
import { PhoenixClient } from "./phoenix-client";
import { BraintrustClient, conditionProblem } from "./braintrust-client";

export const CONNECTOR_KINDS = ["langfuse", "langsmith", "phoenix", "braintrust"] as const;
export type ConnectorKind = (typeof CONNECTOR_KINDS)[number];

export type Platform = {
  label: string;
  /** The filter fields its trace list reads; a pull's filter may hold no other. */
  filters: readonly (keyof PullFilter)[];
  /** What is wrong with a filter's values for this platform (beyond their shapes), path by path. */
  filterIssues?(filter: PullFilter): ImportIssue[];
  /**
   * Whether its list cannot filter on failure (Langfuse's trace list has no such parameter): a pull with `error`
   * reads each listed trace and keeps it when its session failed (or did not), as asked.
   */
  errorAfterRead?: true;
  /** The scores of a trace as read (name and value each), for a pull filtered by a score its list cannot filter by. */
  scoresOf?(trace: unknown): { name: unknown; value: unknown }[];
  /** Whether a pull may go on with the secret's variable unset (a self-hosted platform without auth). */
  secretOptional?: boolean;
  client(
    connector: ConnectorRow,
    secret: string,
    opts: Omit<HttpOptions, "baseUrl">,
    filter: PullFilter,
  ): ConnectorClient;
  map(trace: unknown): { ok: true; session: ImportedSession } | { ok: false; issues: ImportIssue[] };
};

export const PLATFORMS: Record<ConnectorKind, Platform> = {
  langfuse: {
    label: "Langfuse",
    // Its list's own parameters, then those a pull applies itself (error, score) or reads by id (traceIds).
    filters: [...LANGFUSE_LIST_PARAMS, "tags", "error", "score", "traceIds"],
    errorAfterRead: true,
    // GET /api/public/traces/{id} answers the trace with its scores (TraceWithFullDetails.scores: name, value, and
    // stringValue for a categorical or boolean one); its list has no score filter.
    scoresOf: (trace) =>
      isObject(trace) && Array.isArray(trace.scores)
        ? trace.scores.filter(isObject).map((s) => ({
            name: s.name,
            value: s.dataType === "CATEGORICAL" ? s.stringValue : s.dataType === "BOOLEAN" ? s.value === 1 : s.value,
          }))
        : [],
    client: (c, secret, opts) =>
      new LangfuseClient({ ...opts, baseUrl: c.baseUrl, publicKey: c.publicKey ?? "", secretKey: secret }),
    map: (trace) => mapLangfuseTrace(trace),
  },
  langsmith: {
    label: "LangSmith",
    filters: ["fromTimestamp", "toTimestamp", "tags", "name", "error", "query", "traceIds"],
    client: (c, secret, opts) =>
      new LangSmithClient({ ...opts, baseUrl: c.baseUrl, apiKey: secret, project: c.project ?? "" }),
    map: (trace) =>
      Array.isArray(trace)
        ? mapLangSmithTrace(trace.map((value: unknown, index) => ({ value, path: ["runs", index] })))
        : { ok: false, issues: [{ path: "", message: "the trace's runs are not a list" }] },
  },
  phoenix: {
    label: "Phoenix",
    filters: ["fromTimestamp", "toTimestamp", "name", "error", "traceIds"],
    secretOptional: true,
    client: (c, secret, opts) =>
      new PhoenixClient({ ...opts, baseUrl: c.baseUrl, apiKey: secret, project: c.project ?? "" }),
    map: (trace) =>
      Array.isArray(trace)
        ? mapPhoenixTrace(trace.map((value: unknown, index) => ({ value, path: ["data", index] })))
        : { ok: false, issues: [{ path: "", message: "the trace's spans are not a list" }] },
  },
  braintrust: {
    label: "Braintrust",
    filters: ["fromTimestamp", "toTimestamp", "tags", "name", "error", "query", "experiment", "traceIds"],
    client: (c, secret, opts, filter) =>
      new BraintrustClient({
        ...opts,
        baseUrl: c.baseUrl,
        apiKey: secret,
        project: c.project ?? "",
        ...(filter.experiment !== undefined ? { experiment: filter.experiment } : {}),
      }),
    filterIssues: (filter) => {
      const problem = filter.query === undefined ? null : conditionProblem(filter.query);
      return problem ? [{ path: "filter.query", message: `not one SQL condition: ${problem}` }] : [];
    },
    map: (trace) =>
      Array.isArray(trace)
        ? mapBraintrustTrace(trace.map((value: unknown, index) => ({ value, path: ["data", index] })))
        : { ok: false, issues: [{ path: "", message: "the trace's spans are not a list" }] },
  },
};

export function platformOf(kind: string): Platform | null {
  return (CONNECTOR_KINDS as readonly string[]).includes(kind) ? PLATFORMS[kind as ConnectorKind] : null;
}
