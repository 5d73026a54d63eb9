import { importers } from "@/lib/ingest/registry";
import { Card } from "@/components/ui/Card";

const NOTES: Record<string, string> = {
  native: "Branchpoint's own session format, one session per document or one per line (JSONL).",
  "openai-chat": "OpenAI Chat message logs; τ-bench trajectory files import as they are.",
  "otlp-json": "A saved OTLP/HTTP JSON trace export: GenAI semantic conventions, AI SDK ai.* spans, OpenInference.",
  "openai-agents": "The OpenAI Agents SDK trace export body: traces with agent, generation and function spans.",
  langfuse:
    "Langfuse traces with their observations (generations, tools, spans, events), as Langfuse's public API returns a trace; one trace, an array or JSON Lines.",
  langsmith:
    "LangSmith runs, as its runs API returns them (flat with trace_id) or with child_runs nested; an array, { runs } or JSON Lines. One session per trace.",
  phoenix:
    "Arize Phoenix spans (OpenInference attributes), as its spans API returns them; an array, { data } or JSON Lines. One session per trace.",
  braintrust:
    "Braintrust project-log or experiment rows, as its BTQL or fetch API returns them; { data }, { events }, an array or JSON Lines. One session per trace (root_span_id).",
  "otlp-protobuf": "A saved OTLP/HTTP protobuf trace export (ExportTraceServiceRequest), gzipped or not.",
};

/** The formats a connector can also pull straight from the platform. */
const PULLED = new Set(["langfuse", "langsmith", "phoenix", "braintrust"]);

/** Accepted formats, the schema of the native one, and where live exporters send their traces. */
export function FormatReference({ baseUrl }: { baseUrl: string }) {
  return (
    <Card padding="lg" className="shadow-sm" aria-labelledby="formats">
      <h2 id="formats" className="font-semibold text-slate-900">
        Accepted formats
      </h2>
      <p className="mt-1 text-sm text-slate-600">
        The format of each file is detected; a file is imported whole or not at all.
      </p>
      <dl className="mt-3 space-y-3 text-sm">
        {importers.map((i) => (
          <div key={i.format}>
            <dt className="font-mono text-slate-900">{i.format}</dt>
            <dd className="text-slate-600">
              {NOTES[i.format] ?? i.label}
              {PULLED.has(i.format) ? (
                <>
                  {" "}
                  Or pull them from the platform:{" "}
                  <a href="/settings/connectors" className="text-indigo-700 underline">
                    Settings → Connectors
                  </a>
                </>
              ) : null}
              {i.format === "native" ? (
                <>
                  {" "}
                  <a href="/api/v1/schema/native-session.json" className="text-indigo-700 underline">
                    JSON Schema
                  </a>
                </>
              ) : null}
            </dd>
          </div>
        ))}
      </dl>
      <h3 className="mt-5 text-sm font-semibold text-slate-900">Sending traces live</h3>
      <ul className="mt-2 space-y-1 text-sm text-slate-600">
        <li>
          OpenTelemetry:{" "}
          <code className="font-mono break-all text-slate-800">
            OTEL_EXPORTER_OTLP_TRACES_ENDPOINT={baseUrl}/v1/traces
          </code>{" "}
          with{" "}
          <code className="font-mono break-all text-slate-800">OTEL_EXPORTER_OTLP_HEADERS=x-api-key=&lt;key&gt;</code>
        </li>
        <li>
          OpenAI Agents SDK: an <code className="font-mono break-all text-slate-800">OpenAITracingExporter</code> with
          endpoint <code className="font-mono break-all text-slate-800">{baseUrl}/v1/traces/ingest</code> and a
          Branchpoint key as its API key
        </li>
        <li>
          Scripts: <code className="font-mono break-all text-slate-800">POST {baseUrl}/api/v1/sessions</code> with{" "}
          <code className="font-mono break-all text-slate-800">Authorization: Bearer &lt;key&gt;</code>.{" "}
          <a href="/settings/api-keys" className="text-indigo-700 underline">
            Manage API keys
          </a>
        </li>
      </ul>
    </Card>
  );
}
