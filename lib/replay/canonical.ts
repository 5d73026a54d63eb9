import canonicalize from "canonicalize";
import { sha256 } from "@noble/hashes/sha2.js";
import { bytesToHex, utf8ToBytes } from "@noble/hashes/utils.js";

/**
 * RFC 8785 (JCS) canonical JSON of a value, or `undefined` when the value has
 * no canonical form: `undefined`, NaN, ±Infinity, a cycle, a lone surrogate,
 * or a function/symbol at the top level.
 */
export function canonicalJson(value: unknown): string | undefined {
  if (value === undefined) return undefined;
  try {
    const text = canonicalize(value);
    return typeof text === "string" ? text : undefined;
  } catch {
    return undefined;
  }
}

const HEX_DIGITS = utf8ToBytes("0123456789abcdef");
const hexBuffer = new Uint8Array(64);
const latin1 = new TextDecoder("latin1");

/** Lowercase hex of a SHA-256 digest, as one flat string (cheap to hash as a Map key, unlike a concatenated one). */
function digestHex(digest: Uint8Array): string {
  if (digest.length !== 32) return bytesToHex(digest);
  for (let i = 0; i < 32; i++) {
    const byte = digest[i]!;
    hexBuffer[2 * i] = HEX_DIGITS[byte >> 4]!;
    hexBuffer[2 * i + 1] = HEX_DIGITS[byte & 15]!;
  }
  return latin1.decode(hexBuffer);
}

/** SHA-256 of a string's UTF-8 bytes, as lowercase hex. */
export type Sha256Hasher = (text: string) => string;

/** The pure-JS hasher (@noble/hashes): what browser code uses, and the fallback anywhere without node:crypto. */
export const pureSha256Hex: Sha256Hasher = (text) => digestHex(sha256(utf8ToBytes(text)));

interface NodeCryptoLike {
  hash?: (algorithm: string, data: string, encoding: "hex") => string;
  createHash: (algorithm: string) => { update: (data: string) => { digest: (encoding: "hex") => string } };
}

/**
 * node:crypto's SHA-256 when running on Node (about twice as fast as the
 * pure-JS one, and no garbage per call), reached through
 * `process.getBuiltinModule` so that no bundler sees an import: in a browser
 * there is no such function and the pure-JS hasher is used. Same digest either way.
 */
function nodeSha256(): Sha256Hasher | null {
  const proc = (globalThis as { process?: { getBuiltinModule?: (id: string) => unknown } }).process;
  let crypto: NodeCryptoLike | undefined;
  try {
    crypto = proc?.getBuiltinModule?.("node:crypto") as NodeCryptoLike | undefined;
  } catch {
    return null;
  }
  if (!crypto || typeof crypto.createHash !== "function") return null;
  const oneShot = crypto.hash;
  if (typeof oneShot === "function") return (text) => oneShot("sha256", text, "hex");
  const createHash = crypto.createHash;
  return (text) => createHash("sha256").update(text).digest("hex");
}

const defaultHasher: Sha256Hasher = nodeSha256() ?? pureSha256Hex;
let hasher: Sha256Hasher = defaultHasher;

/**
 * Injects the SHA-256 implementation every key and content hash uses (null
 * restores the default: node:crypto on Node, pure JS elsewhere). A hasher must
 * return the same lowercase hex digest; only its speed may differ.
 */
export function setSha256Hasher(next: Sha256Hasher | null): void {
  hasher = next ?? defaultHasher;
}

/** Which hasher is in use, for benches and diagnostics. */
export function sha256HasherName(): "node:crypto" | "pure-js" | "injected" {
  return hasher === pureSha256Hex ? "pure-js" : hasher === defaultHasher ? "node:crypto" : "injected";
}

export function sha256Hex(text: string): string {
  return hasher(text);
}

/**
 * The identity of a tool call, the same as Kitaru's so exported history
 * rules match the same calls there: SHA-256 over the tool name and the
 * canonical JSON of its arguments. Arguments that are null or absent, or that
 * cannot be canonicalized (NaN, Infinity, cycles), have no cache key: a
 * history lookup cannot match such a call and goes straight to `on_miss`.
 */
export function cacheKey(toolName: string, args: unknown): string | null {
  if (args === null || args === undefined) return null;
  const canonicalArgs = canonicalJson(args);
  if (canonicalArgs === undefined) return null;
  // The name is canonicalized too, so "a" + '{"b"...' can never collide with
  // another split of the same characters.
  return sha256Hex(`${JSON.stringify(toolName)}\n${canonicalArgs}`);
}

/** Content hash of any JSON document (policies, snapshots): sha256 of its JCS form. */
export function contentHash(value: unknown): string {
  const text = canonicalJson(value);
  if (text === undefined) throw new TypeError("value has no canonical JSON form");
  return sha256Hex(text);
}
