// Test helpers for the OTLP importer: reading the recorded fixtures.
import { readFileSync, readdirSync } from "node:fs";
import path from "node:path";
import { decodeOtlpJson, decodeOtlpProtobuf, type OtlpSpan } from "./decode";
import { gunzipIfNeeded } from "./gzip";

export const FIXTURES = path.join(path.dirname(new URL(import.meta.url).pathname), "__fixtures__");

/** The recordings: base name → the files of its export requests (one or several POST bodies). */
export function recordings(ext: "json" | "bin"): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const file of readdirSync(FIXTURES).sort()) {
    if (!file.endsWith(`.${ext}`)) continue;
    const base = file.replace(/(\.\d+)?\.(json|bin)$/, "");
    out.set(base, [...(out.get(base) ?? []), path.join(FIXTURES, file)]);
  }
  return out;
}

export function spansOf(files: readonly string[]): OtlpSpan[] {
  return files.flatMap((file) => {
    const bytes = new Uint8Array(readFileSync(file));
    let decoded;
    if (file.endsWith(".bin")) {
      const inflated = gunzipIfNeeded(bytes, "gzip");
      if (!inflated.ok) throw new Error(`${file}: ${inflated.issue.message}`);
      decoded = decodeOtlpProtobuf(inflated.bytes);
    } else decoded = decodeOtlpJson(bytes);
    if (!decoded.ok) throw new Error(`${file}: ${JSON.stringify(decoded.issues)}`);
    return decoded.spans;
  });
}
