import { env } from "@/lib/env";

/**
 * Which Host a request may name: the DNS-rebinding guard. A web page on
 * evil.example can re-point its own name at 127.0.0.1 and then call this
 * server from the browser as "same origin" (its Origin and Host both say
 * evil.example). Answering only hosts we know closes that: IP literals and
 * `localhost` (a rebinding page cannot name those: its origin is its own
 * name), BRANCHPOINT_PUBLIC_URL's host, and BRANCHPOINT_ALLOWED_HOSTS.
 * X-Forwarded-Host is read only when BRANCHPOINT_TRUST_PROXY=on.
 *
 * Pure apart from reading the environment, so the proxy (and, later, auth
 * gating beside it) can call it for every request.
 */

export type HostSettings = {
  publicUrl?: string | undefined;
  allowedHosts: readonly string[];
  trustProxy: boolean;
};

export function hostSettingsFromEnv(): HostSettings {
  const e = env();
  return {
    publicUrl: e.BRANCHPOINT_PUBLIC_URL,
    allowedHosts: e.BRANCHPOINT_ALLOWED_HOSTS,
    trustProxy: e.BRANCHPOINT_TRUST_PROXY === "on",
  };
}

/** `Host` split into a lower-case name (brackets kept off IPv6) and port; null when it is not a host at all. */
export function parseHost(value: string): { name: string; port: string | null } | null {
  const v = value.trim().toLowerCase();
  const m = /^(\[[0-9a-f:.]+\]|[a-z0-9.-]+)(?::(\d{1,5}))?$/.exec(v);
  if (!m) return null;
  return { name: m[1]!.replace(/^\[|\]$/g, ""), port: m[2] ?? null };
}

const IPV4 = /^(25[0-5]|2[0-4]\d|1?\d?\d)(\.(25[0-5]|2[0-4]\d|1?\d?\d)){3}$/;

function isIpLiteral(name: string): boolean {
  return IPV4.test(name) || (name.includes(":") && /^[0-9a-f:.]+$/.test(name));
}

function matches(entry: string, host: { name: string; port: string | null }): boolean {
  const e = parseHost(entry);
  if (!e) return false;
  return e.name === host.name && (e.port === null || e.port === host.port);
}

export type HostVerdict = { ok: true } | { ok: false; host: string; reason: string };

/** The verdict on a request's headers. */
export function checkHost(headers: Headers, settings: HostSettings = hostSettingsFromEnv()): HostVerdict {
  const forwarded = settings.trustProxy ? headers.get("x-forwarded-host")?.split(",")[0]?.trim() : undefined;
  const raw = forwarded || headers.get("host");
  if (!raw) return { ok: false, host: "", reason: "The request names no Host." };
  const host = parseHost(raw);
  if (!host) return { ok: false, host: raw.slice(0, 100), reason: "The Host header is not a host name." };
  if (host.name === "localhost" || host.name.endsWith(".localhost") || isIpLiteral(host.name)) return { ok: true };
  const entries = [...settings.allowedHosts];
  if (settings.publicUrl && URL.canParse(settings.publicUrl)) entries.push(new URL(settings.publicUrl).host);
  if (entries.some((entry) => matches(entry, host))) return { ok: true };
  return {
    ok: false,
    host: raw.slice(0, 100),
    reason: `This server does not answer to the host "${raw.slice(0, 100)}". Open it at its own address, or add the name to BRANCHPOINT_ALLOWED_HOSTS (or set BRANCHPOINT_PUBLIC_URL).`,
  };
}
