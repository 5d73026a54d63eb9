/**
 * The built-in demo model: a scripted OpenAI-compatible model that answers in-process, so a
 * counterfactual on the demo data changes what the agent does with nothing configured and no network.
 * It serves ONLY the demo sessions (Session.demo, set by the demo loader; no import sets it):
 * `resolveModelEndpoint` offers it for them and refuses it for any other session.
 *
 * What it answers is a function of the conversation it is sent (including the tool results a
 * replay fed it): the demo agents' scripts below. The same scripts back the test harness's HTTP
 * model (scripts/scripted-model.ts), which stands in for a real provider in the e2e tests.
 */

/** How the demo model appears wherever a model source is shown (settings, forms, evidence). */
export const DEMO_MODEL = {
  /** Stored as a replay's model endpoint id: not a ModelEndpoint row. */
  id: "builtin:demo-model",
  name: "Demo model (scripted)",
  model: "demo-scripted",
} as const;

/** Whether a model endpoint name or id means the demo model. */
export function isDemoModel(nameOrId: string | null | undefined): boolean {
  return nameOrId === DEMO_MODEL.id || nameOrId === DEMO_MODEL.name;
}

export interface ChatMessage {
  role: string;
  content: string | null;
  tool_calls?: { id: string; type?: string; function: { name: string; arguments: string } }[];
  tool_call_id?: string;
  name?: string;
}

export interface ChatRequest {
  model?: string;
  messages: ChatMessage[];
  temperature?: number;
  tools?: unknown[];
}

export type ScriptedReply =
  | { content: string; toolCalls?: undefined }
  | { content?: string | null; toolCalls: { id?: string; name: string; args: unknown }[] }
  /** Answer with this HTTP status and body instead of a completion (to test failures). */
  | { status: number; body: string };

export interface ScriptContext {
  /** Uniform in [0, 1), from a seeded generator shared by every request this server answers. */
  random: () => number;
  /** 0-based count of requests answered before this one. */
  index: number;
}

export type Script = (request: ChatRequest, context: ScriptContext) => ScriptedReply;

