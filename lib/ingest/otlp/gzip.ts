import { gunzipSync } from "node:zlib";
import type { ImportIssue } from "../types";

/** Bodies larger than this once inflated are refused (a gzip bomb guard). */
export const MAX_INFLATED_BYTES = 64 * 1024 * 1024;

export type GunzipResult = { ok: true; bytes: Uint8Array } | { ok: false; issue: ImportIssue };

/**
 * Inflates a request body sent with `Content-Encoding: gzip`, or one that
 * starts with the gzip magic bytes (some exporters compress without saying
 * so). Any other body comes back as it is.
 */
export function gunzipIfNeeded(body: Uint8Array, contentEncoding?: string | null): GunzipResult {
  const declared = (contentEncoding ?? "")
    .toLowerCase()
    .split(",")
    .map((s) => s.trim());
  const magic = body.length >= 2 && body[0] === 0x1f && body[1] === 0x8b;
  if (!magic && !declared.includes("gzip")) return { ok: true, bytes: body };
  if (!magic) {
    // Declared gzip but not gzip: some clients set the header on plain bodies.
    return { ok: true, bytes: body };
  }
  try {
    return { ok: true, bytes: new Uint8Array(gunzipSync(body, { maxOutputLength: MAX_INFLATED_BYTES })) };
  } catch (error) {
    return { ok: false, issue: { path: "", message: `the gzip body does not inflate: ${(error as Error).message}` } };
  }
}
