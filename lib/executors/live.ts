import { env } from "@/lib/env";
import { repairText } from "@/lib/hostile/text";
import { parseJsonBounded } from "@/lib/hostile/json";
/**
 * Live executors for replays (server only). Tool calls are POSTed as JSON
 * `{ tool, args, callId }` to the tool's configured endpoint; model steps call
 * an OpenAI-compatible `/chat/completions`. Every URL's host must be on the
 * allow-list. API keys are read from the environment variable an endpoint
 * names, here and nowhere else; they never leave the server.
 */
import { setOwn } from "@/lib/hostile/objects";
import { OutboundRefused, safeRequest } from "./outbound";
import type { Message, ModelExecutor, ToolAnswer, ToolCall, ToolExecutor, ToolSimulator } from "@/lib/replay";
import type { DbClient } from "@/lib/db/client";
import { allowedHosts, modelEndpointFor, toolEndpointFor } from "@/lib/db/executors";
import { DEMO_MODEL, demoModelScript, isDemoModel, scriptedCompletion, type ChatRequest } from "./demo-model";

export class ExecutorError extends Error {
  override name = "ExecutorError";
  constructor(
    readonly code:
      "host_not_allowed" | "no_endpoint" | "bad_url" | "http_error" | "bad_response" | "timeout" | "key_missing",
    message: string,
  ) {
    super(message);
  }
}

/**
 * PostgreSQL cannot store U+0000 in JSON (22P05): an executor answer holding it
 * would make the whole run unsaveable, and so would a lone UTF-16 surrogate.
 * Replaces every NUL and lone surrogate (in strings and keys) with U+FFFD and reports how many it replaced.
 */
export function stripNul<T>(value: T): { value: T; replaced: number } {
  let replaced = 0;
  const clean = (s: string): string => {
    // A lone UTF-16 surrogate is as unstorable as NUL (22P02/22P05): repaired the same way.
    const repaired = repairText(s);
    replaced += repaired.replaced;
    if (!repaired.text.includes("\u0000")) return repaired.text;
    const parts = repaired.text.split("\u0000");
    replaced += parts.length - 1;
    return parts.join("\uFFFD");
  };
  const walk = (v: unknown): unknown => {
    if (typeof v === "string") return clean(v);
    if (Array.isArray(v)) return v.map(walk);
    if (v !== null && typeof v === "object") {
      const out: Record<string, unknown> = {};
      for (const [k, inner] of Object.entries(v as Record<string, unknown>)) setOwn(out, clean(k), walk(inner));
      return out;
    }
    return v;
  };
  const result = walk(value) as T;
  return { value: replaced === 0 ? value : result, replaced };
}

/** Told when an executor answer had NULs replaced, with the branch step it is for (the service notes it on that step). */
export type NulReport = (report: {
  step: number;
  executor: "tool" | "model" | "simulator";
  name: string;
  replaced: number;
}) => void;

/** The host part compared with the allow-list: `hostname` and `hostname:port` both match an entry. */
export function hostAllowed(url: URL, allowed: ReadonlySet<string>): boolean {
  const hostname = url.hostname.replace(/^\[|\]$/g, "").toLowerCase();
  return allowed.has(hostname) || allowed.has(url.host.toLowerCase());
}

/** Whether a stored endpoint's URL is an http(s) URL whose host the allow-list holds, as a live call checks it. */
export function urlHostAllowed(raw: string, allowed: ReadonlySet<string>): boolean {
  const url = parseHttpUrl(raw);
  return url !== null && hostAllowed(url, allowed);
}

export function parseHttpUrl(raw: string): URL | null {
  try {
    const url = new URL(raw);
    return url.protocol === "http:" || url.protocol === "https:" ? url : null;
  } catch {
    return null;
  }
}

const allowList = allowedHosts;

/** Reads the key of a model endpoint from the server's environment (the name is configuration; the value never is). */
/** The most of an endpoint's error body a caller sees: enough to recognise it, not a channel for its contents. */
export const EXCERPT_CHARS = 80;

/**
 * A short, single-line excerpt of an endpoint's body for an error message:
 * control and markup characters dropped, whitespace collapsed, cut at
 * EXCERPT_CHARS (the full body is never echoed: it may hold anything).
 */
export function excerpt(text: string): string {
  const clean = text
    .slice(0, EXCERPT_CHARS * 4)
    .replace(/[\u0000-\u001f\u007f-\u009f<>]/g, " ")
    .replace(/\s+/g, " ")
    .trim();
  if (clean === "") return "";
  return `: "${clean.length > EXCERPT_CHARS ? `${clean.slice(0, EXCERPT_CHARS)}…` : clean}"`;
}

