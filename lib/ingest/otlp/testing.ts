// Test helpers for the OTLP importer: reading the recorded fixtures.
import { existsSync, readFileSync, readdirSync } from "node:fs";
import path from "node:path";
import { decodeOtlpJson, decodeOtlpProtobuf, type OtlpSpan } from "./decode";
import { gunzipIfNeeded } from "./gzip";
import { decodeOtlpLogsJson, genAiLogEvents, withLogEvents } from "./logs";

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

/** The GenAI log records an instrumentation recording sent to /v1/logs (`__fixtures__/logs/<name>.json`), if any. */
export function logsOf(name: string): Uint8Array | null {
  const file = path.join(FIXTURES, "logs", `${name}.json`);
  return existsSync(file) ? new Uint8Array(readFileSync(file)) : null;
}

/** A recording's spans with the GenAI log events it sent among each span's events, as /v1/logs stores them. */
export function spansWithLogs(name: string, ext: "json" | "bin"): OtlpSpan[] {
  const spans = spansOf(recordings(ext).get(name)!);
  const body = logsOf(name);
  if (body === null) return spans;
  const decoded = decodeOtlpLogsJson(body);
  if (!decoded.ok) throw new Error(`${name} logs: ${JSON.stringify(decoded.issues)}`);
  const read = genAiLogEvents(decoded.records);
  if (!read.ok) throw new Error(`${name} logs: ${JSON.stringify(read.issues)}`);
  return spans.map((span) =>
    withLogEvents(
      span,
      read.events.filter((l) => l.traceId === span.traceId && l.spanId === span.spanId).map((l) => l.event),
    ),
  );
}
