import { gunzipSync } from "node:zlib";
import type { ImportIssue } from "../types";

/**
 * Bodies larger than this once inflated are refused (a gzip bomb guard), by
 * default; the server passes its own limit (BRANCHPOINT_MAX_INFLATED_BYTES).
 * Kept apart from the body limit: 460 KB of gzip can inflate to 60 MB.
 */
export const MAX_INFLATED_BYTES = 20 * 1024 * 1024;

export type GunzipResult = { ok: true; bytes: Uint8Array } | { ok: false; issue: ImportIssue; tooLarge?: true };

/**
 * Inflates a request body sent with `Content-Encoding: gzip`, or one that
 * starts with the gzip magic bytes (some exporters compress without saying
 * so). Any other body comes back as it is.
 */
export function gunzipIfNeeded(
  body: Uint8Array,
  contentEncoding?: string | null,
  maxInflatedBytes = MAX_INFLATED_BYTES,
): GunzipResult {
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
    return { ok: true, bytes: new Uint8Array(gunzipSync(body, { maxOutputLength: maxInflatedBytes })) };
  } catch (error) {
    if ((error as { code?: unknown }).code === "ERR_BUFFER_TOO_LARGE")
      return {
        ok: false,
        tooLarge: true,
        issue: { path: "", message: `the gzip body inflates to more than ${maxInflatedBytes} bytes, the limit` },
      };
    return { ok: false, issue: { path: "", message: `the gzip body does not inflate: ${(error as Error).message}` } };
  }
}
