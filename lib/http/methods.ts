import type { IncomingMessage, Server, ServerResponse } from "node:http";
import { errorBody } from "@/lib/errors";

/** The methods some route has; anything else gets 405 with an Allow header. */
export const METHODS = new Set(["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"]);

/**
 * Answers 405 at the Node server for a method no route has, before Next sees
 * it: Next builds a fetch `Request` for the proxy, and fetch refuses TRACE,
 * TRACK and CONNECT with a TypeError, a 500 the proxy's own check never gets
 * to turn into a 405. Installed once from instrumentation.ts.
 */
export function installMethodGuard(server: typeof Server) {
  const proto = server.prototype as Server & { __branchpointMethodGuard?: true };
  if (proto.__branchpointMethodGuard) return;
  // Called below with the server as `this`.
  // eslint-disable-next-line @typescript-eslint/unbound-method
  const emit = proto.emit;
  proto.emit = function (this: Server, event: string | symbol, ...args: unknown[]) {
    if (event === "request") {
      const [req, res] = args as [IncomingMessage, ServerResponse];
      if (!METHODS.has(req.method ?? "")) {
        const body = JSON.stringify(
          errorBody("method_not_allowed", `The method ${(req.method ?? "").slice(0, 20)} is not supported.`),
        );
        res.writeHead(405, {
          allow: [...METHODS].join(", "),
          "content-type": "application/json",
          "content-length": Buffer.byteLength(body),
          "x-content-type-options": "nosniff",
          "content-security-policy": "default-src 'none'; frame-ancestors 'none'",
        });
        res.end(body);
        req.resume();
        return true;
      }
    }
    return Reflect.apply(emit, this, [event, ...args]) as boolean;
  } as typeof proto.emit;
  proto.__branchpointMethodGuard = true;
}
