import { MAX_KEY_CHARS } from "@/lib/hostile/storable";
import { isObject } from "./otlp/attributes";
import { formatPath, IssueList, type Path } from "./otlp/path";
import type { ImportIssue } from "./types";

// The OpenAI Agents SDK export's items, validated and normalized (the mapping is ./openai-agents.ts).

export type AgentsTrace = {
  object: "trace";
  id: string;
  workflowName: string | null;
  groupId: string | null;
  metadata: Record<string, unknown>;
  path: string;
};

export type AgentsSpan = {
  object: "trace.span";
  id: string;
  traceId: string;
  parentId: string | null;
  startedAt: string;
  endedAt: string | null;
  spanData: Record<string, unknown> & { type: string };
  error: { message: string; data?: unknown } | null;
  path: string;
};

export type AgentsItem = AgentsTrace | AgentsSpan;

export type ParseAgentsResult = { ok: true; items: AgentsItem[] } | { ok: false; issues: ImportIssue[] };

/** Validates and normalizes an export body (parsed JSON). */
export function parseOpenAiAgentsExport(value: unknown): ParseAgentsResult {
  const issues = new IssueList();
  if (!isObject(value) || !Array.isArray(value.data)) {
    return {
      ok: false,
      issues: [{ path: "", message: 'expected the Agents SDK trace export `{ "data": [trace, span, …] }`' }],
    };
  }
  const items: AgentsItem[] = [];
  value.data.forEach((raw: unknown, index) => {
    const at: Path = ["data", index];
    if (!isObject(raw)) return issues.add(at, "must be an object (a trace or a trace.span)");
    const str = (key: string, required: boolean): string | null => {
      const v = raw[key];
      if (typeof v === "string" && v !== "") {
        if (v.length <= MAX_KEY_CHARS) return v;
        issues.add([...at, key], `is ${v.length} characters long; the limit is ${MAX_KEY_CHARS}`);
        return null;
      }
      if (v === undefined || v === null) {
        if (required) issues.add([...at, key], "is required");
        return null;
      }
      issues.add([...at, key], "must be a non-empty string");
      return null;
    };
    if (raw.object === "trace") {
      const id = str("id", true);
      const workflowName = str("workflow_name", false);
      const groupId = str("group_id", false);
      if (raw.metadata !== undefined && raw.metadata !== null && !isObject(raw.metadata))
        issues.add([...at, "metadata"], "must be an object");
      if (id)
        items.push({
          object: "trace",
          id,
          workflowName,
          groupId,
          metadata: isObject(raw.metadata) ? raw.metadata : {},
          path: formatPath(at),
        });
      return;
    }
    if (raw.object !== "trace.span") return; // other objects: not ours, ignored
    const id = str("id", true);
    const traceId = str("trace_id", true);
    const parentId = str("parent_id", false);
    const startedAt = str("started_at", true);
    const endedAt = str("ended_at", false);
    for (const [key, v] of [
      ["started_at", startedAt],
      ["ended_at", endedAt],
    ] as const) {
      if (v !== null && Number.isNaN(Date.parse(v))) issues.add([...at, key], "must be an ISO 8601 date-time");
    }
    const spanData = raw.span_data;
    if (!isObject(spanData)) issues.add([...at, "span_data"], "must be an object");
    else if (typeof spanData.type !== "string" || spanData.type === "")
      issues.add([...at, "span_data", "type"], "must be a non-empty string");
    let error: AgentsSpan["error"] = null;
    if (raw.error !== undefined && raw.error !== null) {
      if (!isObject(raw.error) || typeof raw.error.message !== "string")
        issues.add([...at, "error"], "must be null or { message, data? }");
      else error = { message: raw.error.message, ...(raw.error.data !== undefined ? { data: raw.error.data } : {}) };
    }
    if (id && traceId && startedAt && isObject(spanData) && typeof spanData.type === "string" && spanData.type !== "") {
      items.push({
        object: "trace.span",
        id,
        traceId,
        parentId,
        startedAt,
        endedAt,
        spanData: spanData as AgentsSpan["spanData"],
        error,
        path: formatPath(at),
      });
    }
  });
  return issues.length > 0 ? { ok: false, issues: issues.list() } : { ok: true, items };
}
