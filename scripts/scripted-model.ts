/**
 * A scripted OpenAI-compatible model server for tests and demos: real HTTP on
 * 127.0.0.1, `POST /v1/chat/completions` (non-streaming). What it answers is a
 * function of what it is sent — the conversation, including the tool results
 * a replay fed it — plus a seeded random source, so repeated trials can make
 * a reproducible random choice. It stands in for the model provider, which is
 * outside the product; nothing else is faked.
 *
 *   const model = await startScriptedModel({ script: refundAgentScript() });
 *   // configure a model endpoint with baseUrl model.baseUrl, allow host 127.0.0.1:<port>
 *   await model.close();
 *
 * Run on its own (for a demo): `npx tsx scripts/scripted-model.ts [port] [seed]`.
 */
import http from "node:http";
import type { AddressInfo } from "node:net";
import { pathToFileURL } from "node:url";

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

export interface ScriptedModel {
  /** The base URL to configure as a model endpoint (ends in /v1). */
  baseUrl: string;
  /** `127.0.0.1:<port>`, for the executor allow-list. */
  host: string;
  /** Every request received, in order. */
  requests: ChatRequest[];
  close: () => Promise<void>;
}

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

export async function startScriptedModel(options: {
  script: Script;
  seed?: number;
  port?: number;
  /** The model id the answers carry; default: the one requested. */
  model?: string;
  /** Awaited before the `index`th request is answered (a test kills the caller while it waits). */
  gate?: (index: number) => Promise<void>;
}): Promise<ScriptedModel> {
  const requests: ChatRequest[] = [];
  const random = seededRandom(options.seed ?? 1);
  let callCounter = 0;
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const send = (status: number, body: string) => {
        res.writeHead(status, { "content-type": "application/json" });
        res.end(body);
      };
      if (req.method !== "POST" || req.url !== "/v1/chat/completions")
        return send(404, JSON.stringify({ error: { message: `no route ${req.method} ${req.url}` } }));
      let request: ChatRequest;
      try {
        request = JSON.parse(Buffer.concat(chunks).toString("utf8")) as ChatRequest;
      } catch {
        return send(400, JSON.stringify({ error: { message: "body is not JSON" } }));
      }
      const index = requests.length;
      requests.push(request);
      if (options.gate) void options.gate(index).then(() => answer(request, index));
      else answer(request, index);
    });
    const answer = (request: ChatRequest, index: number) => {
      const send = (status: number, body: string) => {
        if (res.destroyed) return;
        res.writeHead(status, { "content-type": "application/json" });
        res.end(body);
      };
      let reply: ScriptedReply;
      try {
        reply = options.script(request, { random, index });
      } catch (error) {
        return send(500, JSON.stringify({ error: { message: String(error) } }));
      }
      if ("status" in reply) return send(reply.status, reply.body);
      const toolCalls = (reply.toolCalls ?? []).map((c) => ({
        id: c.id ?? `call_scripted_${callCounter++}`,
        type: "function",
        function: { name: c.name, arguments: JSON.stringify(c.args) },
      }));
      send(
        200,
        JSON.stringify({
          id: `chatcmpl-scripted-${index}`,
          object: "chat.completion",
          created: 0,
          model: options.model ?? request.model ?? "scripted",
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
        }),
      );
    };
  });
  await new Promise<void>((resolve) => server.listen(options.port ?? 0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    host: `127.0.0.1:${port}`,
    requests,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((e) => (e ? reject(e) : resolve()));
      }),
  };
}

// ---------------------------------------------------------------------------
// Helpers for scripts.

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

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  const port = Number(process.argv[2] ?? 0);
  const seed = Number(process.argv[3] ?? 1);
  void startScriptedModel({ script: refundAgentScript({ refuseRate: 0.5 }), seed, port }).then((m) => {
    console.log(`Scripted model at ${m.baseUrl} (allow host ${m.host})`);
  });
}
