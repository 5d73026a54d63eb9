"use client";

import { useQuery, useQueryClient, type QueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { replayStepAction, replayStepsAction } from "@/lib/actions/replays";
import { INPUT_ONLY_LABEL } from "@/components/counterfactual/labels";
import { Badge, StatusBadge } from "@/components/ui/Badge";
import { JsonBlock } from "@/components/ui/JsonBlock";
import { useWindowList, virtualItemStyle } from "@/components/ui/useWindowList";
import { WindowPending } from "@/components/ui/WindowPending";
import type { ReplayStepSummary } from "@/lib/session-view/replay-steps";
import { Card } from "@/components/ui/Card";

const SOURCE_TONE: Record<string, "neutral" | "info" | "warn" | "bad" | "good"> = {
  recorded: "neutral",
  static: "info",
  fixture: "info",
  edit: "info",
  live: "warn",
  llm: "warn",
  provider_fixture: "warn",
  error_result: "bad",
  blocked: "bad",
};
const GRID = "grid grid-cols-[3.5rem_11rem_6.5rem_14rem_minmax(0,1fr)] items-center gap-x-2";
const LIST_HEIGHT = "70vh";
/** Estimated height of one step row, until its window is measured. */
const PER_STEP = 31;
/** Windows of steps kept in the browser after they scroll away (they load again when scrolled back to). */
const WINDOW_GC_MS = 30_000;
/** Step bodies kept in the browser: the newest ones, the rest dropped (they load again when opened). */
const BODIES_KEPT = 40;

/**
 * The branch's steps with where each came from, virtualized by window: the
 * windows on screen (and one either side) are in the page, the others load as
 * they scroll into view; a step's inputs and outputs load when it is opened.
 */
export function ReplayStepList({
  replayId,
  version,
  count,
  window: perWindow,
  initial,
  openSeq,
}: {
  replayId: string;
  /** Changes when the replay's steps may have (a resume re-runs the branch): windows loaded before are not reused. */
  version: string;
  /** Steps of the branch. */
  count: number;
  /** Steps per window. */
  window: number;
  /** The window rendered with the page. */
  initial: { cursor: number; steps: ReplayStepSummary[] };
  /** A deep link to one step (`?step=`): the list opens there, with the step open. */
  openSeq: number | null;
}) {
  const { parentRef, virtualizer } = useWindowList({
    windows: Math.ceil(count / perWindow),
    windowHeight: perWindow * PER_STEP,
    startWindow: openSeq === null ? 0 : Math.floor(openSeq / perWindow),
    focusSeq: openSeq,
  });
  return (
    // On a narrow screen the columns scroll sideways inside the box, header and rows together; the page does not.
    <Card as="div" padding="none" className="overflow-x-auto">
      <div className="min-w-[44rem]">
        <div className={`${GRID} border-b border-slate-200 bg-slate-50 px-3 py-1.5 text-xs font-medium text-slate-600`}>
          <span>Step</span>
          <span>Call</span>
          <span>Source</span>
          <span>Base</span>
          <span>Result</span>
        </div>
        <div
          ref={parentRef}
          style={{ maxHeight: LIST_HEIGHT }}
          className="overflow-auto"
          data-testid="replay-steps"
          role="region"
          aria-label="Branch steps"
        >
          <div style={{ height: virtualizer.getTotalSize(), position: "relative" }}>
            {virtualizer.getVirtualItems().map((v) => (
              <div key={v.key} data-index={v.index} ref={virtualizer.measureElement} style={virtualItemStyle(v.start)}>
                <StepsWindow
                  replayId={replayId}
                  version={version}
                  cursor={v.index * perWindow}
                  perWindow={perWindow}
                  initial={initial}
                  openSeq={openSeq}
                />
              </div>
            ))}
          </div>
        </div>
      </div>
    </Card>
  );
}

function StepsWindow({
  replayId,
  version,
  cursor,
  perWindow,
  initial,
  openSeq,
}: {
  replayId: string;
  version: string;
  cursor: number;
  perWindow: number;
  initial: { cursor: number; steps: ReplayStepSummary[] };
  openSeq: number | null;
}) {
  const { data, error } = useQuery({
    queryKey: ["replay-steps", replayId, version, cursor, perWindow],
    staleTime: Infinity,
    gcTime: WINDOW_GC_MS,
    initialData: initial.cursor === cursor ? initial.steps : undefined,
    queryFn: async () => {
      const result = await replayStepsAction({ replayId, cursor, limit: perWindow });
      if (!result.ok) throw new Error(result.error.message);
      return result.data.steps;
    },
  });
  if (!data) return <WindowPending error={error} height={perWindow * PER_STEP} />;
  return data.map((s) => (
    <StepRow key={s.seq} replayId={replayId} version={version} step={s} initiallyOpen={s.seq === openSeq} />
  ));
}

function StepRow({
  replayId,
  version,
  step: s,
  initiallyOpen,
}: {
  replayId: string;
  version: string;
  step: ReplayStepSummary;
  initiallyOpen: boolean;
}) {
  const [open, setOpen] = useState(initiallyOpen);
  return (
    <details
      id={`step-${s.seq}`}
      open={initiallyOpen || undefined}
      onToggle={(e) => setOpen(e.currentTarget.open)}
      className="border-b border-slate-100"
      data-testid="replay-step"
      data-seq={s.seq}
    >
      <summary className={`${GRID} cursor-pointer px-3 py-1.5 text-sm hover:bg-slate-50`}>
        <span className="font-mono text-xs text-slate-500">{s.seq}</span>
        <span className="truncate">
          <span className="text-xs text-slate-500">{s.kind.replace("_call", "").replace("_", " ")}</span>{" "}
          <span className="font-mono text-xs">{s.name}</span>
        </span>
        <span>
          <Badge tone={SOURCE_TONE[s.source] ?? "neutral"}>{s.source}</Badge>
        </span>
        <span className="text-xs">
          {s.equalsBase ? (
            <span className="text-slate-500">= {s.baseSeq}</span>
          ) : s.inputOnly ? (
            <Badge
              tone="neutral"
              title={`Its input differs from base step ${s.baseSeq}; its output is the recorded one`}
            >
              {INPUT_ONLY_LABEL}
            </Badge>
          ) : (
            <Badge tone="warn">{s.baseSeq === null ? "new" : `≠ ${s.baseSeq}`}</Badge>
          )}
        </span>
        <span className="truncate font-mono text-xs text-slate-700">
          {s.status === "failed" ? <StatusBadge status="failed" /> : null} {s.preview}
        </span>
      </summary>
      {open ? <StepBody replayId={replayId} version={version} seq={s.seq} /> : null}
    </details>
  );
}

function keepRecentBodies(client: QueryClient, replayId: string) {
  const bodies = client
    .getQueryCache()
    .findAll({ queryKey: ["replay-step", replayId] })
    .sort((a, b) => b.state.dataUpdatedAt - a.state.dataUpdatedAt);
  for (const q of bodies.slice(BODIES_KEPT))
    if (q.getObserversCount() === 0) client.removeQueries({ queryKey: q.queryKey, exact: true });
}

/** One step whole, loaded when it is opened. */
function StepBody({ replayId, version, seq }: { replayId: string; version: string; seq: number }) {
  const client = useQueryClient();
  const { data: step, error } = useQuery({
    queryKey: ["replay-step", replayId, version, seq],
    staleTime: Infinity,
    gcTime: WINDOW_GC_MS,
    queryFn: async () => {
      const result = await replayStepAction({ replayId, seq });
      if (!result.ok) throw new Error(result.error.message);
      keepRecentBodies(client, replayId);
      return result.data;
    },
  });
  if (error)
    return (
      <p role="alert" className="border-t border-slate-100 px-3 py-3 text-sm text-rose-700">
        {error.message}
      </p>
    );
  if (!step) return <p className="border-t border-slate-100 px-3 py-3 text-sm text-slate-500">Loading the step…</p>;
  return (
    <div className="grid gap-3 border-t border-slate-100 px-3 py-3 md:grid-cols-2" data-testid="replay-step-body">
      {step.kind === "tool_call" ? (
        <>
          <JsonBlock label="Arguments" value={(step.input as { args?: unknown } | null)?.args ?? null} />
          {step.error ? (
            <JsonBlock label="Error" value={step.error} />
          ) : (
            <JsonBlock label="Result" value={step.output} />
          )}
        </>
      ) : step.kind === "model_call" ? (
        <>
          <JsonBlock label="Output (assistant message)" value={step.output} />
          <JsonBlock
            label={`Input (${(step.input as { messages?: unknown[] } | null)?.messages?.length ?? 0} messages)`}
            value={step.input}
          />
        </>
      ) : (
        <div className="md:col-span-2">
          <JsonBlock label={step.kind === "final_output" ? "Answer" : "Message"} value={step.output ?? step.input} />
        </div>
      )}
      {step.notes && step.notes.length > 0 ? (
        <ul className="list-disc pl-5 text-xs text-slate-600 md:col-span-2">
          {step.notes.map((n) => (
            <li key={n}>{n}</li>
          ))}
        </ul>
      ) : null}
    </div>
  );
}
