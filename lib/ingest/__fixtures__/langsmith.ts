/**
 * LangSmith fixtures, built by hand from LangSmith's published shapes, not recorded from a server:
 * - the langsmith SDK's run schema (github.com/langchain-ai/langsmith-sdk, js/src/schemas.ts: `Run` with id, name,
 *   run_type, start_time, end_time, extra, error, inputs, outputs, parent_run_id, trace_id, dotted_order,
 *   session_id, status, tags, prompt_tokens, completion_tokens, total_tokens, `child_runs` when read with them);
 * - the SDK's runs query (js/src/client.ts `_listRuns`, `_getCursorPaginatedList`): `POST /runs/query` with
 *   `{ session, trace, is_root, error, filter, start_time, select, cursor, limit }`, answered by
 *   `{ runs: Run[], cursors: { next, prev } }`; the API reference's RunQueryParams / RunQueryResponse
 *   (reference.langchain.com: end_time, order "asc" | "desc", prompt_cost, completion_cost, total_cost);
 * - LangChain's serialized messages as chat-model runs record them: `inputs.messages` a batch `[[…]]` of
 *   `{ lc: 1, type: "constructor", id: ["langchain", "schema", "messages", "HumanMessage"], kwargs }`,
 *   `outputs.generations` `[[{ text, message: AIMessage with tool_calls [{ id, name, args }] }]]` and
 *   `outputs.llm_output.token_usage`; a tool run's `inputs.input` (its argument as text) and
 *   `outputs.output` a ToolMessage with its `tool_call_id`;
 * - the OpenAI wrapper's llm runs (`wrapOpenAI`): `inputs` the Chat Completions request, `outputs` the response.
 * Times are written without a zone, as the API answers them (UTC).
 */

export const BASE_TIME = Date.parse("2026-11-20T10:00:00.000Z");
/** LangSmith's time text: ISO without the zone, microseconds. */
export const lsTime = (ms: number) => new Date(BASE_TIME + ms).toISOString().replace("Z", "000");
export const PROJECT_ID = "0b9a6f7e-5c7d-4d7e-9a53-2f6c4c7b1a10";

const lc = (kind: string, kwargs: Record<string, unknown>) => ({
  lc: 1,
  type: "constructor",
  id: ["langchain", "schema", "messages", kind],
  kwargs,
});

export type RunsOptions = {
  offsetMs?: number;
  order?: string;
  /** Whether the refund tool run fails (its error) or succeeds. */
  fails?: boolean;
  tags?: string[];
  /** The root run's own error (the agent raised), if any. */
  rootError?: string;
};

/**
 * One support-agent trace as the runs API answers `{ trace }`: a root chain (LangGraph-style), a ChatOpenAI llm
 * run asking for lookup_order, the tool run answering with a ToolMessage, an OpenAI-wrapper llm run asking for
 * refund_payment, the refund tool run (failing with an error, or not), a parser run, and the root's output.
 */
