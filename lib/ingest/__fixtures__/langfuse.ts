/**
 * Langfuse fixtures, built by hand from Langfuse's published API description, not recorded from a server:
 * - the public API's OpenAPI document (https://cloud.langfuse.com/generated/api/openapi.yml): `GET
 *   /api/public/traces` answers `{ data: TraceWithDetails[], meta: { page, limit, totalItems, totalPages } }`
 *   (a listed trace's `observations` and `scores` are ids only); `GET /api/public/traces/{traceId}` answers a
 *   TraceWithFullDetails (`observations: ObservationsView[]`, `scores`); `GET /api/public/observations`
 *   answers `{ data: ObservationsView[], meta }`;
 * - the JS SDK's reference of the same types (js.reference.langfuse.com: ObservationsView with `type`, `level`
 *   DEBUG | DEFAULT | WARNING | ERROR, `statusMessage`, `usageDetails`, `costDetails`, the deprecated `usage`,
 *   `calculatedTotalCost`, `promptTokens`…; ApiTraceListParams: page from 1, limit, fromTimestamp,
 *   toTimestamp, tags (all must match), userId, sessionId, name, orderBy `timestamp.asc`);
 * - the OpenAI integration's generations: `input` the Chat Completions messages, `output` the assistant
 *   message with `tool_calls` ({ id, type: "function", function: { name, arguments } }).
 * Observation types besides GENERATION/SPAN/EVENT (AGENT, TOOL…) are those of Langfuse's v3 SDKs.
 */

export const BASE_TIME = Date.parse("2026-11-20T10:00:00.000Z");
const at = (ms: number) => new Date(BASE_TIME + ms).toISOString();

export type TraceOptions = {
  /** Shifts every timestamp (ms). */
  offsetMs?: number;
  /** The order number the run is about. */
  order?: string;
  /** Whether the refund fails (an ERROR observation) or succeeds. */
  fails?: boolean;
};

/**
 * One support-agent run as GET /api/public/traces/{id} answers it: an AGENT observation holding three
 * generations, a TOOL observation without a call id (tied by name and arguments), an older-style SPAN for the
 * second tool carrying the call id in its metadata, and an EVENT.
 */
