/**
 * What may go on the executor allow-list: a host name, an IPv4 address or an
 * IPv6 address, each with an optional port. The outbound guard compares a
 * URL's host with these entries as exact strings, so anything else (`*`,
 * `__proto__`, a 5,000-character line) could never match a call and would only
 * mislead the person reading the list; it is refused with what is wrong.
 */
import { isIP } from "node:net";

export type AllowListEntry = { ok: true; host: string } | { ok: false; message: string };

const EXAMPLE = "Write a host name or host:port, such as api.example.com or 127.0.0.1:8080.";
const MAX_NAME = 253;
const MAX_LABEL = 63;
const LABEL = /^[a-z0-9](?:[a-z0-9-]*[a-z0-9])?$/;

/** A long input shown in a message is cut short: the message names the problem, it does not echo a page of text. */
function shown(text: string): string {
  return text.length > 60 ? `${text.slice(0, 60)}…` : text;
}

function problem(input: string, reason: string): AllowListEntry {
  return { ok: false, message: `"${shown(input.trim())}" is not a host: ${reason}. ${EXAMPLE}` };
}

/** Why a host name is not one (letters, digits and hyphens in parts of at most 63 between dots), or null. */
function nameProblem(name: string): string | null {
  if (name.length > MAX_NAME) return `it is ${name.length} characters long, and a host name has at most ${MAX_NAME}`;
  const labels = name.split(".");
  if (labels.some((l) => l === "")) return "it has an empty part between dots";
  for (const label of labels) {
    if (label.length > MAX_LABEL)
      return `the part "${shown(label)}" is ${label.length} characters long, and a part between dots has at most ${MAX_LABEL}`;
    if (/[^\x00-\x7f]/.test(label))
      return `"${shown(label)}" is not ASCII; write an international name in its xn-- form`;
    if (!LABEL.test(label))
      return `"${shown(label)}" cannot be part of a host name, which has only letters a–z, digits and hyphens (not first or last in a part)`;
  }
  // A name ending in a number is read as an IPv4 address by every URL parser, so it could never match a call.
  if (/^(?:\d+|0x[0-9a-f]*)$/.test(labels.at(-1)!)) return "a host name cannot end in a number";
  return null;
}

/**
 * Reads one allow-list entry as people type it (case-folded; an `http://` or
 * `https://` in front and a `/` after are dropped) and answers the form it is
 * stored and compared in: `api.example.com`, `127.0.0.1:8080`, `::1`,
 * `[::1]:8080` (IPv6 in its short form). Otherwise a message naming what is wrong.
 */
export function parseAllowListEntry(input: string): AllowListEntry {
  let text = input.trim().toLowerCase();
  if (text === "") return { ok: false, message: `The host is empty. ${EXAMPLE}` };
  const scheme = /^([a-z][a-z0-9+.-]*):\/\//.exec(text);
  if (scheme) {
    if (scheme[1] !== "http" && scheme[1] !== "https")
      return problem(input, "only http:// and https:// hosts are called");
    text = text.slice(scheme[0].length).replace(/\/$/, "");
  }
  if (/[/?#@\s]/.test(text))
    return problem(input, "an entry is a host and an optional port, with no path, query, user name or spaces");

  let host: string;
  let port: string | null = null;
  let ipv6 = false;
  const bracketed = /^\[([^\]]*)\](?::(.*))?$/.exec(text);
  if (bracketed) {
    host = bracketed[1]!;
    port = bracketed[2] ?? null;
    ipv6 = true;
  } else if (text.split(":").length > 2) {
    // Two colons or more: an IPv6 address, which takes a port only in brackets.
    host = text;
    ipv6 = true;
  } else {
    const colon = text.lastIndexOf(":");
    host = colon < 0 ? text : text.slice(0, colon);
    port = colon < 0 ? null : text.slice(colon + 1);
  }

  if (port !== null && !(/^\d{1,5}$/.test(port) && Number(port) >= 1 && Number(port) <= 65535))
    return problem(input, `the port "${shown(port)}" is not a number from 1 to 65535`);
  const withPort = (h: string) => (port === null ? h : `${h}:${Number(port)}`);

  if (ipv6) {
    if (isIP(host) !== 6 || host.includes("%"))
      return problem(input, `"${shown(host)}" is not an IPv6 address (write one with a port in brackets: [::1]:8080)`);
    // The short form URLs use: [0:0:0:0:0:0:0:1] and [::1] are one entry. Without a port it is stored bare, as the
    // outbound guard compares a URL's host name; with one, in brackets, as it compares host:port.
    const short = new URL(`http://[${host}]/`).hostname.slice(1, -1);
    return { ok: true, host: port === null ? short : `[${short}]:${Number(port)}` };
  }
  if (/^[\d.]+$/.test(host)) {
    if (isIP(host) !== 4) return problem(input, `"${shown(host)}" is not an IPv4 address (four numbers from 0 to 255)`);
    return { ok: true, host: withPort(host) };
  }
  const why = nameProblem(host);
  if (why) return problem(input, why);
  return { ok: true, host: withPort(host) };
}
