/**
 * Braintrust fixtures, built by hand from Braintrust's published shapes, not recorded from a server:
 * - the project-logs event as its REST API documents it (`POST /v1/project_logs/{project_id}/fetch` answers
 *   `{ events: [...], cursor }`; the OpenAPI schema `ProjectLogsEvent`): id, _xact_id, created, org_id,
 *   project_id, log_id "g", span_id, root_span_id, span_parents, span_attributes { name, type }, input, output,
 *   expected, error, scores, metadata, metrics { start, end (Unix seconds), prompt_tokens, completion_tokens,
 *   tokens }, tags, context;
 * - an experiment's events (`ExperimentEvent`: experiment_id in place of project_id/log_id, the root span of type
 *   `eval` with `expected` and `scores`, score spans beside the task);
 * - the SQL query endpoint (`POST /btql` with `{ query, fmt: "json" }`, answered by `{ data: [...] }` and, when the
 *   rows overflow, a `cursor` to send back) over `project_logs('<project id>')`;
 * - the span types of the SDKs' `span_attributes.type` (llm, tool, task, function, eval, score) and the OpenAI
 *   wrapper's llm spans: `input` the request's messages, `output` the response's choices, `metadata.model`,
 *   `metrics.estimated_cost` where Braintrust computed one.
 */
export const BRAINTRUST_PROJECT = "6f1c2a4e-8d3b-4c55-9e0a-2b7d1e3f4a50";
const BASE = Date.parse("2026-11-20T09:00:00Z");

/** The root span id of trace `n` (also the trace's external id). */
export const braintrustRootId = (n: number) => `root-${n.toString().padStart(4, "0")}`;

export type BraintrustOptions = {
  offsetMs?: number;
  /** The lookup tool fails (its `error`). */
  failTool?: boolean;
  /** The root span's own error (the traced agent raised), if any. */
  rootError?: string;
  tags?: string[];
  /** Experiment rows (an eval root with expected and scores) rather than project logs. */
  experiment?: boolean;
};

export type BraintrustRow = Record<string, unknown> & { metrics: Record<string, unknown> };

export function braintrustTrace(n: number, opts: BraintrustOptions = {}): BraintrustRow[] {
  const base = BASE + (opts.offsetMs ?? n * 60_000);
  const root = braintrustRootId(n);
  const sid = (k: number) => (k === 1 ? root : `span-${n}-${k}`);
  const callId = `call_${n}_1`;
  const row = (
    k: number,
    parent: number | null,
    name: string,
    type: string,
    from: number,
    to: number,
    fields: Record<string, unknown>,
  ): BraintrustRow => ({
    id: `row-${n}-${k}`,
    _xact_id: `10003${n}${k}`,
    created: new Date(base + from).toISOString(),
    org_id: "org-1",
    ...(opts.experiment ? { experiment_id: "exp-1" } : { project_id: BRAINTRUST_PROJECT, log_id: "g" }),
    span_id: sid(k),
    root_span_id: root,
    span_parents: parent === null ? null : [sid(parent)],
    span_attributes: { name, type },
    metadata: {},
    tags: null,
    ...fields,
    metrics: { start: (base + from) / 1000, end: (base + to) / 1000, ...((fields.metrics as object) ?? {}) },
  });
  const tool = row(3, 1, "lookup_order", "tool", 900, 1100, {
    input: { order_id: "4821" },
    output: { status: "shipped" },
    metadata: { tool_call_id: callId },
  });
  if (opts.failTool) {
    tool.output = null;
    tool.error = "TimeoutError: order service timed out";
  }
  const messages = [
    { role: "system", content: "You help with orders." },
    { role: "user", content: "Where is order 4821?" },
  ];
  const request = { id: callId, type: "function", function: { name: "lookup_order", arguments: '{"order_id":"4821"}' } };
  return [
    row(1, null, "support-agent", opts.experiment ? "eval" : "task", 0, 2000, {
      input: { question: "Where is order 4821?" },
      output: "Order 4821 has shipped.",
      ...(opts.experiment ? { expected: "Order 4821 shipped on Monday.", scores: { Factuality: 0.6 } } : {}),
      metadata: { user_id: `user-${n}`, environment: "prod" },
      tags: opts.tags ?? ["prod"],
      ...(opts.rootError ? { error: opts.rootError } : {}),
    }),
    row(2, 1, "Chat Completion", "llm", 100, 800, {
      input: messages,
      output: [{ index: 0, message: { role: "assistant", content: null, tool_calls: [request] }, finish_reason: "tool_calls" }],
      metadata: { model: "gpt-4o", temperature: 0, provider: "openai" },
      metrics: { prompt_tokens: 90, completion_tokens: 12, tokens: 102, estimated_cost: 0.000345 },
    }),
    tool,
    row(4, 1, "Chat Completion", "llm", 1300, 1900, {
      input: {
        messages: [
          ...messages,
          { role: "assistant", content: null, tool_calls: [request] },
          { role: "tool", tool_call_id: callId, content: '{"status":"shipped"}' },
        ],
      },
      output: { choices: [{ index: 0, message: { role: "assistant", content: "Order 4821 has shipped." } }] },
      metadata: { model: "gpt-4o" },
      metrics: { prompt_tokens: 120, completion_tokens: 8, tokens: 128 },
    }),
    row(5, 1, "moderate", "automation", 1950, 1990, { input: "Order 4821 has shipped.", output: { flagged: false } }),
    row(6, 1, "Factuality", "score", 1995, 2000, { scores: { Factuality: 0.6 }, output: { score: 0.6 } }),
  ];
}
