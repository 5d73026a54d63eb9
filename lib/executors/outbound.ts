/**
 * Outbound safety for live tool and model calls: a call may reach only hosts
 * on the allow-list, checked on the URL, again after DNS resolution (every
 * address the name resolves to), and again on every redirect. Loopback,
 * link-local (169.254.0.0/16, cloud metadata), private, carrier-grade NAT,
 * unique-local and other non-public addresses are refused unless an admin
 * allow-listed that address itself (or `localhost` for loopback). An IPv6
 * address that carries an IPv4 one (::ffff:127.0.0.1, ::127.0.0.1, 6to4,
 * NAT64, Teredo) is judged by the IPv4 address it carries. The connection goes to the address that was checked, so a second DNS answer
 * cannot swap it (DNS rebinding).
 */
import { lookup as dnsLookup } from "node:dns/promises";
import http from "node:http";
import https from "node:https";
import { BlockList, isIP } from "node:net";

const NON_PUBLIC = new BlockList();
for (const [net, prefix] of [
  ["0.0.0.0", 8],
  ["10.0.0.0", 8],
  ["100.64.0.0", 10],
  ["127.0.0.0", 8],
  ["169.254.0.0", 16],
  ["172.16.0.0", 12],
  ["192.0.0.0", 24],
  ["192.0.2.0", 24],
  ["192.168.0.0", 16],
  ["198.18.0.0", 15],
  ["198.51.100.0", 24],
  ["203.0.113.0", 24],
  ["224.0.0.0", 4],
  ["240.0.0.0", 4],
] as const)
  NON_PUBLIC.addSubnet(net, prefix, "ipv4");
for (const [net, prefix] of [
  ["::", 128],
  ["::1", 128],
  ["fc00::", 7],
  ["fe80::", 10],
  ["ff00::", 8],
  ["2001:db8::", 32],
  // NAT64 for local use (RFC 8215): an operator's own translator, never a public destination.
  ["64:ff9b:1::", 48],
] as const)
  NON_PUBLIC.addSubnet(net, prefix, "ipv6");