function keyFrom(envName: string | null): string | null {
  if (!envName) return null;
  const value = process.env[envName];
  return value && value.length > 0 ? value : null;
}

async function postJson(
  url: URL,
  body: unknown,
  timeoutMs: number,
  headers: Record<string, string> = {},
  allowed: ReadonlySet<string> = new Set(),
): Promise<unknown> {
  let response: { ok: boolean; status: number; text(): Promise<string> };
  try {
    // Allow-list checked again after DNS and on every redirect (outbound.ts).
    const answer = await safeRequest(
      url,
      {
        method: "POST",
        headers: { "content-type": "application/json", accept: "application/json", ...headers },
        body: JSON.stringify(body),
        signal: AbortSignal.timeout(timeoutMs),
      },
      allowed,
    );
    response = {
      ok: answer.status >= 200 && answer.status < 300,
      status: answer.status,
      text: () => Promise.resolve(answer.text),
    };
  } catch (error) {
    if (error instanceof OutboundRefused)
      throw new ExecutorError("host_not_allowed", `${error.message} The call was refused.`);
    const name = error instanceof Error ? error.name : "";
    if (name === "TimeoutError" || name === "AbortError")
      throw new ExecutorError("timeout", `${url.origin}${url.pathname} did not answer within ${timeoutMs} ms.`);
    throw new ExecutorError(
      "http_error",
      `${url.origin}${url.pathname} could not be reached: ${error instanceof Error ? error.message : String(error)}.`,
    );
  }
  const text = await response.text();
  if (!response.ok)
    throw new ExecutorError(
      "http_error",
      `${url.origin}${url.pathname} answered HTTP ${response.status}${excerpt(text)}`,
    );
  try {
    return parseJsonBounded(text);
  } catch {
    throw new ExecutorError(
      "bad_response",
      `${url.origin}${url.pathname} answered with a body that is not JSON${excerpt(text)}`,
    );
  }
}

/**
 * The tool endpoint's answer: `{ "output": … }` or `{ "error": { "type", "message" } }`;
 * any other JSON body is the output itself.
 */
export function toolAnswerOf(body: unknown): ToolAnswer {
  if (body && typeof body === "object" && !Array.isArray(body)) {
    const record = body as Record<string, unknown>;
    const error = record.error;
    if (error && typeof error === "object" && typeof (error as { message?: unknown }).message === "string") {
      const e = error as { type?: unknown; message: string };
      return { error: { type: typeof e.type === "string" ? e.type : "ToolError", message: e.message } };
    }
    if ("output" in record) return { output: record.output };
  }
  return { output: body };
}

/**
 * Executes tool calls live. Refusals (no endpoint, host not allowed) come
 * back as tool errors the step shows, with what to configure; the call is not made.
 */
export function toolExecutor(client: DbClient, onNul?: NulReport): ToolExecutor {
  const run = toolExecutorRaw(client);
  return async (call: ToolCall) => {
    const { value, replaced } = stripNul(await run(call));
    if (replaced > 0) onNul?.({ step: call.step, executor: "tool", name: call.tool, replaced });
    return value;
  };
}

function toolExecutorRaw(client: DbClient): ToolExecutor {
  return async (call: ToolCall) => {
    const endpoint = await toolEndpointFor(client, call.tool);
    if (!endpoint) {
      return {
        error: {
          type: "NoToolEndpoint",
          message: `No live endpoint is configured for "${call.tool}" (Settings → Executors); the call was not made.`,
        },
      };
    }
    const url = parseHttpUrl(endpoint.url);
    if (!url)
      return {
        error: {
          type: "BadToolEndpoint",
          message: `The endpoint of "${call.tool}" is not an http(s) URL: ${endpoint.url}`,
        },
      };
    const allowed = await allowList(client);
    if (!hostAllowed(url, allowed)) {
      return {
        error: {
          type: "HostNotAllowed",
          message: `Host "${url.host}" is not on the executor allow-list (Settings → Executors); the call to "${call.tool}" was refused.`,
        },
      };
    }
    const started = Date.now();
    try {
      const body = await postJson(
        url,
        { tool: call.tool, args: call.args, callId: call.callId },
        endpoint.timeoutMs,
        {},
        allowed,
      );
      return { ...toolAnswerOf(body), durationMs: Date.now() - started };
    } catch (error) {
      if (error instanceof ExecutorError)
        return { error: { type: `Tool_${error.code}`, message: error.message }, durationMs: Date.now() - started };
      throw error;
    }
  };
}

type ChatMessage = {
  role: string;
  content: string | null;
  tool_calls?: unknown[];
  tool_call_id?: string;
  name?: string;
};