export function supportRuns(traceId: string, opts: RunsOptions = {}): Record<string, unknown>[] {
  const o = opts.offsetMs ?? 0;
  const t = (ms: number) => lsTime(o + ms);
  const order = opts.order ?? "4821";
  const fails = opts.fails ?? true;
  const id = (n: number) => `${traceId}-r${n}`;
  const base = (n: number, parent: number | null, runType: string, name: string, start: number, end: number) => ({
    id: id(n),
    name,
    run_type: runType,
    start_time: t(start),
    end_time: t(end),
    trace_id: traceId,
    parent_run_id: parent === null ? null : id(parent),
    dotted_order: `${t(0)}${traceId}${n === 0 ? "" : `.${t(start)}${id(n)}`}`,
    session_id: PROJECT_ID,
    status: "success",
    error: null,
    tags: opts.tags ?? ["prod"],
    extra: { metadata: { ls_run_depth: parent === null ? 0 : 1 } },
  });
  const lookupCall = { id: `call_${traceId}_1`, name: "lookup_order", args: { order_id: order }, type: "tool_call" };
  const system = lc("SystemMessage", { content: "You are a support agent. Use the tools." });
  const human = lc("HumanMessage", { content: `Refund order ${order}, it never arrived.` });
  const ai1 = lc("AIMessage", {
    content: "",
    tool_calls: [lookupCall],
    usage_metadata: { input_tokens: 99, output_tokens: 9, total_tokens: 108 },
  });
  const toolMessage = lc("ToolMessage", {
    content: JSON.stringify({ order_id: order, status: "lost", amount: 129 }),
    tool_call_id: lookupCall.id,
    name: "lookup_order",
    status: "success",
  });
  const refundCall = {
    id: `call_${traceId}_2`,
    type: "function",
    function: { name: "refund_payment", arguments: JSON.stringify({ order_id: order, amount: 129 }) },
  };
  const answer = fails ? "The refund could not be issued; I have escalated it." : `Order ${order} is refunded.`;
  return [
    {
      ...base(0, null, "chain", "support-agent", 0, 4000),
      inputs: { messages: [{ role: "user", content: `Refund order ${order}, it never arrived.` }] },
      outputs: { output: answer },
      ...(opts.rootError ? { error: opts.rootError, status: "error" } : {}),
      extra: { metadata: { title: `Refund ${order}`, langgraph_step: 1, revision_id: "v7" } },
      app_path: `/o/org/projects/p/${PROJECT_ID}/r/${traceId}`,
      feedback_stats: { correctness: { n: 1, avg: 0 } },
    },
    {
      ...base(1, 0, "llm", "ChatOpenAI", 100, 900),
      inputs: { messages: [[system, human]] },
      outputs: {
        generations: [[{ text: "", type: "ChatGeneration", message: ai1, generation_info: { finish_reason: "tool_calls" } }]],
        llm_output: { token_usage: { prompt_tokens: 99, completion_tokens: 9, total_tokens: 108 }, model_name: "gpt-4o" },
      },
      extra: { invocation_params: { model: "gpt-4o", temperature: 0 }, metadata: { ls_provider: "openai" } },
      prompt_tokens: 99,
      completion_tokens: 9,
      total_tokens: 108,
      total_cost: "0.0003375",
    },
    {
      ...base(2, 0, "tool", "lookup_order", 1000, 1200),
      inputs: { input: JSON.stringify({ order_id: order }) },
      outputs: { output: toolMessage },
    },
    {
      ...base(3, 0, "llm", "ChatOpenAI", 1300, 2000),
      inputs: {
        model: "gpt-4o-mini",
        temperature: 0.2,
        messages: [
          { role: "system", content: "You are a support agent. Use the tools." },
          { role: "user", content: `Refund order ${order}, it never arrived.` },
          { role: "assistant", content: null, tool_calls: [{ ...lookupCall, type: "function", function: { name: "lookup_order", arguments: JSON.stringify(lookupCall.args) } }] },
          { role: "tool", tool_call_id: lookupCall.id, content: JSON.stringify({ order_id: order, status: "lost", amount: 129 }) },
        ],
      },
      outputs: {
        id: "chatcmpl-1",
        model: "gpt-4o-mini",
        choices: [{ index: 0, finish_reason: "tool_calls", message: { role: "assistant", content: null, tool_calls: [refundCall] } }],
        usage: { prompt_tokens: 140, completion_tokens: 20, total_tokens: 160 },
      },
      prompt_cost: 0.000021,
      completion_cost: 0.000012,
    },
    {
      ...base(4, 0, "tool", "refund_payment", 2100, 3000),
      inputs: { order_id: order, amount: 129, tool_call_id: refundCall.id },
      ...(fails
        ? { outputs: null, error: "TimeoutError('payments gateway timed out after 30s')", status: "error" }
        : { outputs: { output: { refunded: true } } }),
    },
    {
      ...base(5, 0, "parser", "StrOutputParser", 3100, 3200),
      inputs: { input: answer },
      outputs: { output: answer },
    },
  ];
}

/** n traces of the support agent, one minute apart: the refund fails in every other one, the agent raises in every third. */
export function supportRunTraces(n: number, prefix = "ls-trace"): Record<string, unknown>[][] {
  return Array.from({ length: n }, (_, k) =>
    supportRuns(`${prefix}-00${k}`, {
      offsetMs: k * 60_000,
      order: String(4821 + k),
      fails: k % 2 === 0,
      ...(k % 3 === 0 ? { rootError: "GraphRecursionError('Recursion limit of 25 reached')" } : {}),
    }),
  );
}
