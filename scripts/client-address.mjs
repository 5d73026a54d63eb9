// Who is on the other end of a request, as far as this server can tell. The
// sign-in limit counts attempts per client address, so the address must not be
// something the client chooses: X-Forwarded-For is whatever the client sent
// unless a proxy we trust wrote it. The server (scripts/server.mjs) removes any
// client-sent CLIENT_ADDRESS_HEADER and sets it from the socket, or, when the
// socket is a proxy listed in BRANCHPOINT_TRUSTED_PROXIES, from the right-most
// X-Forwarded-For hop that is not one of those proxies. Plain JavaScript: the
// server runs it before any TypeScript is loaded.
import net from "node:net";

/** The header the app reads the client address from; only the server sets it. */
export const CLIENT_ADDRESS_HEADER = "x-branchpoint-client-ip";
/** Set in the server's own environment, so the app knows CLIENT_ADDRESS_HEADER was written by it and not by a client. */
export const SERVER_MARK = "BRANCHPOINT_SERVER_SETS_CLIENT_IP";

/** "::ffff:10.0.0.1" (IPv4 on a dual-stack socket) as "10.0.0.1"; null when not an IP address at all. */
export function normalizeAddress(value) {
  if (typeof value !== "string") return null;
  let v = value.trim();
  if (v.startsWith("[") && v.endsWith("]")) v = v.slice(1, -1);
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(v);
  if (mapped) v = mapped[1];
  return net.isIP(v) ? v.toLowerCase() : null;
}

/**
 * BRANCHPOINT_TRUSTED_PROXIES ("10.0.0.5, 10.1.0.0/16, fd00::/8") as a list to
 * check addresses against. Throws, naming the entry, on anything that is not
 * an address or a CIDR range.
 */
export function parseTrustedProxies(value) {
  const list = new net.BlockList();
  const entries = (value ?? "")
    .split(",")
    .map((e) => e.trim())
    .filter(Boolean);
  for (const entry of entries) {
    const [addr, prefix, extra] = entry.split("/");
    const ip = normalizeAddress(addr);
    const family = ip ? net.isIP(ip) : 0;
    const bits = prefix === undefined ? (family === 6 ? 128 : 32) : Number(prefix);
    if (!ip || extra !== undefined || !/^\d{1,3}$/.test(String(bits)) || bits > (family === 6 ? 128 : 32)) {
      throw new Error(
        `BRANCHPOINT_TRUSTED_PROXIES: "${entry}" is not an IP address or CIDR range (such as 10.0.0.5 or 10.1.0.0/16).`,
      );
    }
    list.addSubnet(ip, bits, family === 6 ? "ipv6" : "ipv4");
  }
  return { entries, list };
}

function isTrusted(trusted, ip) {
  return trusted.entries.length > 0 && trusted.list.check(ip, net.isIP(ip) === 6 ? "ipv6" : "ipv4");
}

/**
 * The client's address: the socket's peer, unless that peer is a trusted
 * proxy; then X-Forwarded-For is walked from the right (each trusted proxy
 * appends the address it got the request from) and the first hop that is not
 * a trusted proxy is the client. Hops to the left of it are the client's own
 * say and are ignored. A malformed hop stops the walk at the last address a
 * trusted proxy vouched for.
 */
export function clientAddress(remoteAddress, forwardedFor, trusted) {
  let address = normalizeAddress(remoteAddress) ?? "unknown";
  if (address === "unknown" || !isTrusted(trusted, address)) return address;
  const hops = (Array.isArray(forwardedFor) ? forwardedFor.join(",") : (forwardedFor ?? "")).split(",");
  for (let i = hops.length - 1; i >= 0; i--) {
    if (!hops[i].trim()) continue;
    const hop = normalizeAddress(hops[i]);
    if (!hop) return address;
    address = hop;
    if (!isTrusted(trusted, address)) return address;
  }
  return address;
}

/** Replaces whatever the client sent in CLIENT_ADDRESS_HEADER with the address this server determined. */
export function setClientAddress(req, trusted) {
  req.headers[CLIENT_ADDRESS_HEADER] = clientAddress(req.socket.remoteAddress, req.headers["x-forwarded-for"], trusted);
}
