/**
 * The scripted model scripts/record-sdk-traces.ts records the SDKs against: the conversation it
 * follows, the tools every SDK is given, and the one node:http server that plays the model
 * (OpenAI-compatible, under /v1) and captures every other POST.
 */
import http from "node:http";
import type { AddressInfo } from "node:net";
import type * as ai7 from "ai";

export const MODEL = "scripted-model";

// ---------------------------------------------------------------------------
// The script the fake model follows.

type ScriptedCall = { id: string; name: string; arguments: string };
const STEPS: ScriptedCall[][] = [
  [
    { id: "call_lookup_1", name: "lookup_order", arguments: JSON.stringify({ order_id: "4821" }) },
    { id: "call_time_1", name: "get_time", arguments: JSON.stringify({ zone: "UTC" }) },
  ],
  [
    { id: "call_time_2", name: "get_time", arguments: JSON.stringify({ zone: "UTC" }) },
    { id: "call_refund_1", name: "refund_payment", arguments: JSON.stringify({ order_id: "4821", amount: 129 }) },
  ],
];
const FINAL_TEXT = "Order 4821 was found, but the refund failed: the card processor is unavailable.";

/** Which step the conversation is at: the first whose calls are not all answered. */
function stepOf(answeredCallIds: Set<string>): number {
  const index = STEPS.findIndex((calls) => !calls.every((c) => answeredCallIds.has(c.id)));
  return index === -1 ? STEPS.length : index;
}

/** The tools, shared by every SDK: get_time answers differently on each call. */
export function makeTools() {
  let clock = 0;
  return {
    lookup_order: (args: { order_id: string }) => ({ order_id: args.order_id, status: "delivered", total: 129 }),
    get_time: (_args: { zone: string }) => `12:00:0${++clock}Z`,
    refund_payment: (_args: { order_id: string; amount: number }): string => {
      throw new Error("card processor unavailable");
    },
  };
}

/** The tools' JSON Schemas, shared by every SDK. */
function objectSchema(properties: Record<string, { type: "string" | "number" }>): ai7.JSONSchema7 {
  return { type: "object", properties, required: Object.keys(properties), additionalProperties: false };
}

export const TOOL_SCHEMAS = {
  lookup_order: { description: "Look an order up by id", parameters: objectSchema({ order_id: { type: "string" } }) },
  get_time: { description: "The current time", parameters: objectSchema({ zone: { type: "string" } }) },
  refund_payment: {
    description: "Refund an order",
    parameters: objectSchema({ order_id: { type: "string" }, amount: { type: "number" } }),
  },
};

// ---------------------------------------------------------------------------
// The scripted model server and the capture server (one node:http server).

export type Captured = { label: string; path: string; contentType: string; contentEncoding: string; body: Buffer };