/** Our message shape as OpenAI chat messages. */
/**
 * Tool definitions as Chat Completions takes them: the importers store `{ name, description?, parameters? }`,
 * which goes out wrapped as `{ type: "function", function }`; a definition already in that shape goes as it is.
 */
export function toChatTools(tools: readonly unknown[]): unknown[] {
  return tools.map((tool) => {
    if (tool === null || typeof tool !== "object" || "type" in tool || !("name" in tool)) return tool;
    return { type: "function", function: tool };
  });
}

export function toChatMessages(messages: readonly Message[]): ChatMessage[] {
  return messages.map((m) => {
    const content =
      m.content === null || m.content === undefined
        ? null
        : typeof m.content === "string"
          ? m.content
          : JSON.stringify(m.content);
    const out: ChatMessage = { role: m.role, content };
    if (m.toolCalls && m.toolCalls.length > 0) {
      out.tool_calls = m.toolCalls.map((c) => ({
        id: c.id,
        type: "function",
        function: { name: c.name, arguments: typeof c.args === "string" ? c.args : JSON.stringify(c.args ?? {}) },
      }));
    }
    if (m.toolCallId) out.tool_call_id = m.toolCallId;
    return out;
  });
}

/** An OpenAI chat completion's first choice as our message shape. */
export function fromChatCompletion(body: unknown): {
  output: Message;
  model?: string;
  usage?: { inputTokens?: number; outputTokens?: number };
} {
  const record = (body ?? {}) as {
    choices?: {
      message?: { content?: unknown; tool_calls?: { id?: string; function?: { name?: string; arguments?: string } }[] };
    }[];
    model?: unknown;
    usage?: { prompt_tokens?: number; completion_tokens?: number };
  };
  const message = record.choices?.[0]?.message;
  if (!message) throw new ExecutorError("bad_response", "The model endpoint's answer has no choices[0].message.");
  const toolCalls = (message.tool_calls ?? []).map((c, k) => {
    const raw = c.function?.arguments ?? "{}";
    let args: unknown = raw;
    let argsUnparsed = false;
    try {
      args = parseJsonBounded(raw);
    } catch {
      argsUnparsed = true;
    }
    return {
      id: c.id ?? `call_${k}`,
      name: c.function?.name ?? "unknown",
      args,
      ...(argsUnparsed ? { argsUnparsed } : {}),
    };
  });
  const output: Message = {
    role: "assistant",
    content: message.content ?? null,
    ...(toolCalls.length > 0 ? { toolCalls } : {}),
  };
  const usage = record.usage
    ? {
        ...(record.usage.prompt_tokens !== undefined ? { inputTokens: record.usage.prompt_tokens } : {}),
        ...(record.usage.completion_tokens !== undefined ? { outputTokens: record.usage.completion_tokens } : {}),
      }
    : undefined;
  return { output, ...(typeof record.model === "string" ? { model: record.model } : {}), ...(usage ? { usage } : {}) };
}

/** How long a model endpoint has to answer one call, unless the caller says otherwise. */
export const MODEL_TIMEOUT_MS = 120_000;

async function chat(
  client: DbClient,
  wanted: string | undefined,
  body: Record<string, unknown>,
  pinnedId?: string | null,
  timeoutMs = MODEL_TIMEOUT_MS,
) {
  const endpoint = await modelEndpointFor(client, wanted, pinnedId);
  if (!endpoint && pinnedId)
    throw new ExecutorError(
      "no_endpoint",
      "The model endpoint this replay was started with has been removed (Settings → Executors).",
    );
  if (!endpoint) throw new ExecutorError("no_endpoint", "No model endpoint is configured (Settings → Executors).");
  const url = parseHttpUrl(`${endpoint.baseUrl.replace(/\/+$/, "")}/chat/completions`);
  if (!url)
    throw new ExecutorError(
      "bad_url",
      `Model endpoint "${endpoint.name}" has a base URL that is not http(s): ${endpoint.baseUrl}`,
    );
  const allowed = await allowList(client);
  if (!hostAllowed(url, allowed)) {
    throw new ExecutorError(
      "host_not_allowed",
      `Host "${url.host}" of model endpoint "${endpoint.name}" is not on the executor allow-list (Settings → Executors); the call was refused.`,
    );
  }
  // Checked again at call time: an endpoint saved before the list changed may name any variable.
  if (endpoint.apiKeyEnv && !env().BRANCHPOINT_MODEL_KEY_VARS.includes(endpoint.apiKeyEnv)) {
    throw new ExecutorError(
      "key_missing",
      `Model endpoint "${endpoint.name}" reads its key from $${endpoint.apiKeyEnv}, which is not on the server's list of key variables (BRANCHPOINT_MODEL_KEY_VARS); the call was refused.`,
    );
  }
  const key = keyFrom(endpoint.apiKeyEnv);
  if (endpoint.apiKeyEnv && !key) {
    throw new ExecutorError(
      "key_missing",
      `Model endpoint "${endpoint.name}" reads its key from $${endpoint.apiKeyEnv}, which is not set in the server's environment.`,
    );
  }
  const started = Date.now();
  const answer = await postJson(
    url,
    { model: endpoint.model, ...body },
    timeoutMs,
    key ? { authorization: `Bearer ${key}` } : {},
    allowed,
  );
  return { answer, endpoint, durationMs: Date.now() - started };
}