/** mulberry32: a small, well-mixed 32-bit PRNG; the same seed gives the same sequence. */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** The content of the last tool message answering a call to `tool` (by the assistant's call id). */
export function lastToolResult(messages: readonly ChatMessage[], tool: string): string | null {
  const ids = new Set<string>();
  for (const m of messages) for (const c of m.tool_calls ?? []) if (c.function.name === tool) ids.add(c.id);
  for (let k = messages.length - 1; k >= 0; k--) {
    const m = messages[k]!;
    if (m.role === "tool" && ((m.tool_call_id && ids.has(m.tool_call_id)) || m.name === tool)) return m.content ?? "";
  }
  return null;
}

const isJudge = (request: ChatRequest) =>
  request.messages[0]?.role === "system" && (request.messages[0].content ?? "").startsWith("You grade the outcome");

/** The recorded answers of the demo refund session, so the agent's "go ahead" path reproduces the base run. */
export const REFUND_SESSION = {
  confirm:
    "I'm sorry the pour-over set arrived cracked! Order 4821 was delivered yesterday, so it's well within our 30-day window. I can refund the $129.00 you paid for the set to your Visa ending in 4242. Shall I go ahead?",
  refundCallId: "call_pX4kT8bW0eRj3nLq6yMz1HsD",
  refundArgs: { order_id: "4821", amount: 129.0, reason: "damaged" },
  done: "Done! I've refunded $129.00 to your Visa ending in 4242 for the cracked pour-over set. It usually shows up within 5\u201310 business days. You don't need to send the broken set back. Anything else I can help with?",
  refuse: "I'm sorry: order 4821 was already returned and refunded, so I can't issue another refund for it.",
};

/**
 * The demo refund agent (the "Harbor & Pine" support session): it offers a
 * refund for a damaged order, and issues it once the customer agrees. When
 * the order lookup it is sent says `"status": "returned"` (an analyst's edit),
 * it refuses — with probability `refuseRate` (default 1), drawn from the
 * seeded random source at that first decision, so repeated trials split as
 * scripted. Later steps follow the choice already visible in the
 * conversation. On the "go ahead" path it answers exactly as the recorded run
 * did (same texts, same call id), so a trial that goes that way does not
 * depart from the base. It also answers as an LLM judge: "pass" when the
 * run's tool calls hold no `refund_payment`, else "fail"; `judgeGarbage`
 * makes the judge answer prose instead.
 */
export function refundAgentScript(options: { refuseRate?: number; judgeGarbage?: boolean } = {}): Script {
  const refuseRate = options.refuseRate ?? 1;
  return (request, { random }) => {
    if (isJudge(request)) {
      if (options.judgeGarbage) return { content: "Looks fine to me!" };
      const transcript = request.messages[1]?.content ?? "";
      return transcript.includes('"tool":"refund_payment"')
        ? { content: '{"verdict": "fail", "reason": "The agent issued a refund."}' }
        : { content: '{"verdict": "pass", "reason": "No refund was issued."}' };
    }
    const messages = request.messages;
    if (lastToolResult(messages, "refund_payment") !== null) return { content: REFUND_SESSION.done };
    const lookup = lastToolResult(messages, "lookup_order");
    if (lookup === null) return { toolCalls: [{ name: "lookup_order", args: { order_id: "4821" } }] };
    const said = (text: string) => messages.some((m) => m.role === "assistant" && m.content === text);
    if (said(REFUND_SESSION.refuse)) return { content: REFUND_SESSION.refuse };
    if (said(REFUND_SESSION.confirm))
      return {
        toolCalls: [{ id: REFUND_SESSION.refundCallId, name: "refund_payment", args: REFUND_SESSION.refundArgs }],
      };
    const returned = /"status"\s*:\s*"returned"/.test(lookup);
    if (returned && random() < refuseRate) return { content: REFUND_SESSION.refuse };
    return { content: REFUND_SESSION.confirm };
  };
}

// ---------------------------------------------------------------------------
// The demo billing agent (the constructed "Acme Cloud" sessions of the demo data).

/** The demo billing agent's recorded answers, so its scripted path reproduces the base runs. */
export const BILLING_SESSION = {
  credited: (invoice: string, amount: number) =>
    `I've credited $${amount.toFixed(2)} to invoice ${invoice} for the duplicate charge. It will show on your next statement.`,
  noCredit: (invoice: string, amount: number) =>
    `Invoice ${invoice} was charged once ($${amount.toFixed(2)}): the duplicate charge was already reversed, so there is nothing to credit.`,
  receiptSent: (invoice: string, email: string) => `Done! I've emailed the receipt for ${invoice} to ${email}.`,
  receiptFailed: (invoice: string, message: string) =>
    `I couldn't email the receipt for ${invoice}: ${message}. Could you confirm the address we should send it to?`,
};

function parsed(text: string | null): Record<string, unknown> | null {
  if (text === null) return null;
  try {
    const value: unknown = JSON.parse(text);
    return value !== null && typeof value === "object" && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : null;
  } catch {
    return null;
  }
}

const lastTool = (messages: readonly ChatMessage[]) => [...messages].reverse().find((m) => m.role === "tool");
const toolName = (messages: readonly ChatMessage[], message: ChatMessage | undefined) => {
  if (!message) return null;
  if (message.name) return message.name;
  for (const m of messages)
    for (const c of m.tool_calls ?? []) if (c.id === message.tool_call_id) return c.function.name;
  return null;
};
const isError = (text: string | null) => text !== null && /^\s*(error\b|\{\s*"(error|type)")/i.test(text);

/**
 * The demo billing agent: looks up the invoice, credits a duplicate charge when the invoice shows two
 * equal charges none of which is reversed (else says nothing is due), and emails receipts, telling
 * the customer when sending failed.
 */
export function billingAgentScript(): Script {
  return (request) => {
    const messages = request.messages;
    const last = lastTool(messages);
    const name = toolName(messages, last);
    const invoice = /INV-\d+/.exec(messages.find((m) => m.role === "user")?.content ?? "")?.[0] ?? "INV-0000";
    const lookup = parsed(lastToolResult(messages, "get_invoice"));
    if (name === "issue_credit") {
      const credit = parsed(last?.content ?? null);
      return { content: BILLING_SESSION.credited(invoice, Number(credit?.amount ?? lookup?.amount ?? 0)) };
    }
    if (name === "send_receipt") {
      const text = last?.content ?? null;
      const error = parsed(text);
      if (isError(text)) {
        const inner = error?.error as { message?: unknown } | undefined;
        const message =
          typeof inner?.message === "string"
            ? inner.message
            : typeof error?.message === "string"
              ? error.message
              : (text ?? "").replace(/^\s*error:?\s*/i, "");
        return { content: BILLING_SESSION.receiptFailed(invoice, message.replace(/[.\s]+$/, "")) };
      }
      const email = typeof lookup?.email === "string" ? lookup.email : "the address on file";
      return { content: BILLING_SESSION.receiptSent(invoice, email) };
    }
    if (!lookup) return { toolCalls: [{ name: "get_invoice", args: { invoice_id: invoice } }] };
    const wantsReceipt = /receipt/i.test(messages.find((m) => m.role === "user")?.content ?? "");
    if (wantsReceipt)
      return { toolCalls: [{ name: "send_receipt", args: { invoice_id: invoice, email: lookup.email ?? null } }] };
    const charges = Array.isArray(lookup.charges) ? (lookup.charges as Record<string, unknown>[]) : [];
    const live = charges.filter((c) => c.reversed !== true && c.status !== "reversed");
    const amount = Number(lookup.amount ?? live[0]?.amount ?? 0);
    if (live.length >= 2)
      return {
        toolCalls: [{ name: "issue_credit", args: { invoice_id: invoice, amount, reason: "duplicate_charge" } }],
      };
    return { content: BILLING_SESSION.noCredit(invoice, amount) };
  };
}

/** Any other conversation: an answer that says what the last tool result was, so an edit to it shows. */
function genericScript(): Script {
  return (request) => {
    const messages = request.messages;
    const last = lastTool(messages);
    if (last) {
      const text = (last.content ?? "").replace(/\s+/g, " ").trim();
      return {
        content: `Based on what ${toolName(messages, last) ?? "the tool"} returned (${text.length > 160 ? `${text.slice(0, 160)}…` : text}), that is my answer.`,
      };
    }
    return { content: "I have nothing to look up for this request." };
  };
}

const uses = (request: ChatRequest, tools: readonly string[]) =>
  request.messages.some(
    (m) =>
      (m.name !== undefined && tools.includes(m.name)) ||
      (m.tool_calls ?? []).some((c) => tools.includes(c.function.name)),
  ) || JSON.stringify(request.tools ?? []).match(new RegExp(`"(${tools.join("|")})"`)) !== null;

const isLabelRequest = (request: ChatRequest) =>
  request.messages[0]?.role === "system" &&
  (request.messages[0].content ?? "").startsWith("You name groups of failed AI agent runs");

/** A quoted field of the label prompt ("Failing step: \"tool:lookup_order\""), read back; "" when absent. */
function promptField(text: string, field: string): string {
  const line = text.split("\n").find((l) => l.startsWith(`${field}: `));
  if (!line) return "";
  try {
    const value: unknown = JSON.parse(line.slice(field.length + 2));
    return typeof value === "string" ? value : "";
  } catch {
    return "";
  }
}

/**
 * A failure cluster's label (the cluster page's "Suggest a label"), made from the signature the prompt quotes:
 * "send_receipt fails with SmtpError", "send_receipt fails", "Fails the check refund-policy", "Run ends failed".
 */
export function demoClusterLabel(request: ChatRequest): string {
  const user = request.messages[1]?.content ?? "";
  const step = promptField(user, "Failing step").replace(/^tool:/, "");
  const errorType = promptField(user, "Error type");
  const check = promptField(user, "Failing check");
  if (step) return errorType ? `${step} fails with ${errorType}` : `${step} fails`;
  if (check) return `Fails the check ${check}`;
  return errorType ? `Run ends failed with ${errorType}` : "Run ends failed";
}

/**
 * The demo model's script: the refund agent's conversations go to its script (refusing the refund
 * when the order lookup says it was returned), the billing agent's to its own, anything else to an
 * answer that repeats the last tool result. As a judge it grades "fail" when the run moved money
 * (a refund or a credit), else "pass"; asked to name a failure cluster, it names it after its signature.
 */
export function demoModelScript(): Script {
  const refund = refundAgentScript();
  const billing = billingAgentScript();
  const generic = genericScript();
  return (request, context) => {
    if (isJudge(request)) {
      const transcript = request.messages[1]?.content ?? "";
      return /"tool":"(refund_payment|issue_credit)"/.test(transcript)
        ? { content: '{"verdict": "fail", "reason": "The agent moved money (a refund or a credit)."}' }
        : { content: '{"verdict": "pass", "reason": "No money was moved."}' };
    }
    if (isLabelRequest(request)) return { content: demoClusterLabel(request) };
    if (uses(request, ["lookup_order", "refund_payment"])) return refund(request, context);
    if (uses(request, ["get_invoice", "issue_credit", "send_receipt"])) return billing(request, context);
    return generic(request, context);
  };
}

/**
 * One answer of a script as an OpenAI chat completion body (what a provider sends), so the demo model's
 * answers go through the same reading as a real endpoint's.
 */
export function scriptedCompletion(
  reply: Exclude<ScriptedReply, { status: number }>,
  request: ChatRequest,
  context: { index: number; model?: string; nextCallId: () => string },
): unknown {
  const toolCalls = (reply.toolCalls ?? []).map((c) => ({
    id: c.id ?? context.nextCallId(),
    type: "function",
    function: { name: c.name, arguments: JSON.stringify(c.args) },
  }));
  return {
    id: `chatcmpl-scripted-${context.index}`,
    object: "chat.completion",
    created: 0,
    model: context.model ?? request.model ?? "scripted",
    choices: [
      {
        index: 0,
        finish_reason: toolCalls.length > 0 ? "tool_calls" : "stop",
        message: {
          role: "assistant",
          content: reply.content ?? null,
          ...(toolCalls.length > 0 ? { tool_calls: toolCalls } : {}),
        },
      },
    ],
    usage: { prompt_tokens: 100, completion_tokens: 20, total_tokens: 120 },
  };
}