/** The eight 16-bit groups of an IPv6 address (a zone such as %eth0 dropped), or null when it is not one. */
function ipv6Groups(raw: string): number[] | null {
  let text = raw.replace(/%.*$/, "").toLowerCase();
  if (isIP(text) !== 6) return null;
  const dotted = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(text);
  if (dotted) {
    const [a, b, c, d] = dotted.slice(1).map(Number) as [number, number, number, number];
    text = `${text.slice(0, dotted.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head, tail] = text.split("::") as [string, string | undefined];
  const front = head === "" ? [] : head.split(":");
  const back = tail === undefined || tail === "" ? [] : tail.split(":");
  const zeros = tail === undefined ? [] : Array<string>(8 - front.length - back.length).fill("0");
  return [...front, ...zeros, ...back].map((g) => parseInt(g, 16));
}

const ipv4Of = (hi: number, lo: number) => `${hi >> 8}.${hi & 0xff}.${lo >> 8}.${lo & 0xff}`;

/**
 * The IPv4 addresses an IPv6 address carries, by the standard ways of
 * embedding one: IPv4-mapped (::ffff:a.b.c.d), IPv4-compatible (::a.b.c.d),
 * IPv4-translated (::ffff:0:a.b.c.d), NAT64 (64:ff9b::a.b.c.d), 6to4
 * (2002:AABB:CCDD::) and Teredo (2001:0:server:…:client, the client's bits
 * inverted). Traffic to such an address ends up at that IPv4 address, so it is
 * judged as that address: ::127.0.0.1 is loopback, whatever its spelling.
 */
function embeddedIPv4(g: readonly number[]): string[] {
  const zero = (from: number, to: number) => g.slice(from, to).every((x) => x === 0);
  if (zero(0, 5) && g[5] === 0xffff) return [ipv4Of(g[6]!, g[7]!)];
  if (zero(0, 6)) return [ipv4Of(g[6]!, g[7]!)];
  if (zero(0, 4) && g[4] === 0xffff && g[5] === 0) return [ipv4Of(g[6]!, g[7]!)];
  if (g[0] === 0x64 && g[1] === 0xff9b && zero(2, 6)) return [ipv4Of(g[6]!, g[7]!)];
  if (g[0] === 0x2002) return [ipv4Of(g[1]!, g[2]!)];
  if (g[0] === 0x2001 && g[1] === 0) return [ipv4Of(g[2]!, g[3]!), ipv4Of(g[6]! ^ 0xffff, g[7]! ^ 0xffff)];
  return [];
}

/** IPv4-mapped IPv6 (::ffff:10.0.0.1, ::ffff:a00:1) is the IPv4 address it carries; any other address stays as it is. */
function unmap(address: string): { address: string; family: 4 | 6 } {
  if (isIP(address) === 4) return { address, family: 4 };
  const g = ipv6Groups(address);
  if (g && g.slice(0, 5).every((x) => x === 0) && g[5] === 0xffff) return { address: ipv4Of(g[6]!, g[7]!), family: 4 };
  return { address, family: 6 };
}

/** Whether an address is public: neither it nor any IPv4 address it embeds is loopback, private, link-local or reserved. */
export function isPublicAddress(raw: string): boolean {
  if (isIP(raw) === 4) return !NON_PUBLIC.check(raw, "ipv4");
  const g = ipv6Groups(raw);
  // Not an address we can read: refused rather than guessed at.
  if (!g) return false;
  if (NON_PUBLIC.check(raw.replace(/%.*$/, ""), "ipv6")) return false;
  return embeddedIPv4(g).every((v4) => !NON_PUBLIC.check(v4, "ipv4"));
}

export class OutboundRefused extends Error {
  override name = "OutboundRefused";
}

export type Resolver = (hostname: string) => Promise<{ address: string; family: number }[]>;
const systemResolver: Resolver = (hostname) => dnsLookup(hostname, { all: true, verbatim: true });

function bare(hostname: string): string {
  return hostname.replace(/^\[|\]$/g, "").toLowerCase();
}

/**
 * Checks one URL against the allow-list and returns the address to connect
 * to. Throws OutboundRefused naming the host and why.
 */
export async function checkDestination(
  url: URL,
  allowed: ReadonlySet<string>,
  resolve: Resolver = systemResolver,
): Promise<{ address: string; family: 4 | 6 }> {
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    throw new OutboundRefused(`${url.protocol} URLs are not called; only http and https.`);
  }
  const hostname = bare(url.hostname);
  const listed = allowed.has(hostname) || allowed.has(url.host.toLowerCase());
  if (!listed)
    throw new OutboundRefused(`Host "${url.host}" is not on the executor allow-list (Settings → Executors).`);
  const literal = isIP(hostname) !== 0;
  let answers: { address: string; family: number }[];
  if (literal) answers = [{ address: hostname, family: isIP(hostname) }];
  else {
    try {
      answers = await resolve(hostname);
    } catch (error) {
      throw new OutboundRefused(
        `Host "${hostname}" could not be resolved: ${error instanceof Error ? error.message : String(error)}.`,
      );
    }
  }
  if (answers.length === 0) throw new OutboundRefused(`Host "${hostname}" has no address.`);
  for (const answer of answers) {
    if (isPublicAddress(answer.address)) continue;
    const { address } = unmap(answer.address);
    // A private address is fine only when the admin named it: the literal address (which is on the list, or the
    // URL would have been refused above), or localhost for loopback.
    const explicit =
      literal ||
      allowed.has(address) ||
      allowed.has(answer.address.toLowerCase()) ||
      (hostname === "localhost" && (address.startsWith("127.") || address === "::1"));
    if (!explicit) {
      const carried = address.includes(":") ? embeddedIPv4(ipv6Groups(address) ?? []) : [];
      const carries = carried.length > 0 ? ` (which carries ${carried.join(" and ")})` : "";
      throw new OutboundRefused(
        `Host "${hostname}" resolves to ${address}${carries}, a private, loopback or link-local address; allow-list that address itself to call it.`,
      );
    }
  }
  return unmap(answers[0]!.address);
}

/** `headers`: the final answer's headers (a rate-limited client reads Retry-After). */
export type OutboundResponse = { status: number; text: string; url: string; headers: http.IncomingHttpHeaders };

const MAX_REDIRECTS = 5;
const MAX_BODY = 20 * 1024 * 1024;

function requestOnce(
  url: URL,
  target: { address: string; family: 4 | 6 },
  init: { method: string; headers: Record<string, string>; body?: string; signal: AbortSignal },
): Promise<{ status: number; location: string | null; text: string; headers: http.IncomingHttpHeaders }> {
  return new Promise((resolvePromise, reject) => {
    const lib = url.protocol === "https:" ? https : http;
    const req = lib.request(
      url,
      {
        method: init.method,
        headers:
          init.body === undefined ? init.headers : { ...init.headers, "content-length": Buffer.byteLength(init.body) },
        signal: init.signal,
        // Connect to the address that was checked, never to a fresh DNS answer.
        lookup: (_hostname, options, callback) => {
          const cb = callback;
          if (options.all) cb(null, [{ address: target.address, family: target.family }]);
          else cb(null, target.address, target.family);
        },
      },
      (res) => {
        const chunks: Buffer[] = [];
        let size = 0;
        res.on("data", (chunk: Buffer) => {
          size += chunk.length;
          if (size > MAX_BODY) {
            req.destroy(new Error(`the answer is over ${MAX_BODY} bytes`));
            return;
          }
          chunks.push(chunk);
        });
        res.on("end", () => {
          const location = res.headers.location ?? null;
          resolvePromise({
            status: res.statusCode ?? 0,
            location,
            text: Buffer.concat(chunks).toString("utf8"),
            headers: res.headers,
          });
        });
        res.on("error", reject);
      },
    );
    req.on("error", reject);
    if (init.body !== undefined) req.write(init.body);
    req.end();
  });
}

/**
 * POSTs JSON to an allow-listed URL, following redirects only to
 * destinations that pass the same checks. 307/308 keep the method and body;
 * other redirects become a GET, as browsers do.
 */
export async function safeRequest(
  start: URL,
  init: { method: "POST" | "GET"; headers: Record<string, string>; body?: string; signal: AbortSignal },
  allowed: ReadonlySet<string>,
  resolve: Resolver = systemResolver,
): Promise<OutboundResponse> {
  let url = start;
  let method: string = init.method;
  let body = init.body;
  for (let hop = 0; ; hop++) {
    const target = await checkDestination(url, allowed, resolve);
    const answer = await requestOnce(url, target, { method, headers: init.headers, body, signal: init.signal });
    if (answer.status >= 300 && answer.status < 400 && answer.location) {
      if (hop >= MAX_REDIRECTS) throw new OutboundRefused(`More than ${MAX_REDIRECTS} redirects from ${start.origin}.`);
      const next = new URL(answer.location, url);
      if (answer.status !== 307 && answer.status !== 308) {
        method = "GET";
        body = undefined;
      }
      url = next;
      continue;
    }
    return { status: answer.status, text: answer.text, url: url.toString(), headers: answer.headers };
  }
}