/**
 * A model executor over the configured endpoints: the pinned one (a replay's chosen endpoint) when given,
 * else the one named like the requested model, else the first.
 */
export function modelExecutor(
  client: DbClient,
  onNul?: NulReport,
  pinnedEndpointId?: string | null,
  options: { timeoutMs?: number } = {},
): ModelExecutor {
  const run = modelExecutorRaw(client, pinnedEndpointId, options.timeoutMs);
  return async (request) => {
    const { value, replaced } = stripNul(await run(request));
    if (replaced > 0)
      onNul?.({ step: request.step, executor: "model", name: value.model ?? request.model ?? "model", replaced });
    return value;
  };
}

/**
 * The built-in demo model (./demo-model.ts), in-process: the request goes out and the answer comes back in
 * the same wire shapes as a real endpoint's, so everything after it reads the same.
 */
function demoModelExecutor(): ModelExecutor {
  const script = demoModelScript();
  let index = 0;
  let calls = 0;
  return (request) => {
    const body: ChatRequest = {
      model: DEMO_MODEL.model,
      messages: toChatMessages(request.messages) as ChatRequest["messages"],
      ...(request.temperature !== undefined ? { temperature: request.temperature } : {}),
      ...(request.tools && request.tools.length > 0 ? { tools: toChatTools(request.tools) } : {}),
    };
    const reply = script(body, { random: () => 0, index });
    if ("status" in reply) throw new ExecutorError("http_error", `${DEMO_MODEL.name} answered ${reply.status}.`);
    const completion = scriptedCompletion(reply, body, {
      index: index++,
      model: DEMO_MODEL.model,
      nextCallId: () => `call_demo_${request.step}_${calls++}`,
    });
    return Promise.resolve({ ...fromChatCompletion(completion), model: DEMO_MODEL.name, durationMs: 0 });
  };
}

function modelExecutorRaw(client: DbClient, pinnedEndpointId?: string | null, timeoutMs?: number): ModelExecutor {
  // Only a replay of demo data is ever pinned to the demo model (resolveModelEndpoint refuses it otherwise).
  if (isDemoModel(pinnedEndpointId)) return demoModelExecutor();
  return async (request) => {
    const { answer, endpoint, durationMs } = await chat(
      client,
      request.model,
      {
        messages: toChatMessages(request.messages),
        ...(request.temperature !== undefined ? { temperature: request.temperature } : {}),
        ...(request.tools && request.tools.length > 0 ? { tools: toChatTools(request.tools) } : {}),
      },
      pinnedEndpointId,
      timeoutMs,
    );
    const parsed = fromChatCompletion(answer);
    return { ...parsed, model: parsed.model ?? endpoint.model, durationMs };
  };
}

/** The `llm` rule's simulator: asks a model for the tool's JSON result. */
export function toolSimulator(client: DbClient, onNul?: NulReport): ToolSimulator {
  const run = toolSimulatorRaw(client);
  return async (call) => {
    const { value, replaced } = stripNul(await run(call));
    if (replaced > 0) onNul?.({ step: call.step, executor: "simulator", name: call.tool, replaced });
    return value;
  };
}

function toolSimulatorRaw(client: DbClient): ToolSimulator {
  return async (call) => {
    const { answer, durationMs } = await chat(client, call.model, {
      messages: [
        {
          role: "system",
          content: `You simulate the tool "${call.tool}". Answer with its result as JSON only.${call.instructions ? ` ${call.instructions}` : ""}`,
        },
        { role: "user", content: JSON.stringify({ tool: call.tool, args: call.args }) },
      ],
      temperature: 0,
    });
    const content = fromChatCompletion(answer).output.content;
    if (typeof content !== "string") return { output: content ?? null, durationMs };
    try {
      return { output: parseJsonBounded(content), durationMs };
    } catch {
      return { output: content, durationMs };
    }
  };
}
