"use client";

import { useEffect, useState } from "react";
import { runPlaygroundAction } from "@/lib/actions/playground";
import { Button } from "@/components/ui/Button";
import { Card } from "@/components/ui/Card";
import { Field, inputClass } from "@/components/ui/Field";
import { JsonBlock } from "@/components/ui/JsonBlock";
import { JsonEditor, preloadMonaco, type JsonEditorProps } from "@/components/ui/monaco";
import { Notice } from "@/components/ui/Notice";
import { formatCost } from "@/lib/format";
import { readEditedJson } from "@/lib/playground/edited-json";
import { runFailure, type RunFailure } from "@/lib/playground/run-errors";
import type { PlaygroundStep } from "@/lib/server/playground/playground";
import { Figures, PlaygroundRuns, type KeptRun } from "./PlaygroundRuns";

const pretty = (value: unknown) => JSON.stringify(value, null, 2) ?? "null";
/** The most runs a page keeps (the oldest go first). */
const KEPT_RUNS = 20;

/** The runs of this step, kept in the tab's session storage so a reload does not lose them. */
function useKeptRuns(key: string) {
  const [runs, setRuns] = useState<KeptRun[]>([]);
  useEffect(() => {
    try {
      const saved = window.sessionStorage.getItem(key);
      if (saved) setRuns(JSON.parse(saved) as KeptRun[]);
    } catch {
      // Storage unavailable or unreadable: the page starts with no runs.
    }
  }, [key]);
  const keep = (next: KeptRun[]) => {
    setRuns(next);
    try {
      if (next.length === 0) window.sessionStorage.removeItem(key);
      else window.sessionStorage.setItem(key, JSON.stringify(next));
    } catch {
      // Over the storage quota: the runs stay on the page until it is left.
    }
  };
  return [runs, keep] as const;
}

/** The temperature field's text as a number, null when empty (none is sent), or what is wrong with it. */
function readTemperature(text: string): { ok: true; value: number | null } | { ok: false; message: string } {
  if (text.trim() === "") return { ok: true, value: null };
  const value = Number(text);
  if (!Number.isFinite(value) || value < 0 || value > 2)
    return { ok: false, message: "Temperature: a number from 0 to 2, or empty to send none." };
  return { ok: true, value };
}

/** The endpoint picker, the model it calls and the temperature sent. */
function RequestFields({
  step,
  endpointId,
  onEndpoint,
  temperature,
  onTemperature,
  disabled,
}: {
  step: PlaygroundStep;
  endpointId: string;
  onEndpoint: (id: string) => void;
  temperature: string;
  onTemperature: (text: string) => void;
  disabled: boolean;
}) {
  const endpoint = step.endpoints.find((e) => e.id === endpointId) ?? null;
  return (
    <div className="grid gap-3 sm:grid-cols-2">
      <Field
        label="Model endpoint"
        hint={
          endpoint && !endpoint.hostAllowed ? "Its host is not on the allow-list: the call will be refused." : undefined
        }
      >
        <select
          className={inputClass}
          value={endpointId}
          onChange={(e) => onEndpoint(e.target.value)}
          disabled={disabled}
        >
          {step.endpoints.length === 0 ? <option value="">None configured</option> : null}
          {step.endpoints.map((e) => (
            <option key={e.id} value={e.id}>
              {e.name}
              {e.demo ? " (demo data only)" : ""}
            </option>
          ))}
        </select>
      </Field>
      <Field
        label="Model"
        hint={`Recorded: ${step.request.model ?? step.name}. The endpoint decides the model it calls.`}
      >
        <input className={inputClass} value={endpoint?.model ?? "—"} readOnly />
      </Field>
      <Field label="Temperature" hint="0 to 2; empty sends none (the endpoint's default).">
        <input
          className={inputClass}
          inputMode="decimal"
          value={temperature}
          onChange={(e) => onTemperature(e.target.value)}
        />
      </Field>
    </div>
  );
}

/** One of the request's JSON parts, edited under its heading (the editor is named by the label). */
function JsonSection({
  label,
  note,
  ...editor
}: { label: string; note?: string } & Omit<JsonEditorProps, "ariaLabel">) {
  return (
    <div>
      <h3 className="mb-1 text-xs font-medium text-slate-700">{note ? `${label} · ${note}` : label}</h3>
      <JsonEditor {...editor} ariaLabel={label} />
    </div>
  );
}

/** Why a run was not made or failed; the edits are untouched. */
function FailureNotice({ failure }: { failure: RunFailure }) {
  return (
    <Notice tone="error" title={failure.title} testId="playground-error">
      <p>{failure.message}</p>
      {failure.details.length > 0 ? (
        <ul className="mt-1 list-disc pl-5">
          {failure.details.map((d) => (
            <li key={d}>{d}</li>
          ))}
        </ul>
      ) : null}
      <p className="mt-1 text-xs">Your edits are as you left them.</p>
    </Notice>
  );
}

