/**
 * Calls to an upstream MCP server (streamable HTTP) for an agent-driven replay's MCP proxy: its tool list,
 * and the passthrough calls the policy runs live. Every HTTP request the MCP client makes goes through the
 * executors' outbound guard (allow-list, DNS, private addresses, the checked address connected to), and an
 * answer is read up to a bound. Server only.
 */
import http from "node:http";
import https from "node:https";
import { Readable } from "node:stream";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { CallToolResult, Tool } from "@modelcontextprotocol/sdk/types.js";
import type { FetchLike } from "@modelcontextprotocol/sdk/shared/transport.js";
import { checkDestination, OutboundRefused, type Resolver } from "./outbound";
import { ExecutorError } from "./live";

const MAX_BODY = 20 * 1024 * 1024;
const MAX_PAGES = 20;
/** How long one upstream call (connecting included) may take. */
export const UPSTREAM_TIMEOUT_MS = 60_000;

function bodyText(body: RequestInit["body"]): string | undefined {
  if (body === undefined || body === null) return undefined;
  if (typeof body === "string") return body;
  throw new OutboundRefused("The MCP client sent a body that is not text; only JSON is sent upstream.");
}

/** An answer's body as a web stream that errors past MAX_BODY bytes (an upstream cannot fill the server's memory). */
function bounded(res: http.IncomingMessage): ReadableStream<Uint8Array> {
  let size = 0;
  res.on("data", (chunk: Buffer) => {
    size += chunk.length;
    if (size > MAX_BODY) res.destroy(new Error(`the upstream's answer is over ${MAX_BODY} bytes`));
  });
  return Readable.toWeb(res) as ReadableStream<Uint8Array>;
}

/**
 * A `fetch` for the MCP client that reaches only allow-listed hosts, checked on every request (a redirect is
 * answered to the client as it came, and the client's next request is checked again), connecting to the
 * address that was checked.
 */
export function guardedFetch(allowed: ReadonlySet<string>, resolve?: Resolver): FetchLike {
  return async (input, init = {}) => {
    const url = new URL(input instanceof URL ? input.href : input);
    const target = await checkDestination(url, allowed, resolve);
    const headers: Record<string, string> = {};
    new Headers(init.headers).forEach((value, key) => (headers[key] = value));
    const body = bodyText(init.body);
    if (body !== undefined) headers["content-length"] = String(Buffer.byteLength(body));
    return new Promise<Response>((resolvePromise, reject) => {
      const lib = url.protocol === "https:" ? https : http;
      const req = lib.request(
        url,
        {
          method: init.method ?? "GET",
          headers,
          ...(init.signal ? { signal: init.signal } : {}),
          lookup: (_hostname, options, callback) => {
            if (options.all) callback(null, [{ address: target.address, family: target.family }]);
            else callback(null, target.address, target.family);
          },
        },
        (res) => {
          const answerHeaders = new Headers();
          for (const [key, value] of Object.entries(res.headers))
            if (typeof value === "string") answerHeaders.set(key, value);
            else if (Array.isArray(value)) for (const v of value) answerHeaders.append(key, v);
          const status = res.statusCode ?? 502;
          const empty = status === 204 || status === 304 || init.method === "HEAD";
          if (empty) res.resume();
          resolvePromise(new Response(empty ? null : bounded(res), { status, headers: answerHeaders }));
        },
      );
      req.on("error", reject);
      if (body !== undefined) req.write(body);
      req.end();
    });
  };
}

/** Why an upstream call failed, as the executor error the proxy shows (the host refused, unreachable, timed out). */
function upstreamError(name: string, error: unknown): ExecutorError {
  if (error instanceof ExecutorError) return error;
  const cause = error instanceof Error && error.cause instanceof OutboundRefused ? error.cause : error;
  if (cause instanceof OutboundRefused)
    return new ExecutorError("host_not_allowed", `${cause.message} The MCP server "${name}" was not called.`);
  const message = error instanceof Error ? error.message : String(error);
  if (/timed? ?out|TimeoutError|AbortError/i.test(message))
    return new ExecutorError("timeout", `The MCP server "${name}" did not answer within ${UPSTREAM_TIMEOUT_MS} ms.`);
  return new ExecutorError("http_error", `The MCP server "${name}" could not be used: ${message}`);
}

export interface McpUpstream {
  name: string;
  url: string;
}

/** Connects a fresh MCP client to the upstream, runs `work`, and closes it (one short session per use). */
export async function withMcpUpstream<T>(
  upstream: McpUpstream,
  allowed: ReadonlySet<string>,
  work: (client: Client, signal: AbortSignal) => Promise<T>,
  resolve?: Resolver,
): Promise<T> {
  const signal = AbortSignal.timeout(UPSTREAM_TIMEOUT_MS);
  const client = new Client({ name: "branchpoint-mcp-proxy", version: "1.0.0" });
  const transport = new StreamableHTTPClientTransport(new URL(upstream.url), { fetch: guardedFetch(allowed, resolve) });
  try {
    await client.connect(transport, { signal, timeout: UPSTREAM_TIMEOUT_MS });
    return await work(client, signal);
  } catch (error) {
    throw upstreamError(upstream.name, error);
  } finally {
    await client.close().catch(() => undefined);
  }
}

/** Every tool the upstream lists (following its pages, up to MAX_PAGES). */
export function listUpstreamTools(
  upstream: McpUpstream,
  allowed: ReadonlySet<string>,
  resolve?: Resolver,
): Promise<Tool[]> {
  return withMcpUpstream(
    upstream,
    allowed,
    async (client, signal) => {
      const tools: Tool[] = [];
      let cursor: string | undefined;
      for (let page = 0; page < MAX_PAGES; page++) {
        const answer = await client.listTools(cursor ? { cursor } : {}, { signal, timeout: UPSTREAM_TIMEOUT_MS });
        tools.push(...answer.tools);
        cursor = answer.nextCursor;
        if (!cursor) break;
      }
      return tools;
    },
    resolve,
  );
}

/** Runs one tool on the upstream and answers its result as it came (an `isError` result included). */
export function callUpstreamTool(
  upstream: McpUpstream,
  allowed: ReadonlySet<string>,
  call: { name: string; arguments: Record<string, unknown> },
  resolve?: Resolver,
): Promise<CallToolResult> {
  return withMcpUpstream(
    upstream,
    allowed,
    async (client, signal) =>
      (await client.callTool(call, undefined, { signal, timeout: UPSTREAM_TIMEOUT_MS })) as CallToolResult,
    resolve,
  );
}