export function supportTrace(id: string, opts: TraceOptions = {}): Record<string, unknown> {
  const o = opts.offsetMs ?? 0;
  const t = (ms: number) => at(o + ms);
  const order = opts.order ?? "4821";
  const fails = opts.fails ?? true;
  const system = { role: "system", content: "You are a support agent. Use the tools." };
  const user = { role: "user", content: `Refund order ${order}, it never arrived.` };
  const lookupCall = {
    id: `call_${id}_1`,
    type: "function",
    function: { name: "lookup_order", arguments: JSON.stringify({ order_id: order }) },
  };
  const refundCall = {
    id: `call_${id}_2`,
    type: "function",
    function: { name: "refund_payment", arguments: JSON.stringify({ order_id: order, amount: 129 }) },
  };
  const tools = [
    {
      type: "function",
      function: {
        name: "lookup_order",
        parameters: { type: "object", properties: { order_id: { type: "string" } }, required: ["order_id"] },
      },
    },
  ];
  const answer = fails
    ? `I could not refund order ${order}: the payment gateway timed out.`
    : `Order ${order} is refunded: $129.00.`;
  const obs = (fields: Record<string, unknown>) => ({
    traceId: id,
    name: null,
    endTime: null,
    completionStartTime: null,
    model: null,
    modelParameters: {},
    input: null,
    output: null,
    metadata: {},
    version: null,
    level: "DEFAULT",
    statusMessage: null,
    parentObservationId: `${id}-agent`,
    promptId: null,
    usageDetails: {},
    costDetails: {},
    environment: "production",
    ...fields,
  });
  return {
    id,
    timestamp: t(0),
    name: "support-agent",
    input: { question: user.content },
    output: answer,
    sessionId: "sess-42",
    release: "v1.4.0",
    version: "1.4.0",
    userId: "user-7",
    metadata: { region: "eu" },
    tags: ["prod", "refunds"],
    public: false,
    environment: "production",
    htmlPath: `/project/p1/traces/${id}`,
    latency: 4.2,
    totalCost: 0.0021,
    scores: [{ id: `${id}-score`, name: "resolved", value: fails ? 0 : 1, dataType: "NUMERIC", comment: null }],
    observations: [
      obs({
        id: `${id}-agent`,
        type: "AGENT",
        name: "support-agent",
        startTime: t(0),
        endTime: t(4200),
        parentObservationId: null,
        level: fails ? "ERROR" : "DEFAULT",
        statusMessage: fails ? "refund failed" : null,
      }),
      obs({
        id: `${id}-gen-1`,
        type: "GENERATION",
        name: "OpenAI-generation",
        startTime: t(100),
        endTime: t(900),
        completionStartTime: t(400),
        model: "gpt-4o-2024-08-06",
        modelParameters: { temperature: 0, max_tokens: "512" },
        input: { messages: [system, user], tools },
        output: { role: "assistant", content: null, tool_calls: [lookupCall] },
        usageDetails: { input: 120, output: 20, total: 140 },
        costDetails: { input: 0.0003, output: 0.0002, total: 0.0005 },
      }),
      obs({
        id: `${id}-tool-1`,
        type: "TOOL",
        name: "lookup_order",
        startTime: t(1000),
        endTime: t(1200),
        input: { order_id: order },
        output: { order_id: order, status: "lost" },
      }),
      obs({
        id: `${id}-gen-2`,
        type: "GENERATION",
        name: "OpenAI-generation",
        startTime: t(1300),
        endTime: t(2000),
        model: "gpt-4o-2024-08-06",
        modelParameters: { temperature: 0 },
        input: [
          system,
          user,
          { role: "assistant", content: null, tool_calls: [lookupCall] },
          { role: "tool", tool_call_id: lookupCall.id, content: JSON.stringify({ order_id: order, status: "lost" }) },
        ],
        output: { role: "assistant", content: null, tool_calls: [refundCall] },
        usageDetails: { input: 180, output: 30, total: 210 },
        costDetails: { total: 0.0007 },
      }),
      obs({
        id: `${id}-span-refund`,
        type: "SPAN",
        name: "refund_payment",
        startTime: t(2100),
        endTime: t(3100),
        input: JSON.stringify({ order_id: order, amount: 129 }),
        output: fails ? null : "refund issued: $129.00",
        metadata: { tool_call_id: refundCall.id },
        level: fails ? "ERROR" : "DEFAULT",
        statusMessage: fails ? "payment gateway timeout" : null,
      }),
      obs({
        id: `${id}-event`,
        type: "EVENT",
        name: "guardrail-check",
        startTime: t(3150),
        input: { checked: "refund amount" },
        output: { passed: true },
        level: "DEBUG",
      }),
      obs({
        id: `${id}-gen-3`,
        type: "GENERATION",
        name: "OpenAI-generation",
        startTime: t(3200),
        endTime: t(4100),
        model: "gpt-4o-2024-08-06",
        input: [
          system,
          user,
          { role: "assistant", content: null, tool_calls: [lookupCall] },
          { role: "tool", tool_call_id: lookupCall.id, content: JSON.stringify({ order_id: order, status: "lost" }) },
          { role: "assistant", content: null, tool_calls: [refundCall] },
          {
            role: "tool",
            tool_call_id: refundCall.id,
            content: fails ? "error: payment gateway timeout" : "refund issued: $129.00",
          },
        ],
        output: { role: "assistant", content: answer },
        // The deprecated usage fields, as older SDK versions report them.
        usage: { input: 260, output: 25, total: 285, unit: "TOKENS", totalCost: 0.0009 },
        promptTokens: 260,
        completionTokens: 25,
        totalTokens: 285,
        calculatedTotalCost: 0.0009,
      }),
    ],
  };
}

/** A listed trace (GET /api/public/traces): the same trace with its observations and scores as ids only. */
export function listedTrace(trace: Record<string, unknown>): Record<string, unknown> {
  const observations = (trace.observations as { id: string }[]).map((o) => o.id);
  const scores = ((trace.scores as { id: string }[] | undefined) ?? []).map((s) => s.id);
  return { ...trace, observations, scores };
}

/** `count` traces a minute apart, every third one failing, ids `${prefix}-000`, `${prefix}-001`… */
export function supportTraces(count: number, prefix = "lf-trace"): Record<string, unknown>[] {
  return Array.from({ length: count }, (_, k) =>
    supportTrace(`${prefix}-${String(k).padStart(3, "0")}`, {
      offsetMs: k * 60_000,
      order: String(5000 + k),
      fails: k % 3 === 0,
    }),
  );
}
