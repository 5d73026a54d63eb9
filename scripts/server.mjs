// The production server: Next's request handler inside a plain Node HTTP
// server, so the app can know each client's address. Next's own server keeps
// an X-Forwarded-For the client sent, and route handlers never see the socket;
// here every request first gets CLIENT_ADDRESS_HEADER from the socket (or from
// the proxies in BRANCHPOINT_TRUSTED_PROXIES), replacing any value the client
// sent (scripts/client-address.mjs). Otherwise it is `next start`: HOST, PORT
// (default 127.0.0.1:3000), the build in NEXT_DIST_DIR (default .next).
import http from "node:http";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { SERVER_MARK, parseTrustedProxies, setClientAddress } from "./client-address.mjs";

process.env.NODE_ENV ??= "production";
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const hostname = process.env.HOST || "127.0.0.1";
const port = Number(process.env.PORT || "3000");
process.env.PORT = String(port);

let trusted;
try {
  trusted = parseTrustedProxies(process.env.BRANCHPOINT_TRUSTED_PROXIES);
} catch (error) {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
}
// The app reads CLIENT_ADDRESS_HEADER only when this server wrote it (lib/http/client-address.ts).
process.env[SERVER_MARK] = "1";

const { default: next } = await import("next");
const app = next({ dev: false, dir: root, hostname, port });
const handle = app.getRequestHandler();
await app.prepare();

const server = http.createServer((req, res) => {
  setClientAddress(req, trusted);
  void handle(req, res);
});
// Idle keep-alive connections stay open 65 s, past the 60 s of common load balancers and clients' pools: closed at
// Node's 5 s, a client reusing one at that moment gets ECONNRESET.
server.keepAliveTimeout = 65_000;
server.listen(port, hostname, () => {
  const shown = hostname.includes(":") ? `[${hostname}]` : hostname;
  // From `npm start` (scripts/start.sh): the seconds since it began, build included.
  const t0 = Number(process.env.BRANCHPOINT_START_T0);
  const since = Number.isFinite(t0) && t0 > 0 ? ` (${Math.round(Date.now() / 1000 - t0)} s after npm start)` : "";
  console.log(`Branchpoint is listening on http://${shown}:${port}${since}`);
  // Load the sign-in and set-up pages' code now rather than on the first visit (a cold first page took seconds).
  for (const warm of ["/sign-in", "/setup"]) {
    http
      .get({ host: hostname, port, path: warm, headers: { "user-agent": "branchpoint-warm-up" } }, (r) => r.resume())
      .on("error", () => undefined);
  }
});
const stop = () => {
  server.close(() => process.exit(0));
  server.closeIdleConnections();
  setTimeout(() => process.exit(0), 5_000).unref();
};
process.on("SIGTERM", stop);
process.on("SIGINT", stop);
