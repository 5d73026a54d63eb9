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
import {
  refundAgentScript,
  scriptedCompletion,
  seededRandom,
  type ChatRequest,
  type Script,
  type ScriptedReply,
} from "../lib/executors/demo-model";

// The scripts and their types live with the app's built-in demo model (lib/executors/demo-model.ts):
// the same answers in-process there and over HTTP here.
export {
  lastToolResult,
  REFUND_SESSION,
  refundAgentScript,
  seededRandom,
  type ChatMessage,
  type ChatRequest,
  type Script,
  type ScriptContext,
  type ScriptedReply,
} from "../lib/executors/demo-model";

export interface ScriptedModel {
  /** The base URL to configure as a model endpoint (ends in /v1). */
  baseUrl: string;
  /** `127.0.0.1:<port>`, for the executor allow-list. */
  host: string;
  /** Every request received, in order. */
  requests: ChatRequest[];
  close: () => Promise<void>;
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
      const completion = scriptedCompletion(reply, request, {
        index,
        ...(options.model ? { model: options.model } : {}),
        nextCallId: () => `call_scripted_${callCounter++}`,
      });
      send(200, JSON.stringify(completion));
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

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  const port = Number(process.argv[2] ?? 0);
  const seed = Number(process.argv[3] ?? 1);
  void startScriptedModel({ script: refundAgentScript({ refuseRate: 0.5 }), seed, port }).then((m) => {
    console.log(`Scripted model at ${m.baseUrl} (allow host ${m.host})`);
  });
}