/**
 * The playground: the recorded request in editors (messages and tools as JSON, temperature as a field), the
 * endpoint picker and Run; the recorded answer and every run beside it. A refused run says why and leaves the
 * edits as they were.
 */
export function Playground({ step }: { step: PlaygroundStep }) {
  const recordedMessages = pretty(step.request.messages);
  const recordedTools = pretty(step.request.tools);
  const recordedTemperature = step.request.temperature === null ? "" : String(step.request.temperature);
  const [messages, setMessages] = useState(recordedMessages);
  const [tools, setTools] = useState(recordedTools);
  const [temperature, setTemperature] = useState(recordedTemperature);
  const [endpointId, setEndpointId] = useState(step.defaultEndpointId ?? "");
  const [failure, setFailure] = useState<RunFailure | null>(null);
  const [pending, setPending] = useState(false);
  const [runs, keepRuns] = useKeptRuns(`branchpoint:playground:${step.session.id}:${step.step}`);
  useEffect(preloadMonaco, []);

  const edited = messages !== recordedMessages || tools !== recordedTools || temperature !== recordedTemperature;
  const runnable = step.canRun && step.endpoints.length > 0;

  const run = async () => {
    const readMessages = readEditedJson(messages, "Messages");
    const readTools = readEditedJson(tools, "Tools");
    const readTemp = readTemperature(temperature);
    if (!readMessages.ok || !readTools.ok) {
      const message = !readMessages.ok ? readMessages.message : !readTools.ok ? readTools.message : "";
      return setFailure({ title: "The edited JSON is not valid", message, details: [] });
    }
    if (!readTemp.ok) return setFailure({ title: "The request was not sent", message: readTemp.message, details: [] });
    setPending(true);
    setFailure(null);
    try {
      const result = await runPlaygroundAction({
        sessionId: step.session.id,
        step: step.step,
        ...(endpointId ? { endpointId } : {}),
        request: {
          // Checked on the server (roles, sizes); the page sends what was typed.
          messages: readMessages.value as never,
          tools: readTools.value as never,
          temperature: readTemp.value,
        },
      });
      if (!result.ok) return setFailure(runFailure(result.error));
      const n = (runs[0]?.n ?? 0) + 1;
      const at = new Date().toISOString().slice(11, 19) + " UTC";
      keepRuns([{ ...result.data, n, at, edited }, ...runs].slice(0, KEPT_RUNS));
    } catch {
      setFailure({ title: "The run failed", message: "The server could not be reached; try again.", details: [] });
    } finally {
      setPending(false);
    }
  };

  const reset = () => {
    setMessages(recordedMessages);
    setTools(recordedTools);
    setTemperature(recordedTemperature);
    setFailure(null);
  };

  return (
    <div className="grid min-w-0 gap-4 lg:grid-cols-2">
      <Card title="Request" className="min-w-0">
        <div className="flex flex-col gap-4">
          {!step.canRun ? (
            <Notice tone="info">You can read this call; running it needs the analyst role.</Notice>
          ) : step.endpoints.length === 0 ? (
            <Notice tone="warning">
              No model endpoint is configured (Settings → Executors); an administrator adds one, then it can run here.
            </Notice>
          ) : null}
          <RequestFields
            step={step}
            endpointId={endpointId}
            onEndpoint={setEndpointId}
            temperature={temperature}
            onTemperature={setTemperature}
            disabled={!runnable}
          />
          <JsonSection
            label="Messages (JSON)"
            note='the system prompt is the message with role "system"'
            value={messages}
            onChange={setMessages}
            path="playground-messages.json"
            height={380}
          />
          <JsonSection
            label="Tools (JSON)"
            value={tools}
            onChange={setTools}
            path="playground-tools.json"
            height={200}
          />
          {Object.keys(step.request.other).length > 0 ? (
            <JsonBlock label="Other recorded parameters (not sent)" value={step.request.other} />
          ) : null}
          {failure ? <FailureNotice failure={failure} /> : null}
          <div className="flex flex-wrap items-center gap-2">
            <Button onClick={() => void run()} disabled={!runnable || pending}>
              {pending ? "Running…" : "Run"}
            </Button>
            <Button variant="secondary" onClick={reset} disabled={!edited || pending}>
              Back to the recorded request
            </Button>
            {edited ? <span className="text-xs text-slate-600">Edited</span> : null}
          </div>
        </div>
      </Card>
      <div className="flex min-w-0 flex-col gap-4">
        <Card title="Recorded answer">
          <div className="flex flex-col gap-3">
            <Figures
              durationMs={step.durationMs}
              inputTokens={step.usage.inputTokens}
              outputTokens={step.usage.outputTokens}
              cost={formatCost(step.usage.costUsd)}
            />
            {step.answer.error ? <JsonBlock label="Recorded error" value={step.answer.error} /> : null}
            <JsonBlock label="Recorded answer (assistant message)" value={step.answer.output} />
          </div>
        </Card>
        <PlaygroundRuns runs={runs} recorded={step.answer.output} onClear={() => keepRuns([])} />
      </div>
    </div>
  );
}
