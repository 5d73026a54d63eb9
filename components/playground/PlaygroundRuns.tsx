"use client";

import { useState } from "react";
import { Badge } from "@/components/ui/Badge";
import { Button } from "@/components/ui/Button";
import { Card } from "@/components/ui/Card";
import { JsonBlock } from "@/components/ui/JsonBlock";
import { JsonDiff } from "@/components/ui/monaco";
import { deepEqual } from "@/lib/replay";
import { formatDuration, formatTokens } from "@/lib/format";
import { formatMicrosUsd } from "@/lib/prices/prices";
import type { PlaygroundRun } from "@/lib/server/playground/playground";

/** A run as the page keeps it: the server's answer, its number on this page and when it came. */
export type KeptRun = PlaygroundRun & { n: number; at: string; edited: boolean };

const pretty = (value: unknown) => JSON.stringify(value, null, 2) ?? "null";

/** The figures of one answer: latency, tokens in and out, cost. */
export function Figures({
  durationMs,
  inputTokens,
  outputTokens,
  cost,
}: {
  durationMs: number | null;
  inputTokens: number | null;
  outputTokens: number | null;
  cost: string;
}) {
  return (
    <dl className="flex flex-wrap gap-x-4 gap-y-1 text-xs text-slate-600" data-testid="figures">
      <div className="flex gap-1">
        <dt>latency</dt>
        <dd className="font-medium text-slate-900 tabular-nums">{formatDuration(durationMs)}</dd>
      </div>
      <div className="flex gap-1">
        <dt>tokens in / out</dt>
        <dd className="font-medium text-slate-900 tabular-nums">
          {formatTokens(inputTokens)} / {formatTokens(outputTokens)}
        </dd>
      </div>
      <div className="flex gap-1">
        <dt>cost</dt>
        <dd className="font-medium text-slate-900 tabular-nums">{cost}</dd>
      </div>
    </dl>
  );
}

/** One run: its endpoint and figures, its answer, and the folded diff against the recorded answer when open. */
function RunEntry({
  run,
  recorded,
  open,
  onToggle,
}: {
  run: KeptRun;
  recorded: unknown;
  open: boolean;
  onToggle: (open: boolean) => void;
}) {
  const same = deepEqual(run.output, recorded);
  return (
    <li>
      <details
        open={open}
        onToggle={(e) => onToggle(e.currentTarget.open)}
        className="group rounded-md border border-slate-200 bg-white"
        data-testid="playground-run"
      >
        <summary className="flex cursor-pointer flex-wrap items-center gap-2 px-3 py-2 text-sm">
          <span className="font-medium text-slate-900">Run {run.n}</span>
          <span className="text-slate-600">
            {run.endpoint.name}
            {run.model !== run.endpoint.name ? (
              <>
                {" "}
                · <code className="font-mono text-xs">{run.model}</code>
              </>
            ) : null}
          </span>
          {run.edited ? <Badge tone="warn">edited request</Badge> : <Badge>as recorded</Badge>}
          {same ? <Badge tone="good">same answer</Badge> : <Badge tone="info">answer differs</Badge>}
          <span className="ml-auto text-xs text-slate-500 tabular-nums">{formatDuration(run.durationMs)}</span>
        </summary>
        {open ? (
          <div className="flex flex-col gap-3 border-t border-slate-200 px-3 py-3">
            <Figures
              durationMs={run.durationMs}
              inputTokens={run.usage.inputTokens}
              outputTokens={run.usage.outputTokens}
              cost={run.costMicros === null ? "no price for this model" : formatMicrosUsd(run.costMicros)}
            />
            <JsonBlock label={`Answer of run ${run.n}`} value={run.output} />
            {same ? (
              <p className="text-sm text-slate-600">The answer is the recorded one, exactly.</p>
            ) : (
              <div data-testid="playground-diff">
                <h3 className="mb-1 text-xs font-medium text-slate-700">Recorded answer → run {run.n}</h3>
                <JsonDiff
                  original={pretty(recorded)}
                  modified={pretty(run.output)}
                  height={260}
                  focusChanges
                  sides={{ original: "Recorded answer", modified: `Answer of run ${run.n}` }}
                />
              </div>
            )}
            <p className="text-xs text-slate-500">
              Sent {run.sent.messages} messages and {run.sent.tools} tools
              {run.sent.temperature === null ? ", no temperature" : `, temperature ${run.sent.temperature}`} · at{" "}
              {run.at}
            </p>
          </div>
        ) : null}
      </details>
    </li>
  );
}

/** The runs made on this page, newest first; the newest opens with its diff. */
export function PlaygroundRuns({
  runs,
  recorded,
  onClear,
}: {
  runs: KeptRun[];
  recorded: unknown;
  onClear: () => void;
}) {
  const [opened, setOpened] = useState<Record<number, boolean>>({});
  const newest = runs[0]?.n;
  return (
    <Card
      title={`Runs (${runs.length})`}
      actions={
        runs.length > 0 ? (
          <Button variant="ghost" size="sm" onClick={onClear}>
            Clear runs
          </Button>
        ) : null
      }
    >
      {runs.length === 0 ? (
        <p className="text-sm text-slate-600">
          No run yet. Runs stay listed here while this browser tab is open (nothing is stored on the server).
        </p>
      ) : (
        <ol className="flex flex-col gap-2" aria-label="Runs">
          {runs.map((run) => (
            <RunEntry
              key={run.n}
              run={run}
              recorded={recorded}
              open={opened[run.n] ?? run.n === newest}
              onToggle={(open) => setOpened((o) => (o[run.n] === open ? o : { ...o, [run.n]: open }))}
            />
          ))}
        </ol>
      )}
    </Card>
  );
}
