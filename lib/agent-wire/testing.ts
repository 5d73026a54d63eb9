import http from "node:http";
import type { AddressInfo } from "node:net";
import { AppError } from "@/lib/errors";
import type { WireAnswer, WireFormat, WireRequest } from "./types";

// Test helper: a local node:http server standing for Branchpoint's model endpoint. It reads each
// request with a wire format, answers with the next canned answer in the client's format, and
// keeps what it parsed (or the error it answered) for the test to check.

export type WireServer = {
  url: string;
  /** What each request was read into, in order. */
  parsed: WireRequest[];
  /** The raw bodies, in order. */
  bodies: unknown[];
  /** The error answered for each refused request. */
  refused: { status: number; body: unknown }[];
  close(): Promise<void>;
};

export type Route = { method: string; path: string; format: WireFormat };

/**
 * Starts the server. `answers` gives the answer to the n-th accepted request (0-based) and what it
 * parsed; extra routes answer GET requests with a fixed JSON body.
 */
export async function startWireServer(
  routes: Route[],
  answers: (n: number, request: WireRequest) => WireAnswer,
  fixed: Record<string, unknown> = {},
): Promise<WireServer> {
  const parsed: WireRequest[] = [];
  const bodies: unknown[] = [];
  const refused: WireServer["refused"] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const path = (req.url ?? "").split("?")[0]!;
      if (req.method === "GET" && Object.hasOwn(fixed, path)) {
        res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(fixed[path]));
        return;
      }
      const route = routes.find((r) => r.method === req.method && r.path === path);
      if (!route) {
        res.writeHead(404, { "content-type": "application/json" }).end("{}");
        return;
      }
      let request: WireRequest;
      try {
        const body: unknown = JSON.parse(Buffer.concat(chunks).toString("utf8"));
        bodies.push(body);
        request = route.format.parseRequest(body);
      } catch (error) {
        const status = error instanceof AppError ? error.status : 500;
        const code = error instanceof AppError ? error.code : "internal_error";
        const body = route.format.renderError(status, code, (error as Error).message);
        refused.push({ status, body });
        res.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify(body));
        return;
      }
      parsed.push(request);
      const answer = answers(parsed.length - 1, request);
      if (request.stream) {
        res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
        for (const event of route.format.renderStream(answer)) res.write(event);
        res.end();
      } else {
        res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(route.format.renderJson(answer)));
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    parsed,
    bodies,
    refused,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
