/** The OTLP export bodies the benchmark sends: the recorded AI SDK 6 export repeated under fresh trace ids. */
import { readFileSync } from "node:fs";
import path from "node:path";

export const SESSIONS = 7;
export const TRACES_PER_SESSION = 100;

const FIXTURE = path.join(import.meta.dirname, "../lib/ingest/otlp/__fixtures__/ai6-generate.json");

function hex(n: number, width: number): string {
  return n.toString(16).padStart(width, "0");
}

/** One export body: a session of many traces, as an exporter would send it in one request. */
export function sessionBody(session: number, traceSeed = session, traces = TRACES_PER_SESSION): string {
  const template = readFileSync(FIXTURE, "utf8");
  const doc = JSON.parse(template) as { resourceSpans: { scopeSpans: { spans: unknown[] }[] }[] };
  const spans: unknown[] = [];
  for (let t = 0; t < traces; t++) {
    const traceId = `${hex(traceSeed + 1, 8)}${hex(t + 1, 8)}${"0".repeat(16)}`;
    // Each trace a minute after the one before, as an agent's turns come.
    const text = JSON.stringify(doc.resourceSpans[0]!.scopeSpans[0]!.spans)
      .replace(/"traceId":"[0-9a-f]{32}"/g, `"traceId":"${traceId}"`)
      .replace(
        /"(start|end)?[tT]imeUnixNano":"(\d+)"/g,
        (_m, which: string | undefined, ns: string) =>
          `"${which ? `${which}T` : "t"}imeUnixNano":"${BigInt(ns) + BigInt(t) * 60_000_000_000n}"`,
      )
      .replaceAll("session-ai6-generate", `bench-session-${session}`)
      // Each turn's tool calls get ids of their own, as a real agent's do.
      .replace(/call_(lookup|refund|time)_(\d+)/g, `call_$1_$2_${t}`);
    spans.push(...(JSON.parse(text) as unknown[]));
  }
  doc.resourceSpans[0]!.scopeSpans[0]!.spans = spans;
  return JSON.stringify(doc);
}