async function readBody(req: http.IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

const usage = { prompt_tokens: 42, completion_tokens: 7, total_tokens: 49 };

function chatCompletion(step: number): unknown {
  const calls = STEPS[step];
  const message = calls
    ? {
        role: "assistant",
        content: null,
        tool_calls: calls.map((c) => ({
          id: c.id,
          type: "function",
          function: { name: c.name, arguments: c.arguments },
        })),
      }
    : { role: "assistant", content: FINAL_TEXT };
  return {
    id: `chatcmpl-${step}`,
    object: "chat.completion",
    created: 1_767_225_600,
    model: MODEL,
    choices: [{ index: 0, message, finish_reason: calls ? "tool_calls" : "stop" }],
    usage,
  };
}

function chatCompletionChunks(step: number, includeUsage: boolean): unknown[] {
  const calls = STEPS[step];
  const base = { id: `chatcmpl-${step}`, object: "chat.completion.chunk", created: 1_767_225_600, model: MODEL };
  const chunks: unknown[] = [];
  if (calls) {
    calls.forEach((c, index) => {
      chunks.push({
        ...base,
        choices: [
          {
            index: 0,
            delta: {
              ...(index === 0 ? { role: "assistant", content: null } : {}),
              tool_calls: [{ index, id: c.id, type: "function", function: { name: c.name, arguments: "" } }],
            },
            finish_reason: null,
          },
        ],
      });
      // Arguments arrive in two pieces, as real providers stream them.
      const half = Math.floor(c.arguments.length / 2);
      for (const piece of [c.arguments.slice(0, half), c.arguments.slice(half)]) {
        chunks.push({
          ...base,
          choices: [
            { index: 0, delta: { tool_calls: [{ index, function: { arguments: piece } }] }, finish_reason: null },
          ],
        });
      }
    });
    chunks.push({ ...base, choices: [{ index: 0, delta: {}, finish_reason: "tool_calls" }] });
  } else {
    chunks.push({ ...base, choices: [{ index: 0, delta: { role: "assistant", content: "" }, finish_reason: null }] });
    for (const word of FINAL_TEXT.split(/(?<= )/)) {
      chunks.push({ ...base, choices: [{ index: 0, delta: { content: word }, finish_reason: null }] });
    }
    chunks.push({ ...base, choices: [{ index: 0, delta: {}, finish_reason: "stop" }] });
  }
  if (includeUsage) chunks.push({ ...base, choices: [], usage });
  return chunks;
}

function responsesResponse(step: number): unknown {
  const calls = STEPS[step];
  const output = calls
    ? calls.map((c, i) => ({
        type: "function_call",
        id: `fc_${step}_${i}`,
        call_id: c.id,
        name: c.name,
        arguments: c.arguments,
        status: "completed",
      }))
    : [
        {
          type: "message",
          id: `msg_${step}`,
          role: "assistant",
          status: "completed",
          content: [{ type: "output_text", text: FINAL_TEXT, annotations: [] }],
        },
      ];
  return {
    id: `resp_${step}`,
    object: "response",
    created_at: 1_767_225_600,
    status: "completed",
    model: MODEL,
    output,
    parallel_tool_calls: true,
    tool_choice: "auto",
    tools: [],
    usage: {
      input_tokens: 42,
      input_tokens_details: { cached_tokens: 0 },
      output_tokens: 7,
      output_tokens_details: { reasoning_tokens: 0 },
      total_tokens: 49,
    },
  };
}

type ChatRequest = {
  stream?: boolean;
  stream_options?: { include_usage?: boolean };
  messages?: { role: string; tool_call_id?: string }[];
};
type ResponsesRequest = { input?: string | { type?: string; call_id?: string }[] };

export type ScriptedServer = {
  url: string;
  captured: Captured[];
  setLabel(label: string): void;
  close(): Promise<void>;
};

/** Starts the scripted model (under /v1) and a capture endpoint for every other POST. */
export async function startScriptedServer(): Promise<ScriptedServer> {
  const captured: Captured[] = [];
  let label = "";
  const server = http.createServer((req, res) => {
    void (async () => {
      const body = await readBody(req);
      const url = req.url ?? "";
      if (url === "/v1/chat/completions") {
        const request = JSON.parse(body.toString("utf8")) as ChatRequest;
        const answered = new Set(
          (request.messages ?? []).flatMap((m) => (m.role === "tool" && m.tool_call_id ? [m.tool_call_id] : [])),
        );
        const step = stepOf(answered);
        if (request.stream) {
          res.writeHead(200, { "content-type": "text/event-stream" });
          for (const chunk of chatCompletionChunks(step, request.stream_options?.include_usage === true)) {
            res.write(`data: ${JSON.stringify(chunk)}\n\n`);
          }
          res.end("data: [DONE]\n\n");
        } else {
          res.writeHead(200, { "content-type": "application/json" });
          res.end(JSON.stringify(chatCompletion(step)));
        }
        return;
      }
      if (url === "/v1/responses") {
        const request = JSON.parse(body.toString("utf8")) as ResponsesRequest;
        const items = Array.isArray(request.input) ? request.input : [];
        const answered = new Set(
          items.flatMap((i) => (i.type === "function_call_output" && i.call_id ? [i.call_id] : [])),
        );
        res.writeHead(200, { "content-type": "application/json" });
        res.end(JSON.stringify(responsesResponse(stepOf(answered))));
        return;
      }
      captured.push({
        label,
        path: url,
        contentType: String(req.headers["content-type"] ?? ""),
        contentEncoding: String(req.headers["content-encoding"] ?? ""),
        body,
      });
      res.writeHead(200, { "content-type": "application/json" });
      res.end("{}");
    })().catch((error: unknown) => {
      res.writeHead(500);
      res.end(String(error));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    captured,
    setLabel: (next) => {
      label = next;
    },
    close: () => new Promise<void>((resolve, reject) => server.close((e) => (e ? reject(e) : resolve()))),
  };
}
