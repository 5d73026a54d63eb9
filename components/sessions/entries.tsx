"use client";

import { useQuery, useQueryClient, type QueryClient } from "@tanstack/react-query";
import Link from "next/link";
import { useState, type ReactNode } from "react";
import { sessionStepAction } from "@/lib/actions/sessions";
import { Markdown } from "@/components/reports/Markdown";
import { Badge, StatusBadge } from "@/components/ui/Badge";
import { JsonBlock } from "@/components/ui/JsonBlock";
import { formatCost, formatDuration, formatTokens, plural } from "@/lib/format";
import type { SessionEvent } from "@/lib/replay";
import type { ChatItem, ChatToolCall } from "@/lib/session-view/conversation";
import type { StepSummary } from "@/lib/session-view/steps";
import type { TimelineNode } from "@/lib/session-view/timeline";
import type { WaterfallRow } from "@/lib/session-view/waterfall";

/** "Expand all" / "Collapse all": each press a new epoch, which every entry on screen (and scrolled to later) follows. */
export type OpenAll = { open: boolean; epoch: number };

const ROLE_STYLE = {
  system: "border-slate-300 bg-slate-100",
  user: "border-amber-200 bg-amber-50",
  assistant: "border-indigo-200 bg-white",
} as const;

/** A full-width entry of the conversation that is not a turn of its own (a tool's result, the final answer). */
function ChatBox({
  className,
  role,
  head,
  children,
}: {
  className: string;
  role: string;
  head: ReactNode;
  children: ReactNode;
}) {
  return (
    <div className={`rounded-md border px-3 py-2 ${className}`} data-testid="chat-item" data-role={role}>
      {head}
      {children}
    </div>
  );
}

export function ChatEntry({ item, openAll }: { item: ChatItem; openAll: OpenAll }) {
  if (item.type === "tool_result")
    return (
      <ChatBox
        className="ml-8 border-slate-200 bg-white"
        role="tool"
        head={
          <div className="mb-1 text-xs text-slate-500">
            tool result {item.name ? <span className="font-mono">{item.name}</span> : null} · step #{item.seq}
          </div>
        }
      >
        <pre className="max-h-64 overflow-auto font-mono text-xs break-words whitespace-pre-wrap">{item.text}</pre>
      </ChatBox>
    );
  if (item.type === "final")
    return (
      <ChatBox
        className="border-emerald-200 bg-emerald-50"
        role="final"
        head={<div className="mb-1 text-xs font-medium text-emerald-800">Final answer · step #{item.seq}</div>}
      >
        <Markdown text={item.text} empty="(empty)" />
      </ChatBox>
    );
  const right = item.role === "user";
  return (
    <div className={`flex ${right ? "justify-end" : "justify-start"}`}>
      <div
        className={`max-w-[85%] min-w-0 rounded-lg border px-3 py-2 ${ROLE_STYLE[item.role]}`}
        data-testid="chat-item"
        data-role={item.role}
        data-seq={item.seq}
      >
        <div className="mb-1 flex flex-wrap items-center gap-2 text-xs text-slate-600">
          <span className="font-semibold text-slate-700 capitalize">{item.role}</span>
          <span>step #{item.seq}</span>
          {item.role === "assistant" && item.model ? <span className="font-mono">{item.model}</span> : null}
          {item.tokens ? <span>{formatTokens(item.tokens)} tok</span> : null}
          {item.costUsd ? <span>{formatCost(item.costUsd)}</span> : null}
        </div>
        {item.role === "system" ? (
          <details key={openAll.epoch} open={openAll.epoch > 0 ? openAll.open : undefined}>
            <summary className="disclosure cursor-pointer text-sm text-slate-700">
              System prompt ({item.text.length} characters)
            </summary>
            <Markdown text={item.text} empty="(empty)" />
          </details>
        ) : item.text ? (
          <Markdown text={item.text} empty="(empty)" />
        ) : null}
        {item.toolCalls.length > 0 ? (
          <div
            className={`mt-2 space-y-1.5 ${item.toolCalls.length > 1 ? "rounded-md border border-dashed border-indigo-300 p-1.5" : ""}`}
            data-testid={item.toolCalls.length > 1 ? "parallel-calls" : undefined}
          >
            {item.toolCalls.length > 1 ? (
              <div className="text-xs font-medium text-indigo-700">parallel · {item.toolCalls.length} calls</div>
            ) : null}
            {item.toolCalls.map((c) => (
              <ToolCallEntry key={`${c.id}-${c.seq}`} call={c} openAll={openAll} />
            ))}
          </div>
        ) : null}
      </div>
    </div>
  );
}

function ToolCallEntry({ call, openAll }: { call: ChatToolCall; openAll: OpenAll }) {
  return (
    <details
      key={openAll.epoch}
      open={openAll.epoch > 0 ? openAll.open : undefined}
      className={`rounded border bg-white ${call.error ? "border-rose-300" : "border-slate-200"}`}
      data-testid="chat-tool-call"
    >
      <summary className="flex cursor-pointer items-center gap-2 px-2 py-1 text-xs">
        <Badge>tool</Badge>
        <span className="font-mono font-medium">{call.name}</span>
        <span className="min-w-0 flex-1 truncate font-mono text-slate-500">{call.args.replace(/\s+/g, " ")}</span>
        {call.error ? <StatusBadge status="failed" /> : null}
        {call.seq !== null ? <span className="text-slate-500">#{call.seq}</span> : null}
        <span className="text-slate-500 tabular-nums">{formatDuration(call.durationMs)}</span>
      </summary>
      <div className="grid gap-2 border-t border-slate-200 p-2 md:grid-cols-2">
        <div>
          <div className="mb-0.5 text-[11px] font-medium text-slate-500 uppercase">Arguments</div>
          <pre className="max-h-64 overflow-auto font-mono text-xs break-words whitespace-pre-wrap">{call.args}</pre>
        </div>
        <div>
          <div className="mb-0.5 text-[11px] font-medium text-slate-500 uppercase">
            {call.error ? "Error" : "Result"}
          </div>
          <pre
            className={`max-h-64 overflow-auto font-mono text-xs break-words whitespace-pre-wrap ${call.error ? "text-rose-700" : ""}`}
          >
            {call.error ?? call.result ?? "(not recorded)"}
          </pre>
        </div>
      </div>
    </details>
  );
}

const KIND_LABEL: Record<SessionEvent["kind"], string> = {
  model_call: "model",
  tool_call: "tool",
  user_message: "user",
  final_output: "final",
};
const KIND_TONE = { model_call: "info", tool_call: "neutral", user_message: "warn", final_output: "good" } as const;

/** Step bodies kept in the browser: the newest ones, the rest dropped (they load again when opened). */
const BODIES_KEPT = 40;

function keepRecentBodies(client: QueryClient, sessionId: string) {
  const bodies = client
    .getQueryCache()
    .findAll({ queryKey: ["session-step", sessionId] })
    .sort((a, b) => b.state.dataUpdatedAt - a.state.dataUpdatedAt);
  for (const q of bodies.slice(BODIES_KEPT))
    if (q.getObserversCount() === 0) client.removeQueries({ queryKey: q.queryKey, exact: true });
}

/** One step whole, loaded when it is opened (and dropped a while after it scrolls away). */
function useStepBody(sessionId: string, seq: number, enabled: boolean) {
  const client = useQueryClient();
  return useQuery({
    queryKey: ["session-step", sessionId, seq],
    enabled,
    staleTime: Infinity,
    gcTime: 30_000,
    queryFn: async () => {
      const result = await sessionStepAction({ sessionId, seq });
      if (!result.ok) throw new Error(result.error.message);
      keepRecentBodies(client, sessionId);
      return result.data;
    },
  });
}

/** A step's row: its summary always, its inputs and outputs (as JSON) when opened. */
export function StepRow({
  sessionId,
  step,
  nested = false,
  openAll,
  initiallyOpen = false,
}: {
  sessionId: string;
  step: StepSummary;
  nested?: boolean;
  openAll: OpenAll;
  initiallyOpen?: boolean;
}) {
  const forced = openAll.epoch > 0 ? openAll.open : initiallyOpen;
  const [open, setOpen] = useState(forced);
  const failed = step.status === "failed";
  const tokens = (step.usage?.inputTokens ?? 0) + (step.usage?.outputTokens ?? 0);
  return (
    <details
      id={`step-${step.seq}`}
      open={forced || undefined}
      onToggle={(e) => setOpen(e.currentTarget.open)}
      data-testid={`event-${step.seq}`}
      data-kind={step.kind}
      data-name={step.name}
      className={`group rounded-md border ${failed ? "border-rose-300 bg-rose-50/60" : "border-slate-200 bg-white"} ${nested ? "ml-8" : ""}`}
    >
      <summary className="flex cursor-pointer items-center gap-3 px-3 py-2 text-sm select-none">
        <span className="w-10 shrink-0 text-right font-mono text-xs text-slate-500">#{step.seq}</span>
        <span className="text-slate-500 transition-transform group-open:rotate-90">▸</span>
        <Badge tone={KIND_TONE[step.kind]}>{KIND_LABEL[step.kind]}</Badge>
        <span className="shrink-0 font-medium text-slate-900">{step.name}</span>
        {step.agent ? (
          <Badge tone="info" title="The agent that made this step">
            {step.agent}
          </Badge>
        ) : null}
        {step.status !== "completed" ? <StatusBadge status={step.status} /> : null}
        {step.occurrence !== null && step.occurrence > 0 ? (
          <Badge title="This exact call (same tool, same arguments) was made before in this session">
            repeat #{step.occurrence + 1}
          </Badge>
        ) : null}
        <span className={`min-w-0 flex-1 truncate font-mono text-xs ${failed ? "text-rose-700" : "text-slate-500"}`}>
          {step.preview}
        </span>
        <span className="shrink-0 text-xs text-slate-500 tabular-nums">{formatDuration(step.durationMs)}</span>
        <span className="w-14 shrink-0 text-right text-xs text-slate-500 tabular-nums">
          {tokens ? `${formatTokens(tokens)} tok` : ""}
        </span>
      </summary>
      {open ? <StepBody sessionId={sessionId} step={step} /> : null}
    </details>
  );
}

function StepBody({ sessionId, step }: { sessionId: string; step: StepSummary }) {
  const { data: event, error } = useStepBody(sessionId, step.seq, true);
  if (error)
    return (
      <p role="alert" className="border-t border-slate-200 px-3 py-3 text-sm text-rose-700">
        {error.message}
      </p>
    );
  if (!event) return <p className="border-t border-slate-200 px-3 py-3 text-sm text-slate-500">Loading the step…</p>;
  return (
    <div className="grid gap-3 border-t border-slate-200 px-3 py-3 md:grid-cols-2">
      {event.kind === "tool_call" ? (
        <>
          <JsonBlock label="Arguments" value={(event.input as { args?: unknown } | null)?.args ?? null} />
          {event.error ? (
            <JsonBlock label="Error" value={event.error} />
          ) : (
            <JsonBlock label="Result" value={event.output} />
          )}
          <div className="text-xs text-slate-500 md:col-span-2">
            call id <code className="font-mono">{(event.input as { callId?: string } | null)?.callId ?? "—"}</code> ·
            cache key{" "}
            <code className="font-mono">
              {event.cacheKey ? `${event.cacheKey.slice(0, 16)}…` : "none (arguments have no canonical JSON)"}
            </code>
            {event.occurrence !== null ? ` · occurrence ${event.occurrence}` : ""}
          </div>
        </>
      ) : event.kind === "model_call" ? (
        <>
          <JsonBlock label="Output (assistant message)" value={event.output} />
          <JsonBlock
            label={`Input${step.inputMessages !== null ? ` (${step.inputMessages} messages)` : ""}`}
            value={event.input}
          />
          <div className="text-xs md:col-span-2">
            {/* No prefetch: a click landing while the link's own prefetch was in flight (it had just scrolled into
                view) left Next's router waiting on it, and the page never changed; the playground loads on click. */}
            <Link
              href={`/sessions/${sessionId}/playground/${step.seq}`}
              prefetch={false}
              className="text-indigo-700 hover:underline"
            >
              Open in playground
            </Link>{" "}
            <span className="text-slate-500">— send this call again, edited, to a model endpoint</span>
          </div>
        </>
      ) : (
        <div className="md:col-span-2">
          <JsonBlock label={event.kind === "final_output" ? "Answer" : "Message"} value={event.output ?? event.input} />
        </div>
      )}
    </div>
  );
}

/** A model call with the tool calls it asked for under it; several are marked parallel. */
export function StepNode({
  sessionId,
  node,
  openAll,
  openSeq,
}: {
  sessionId: string;
  node: TimelineNode<StepSummary>;
  openAll: OpenAll;
  openSeq: number | null;
}) {
  const row = (s: StepSummary, nested: boolean) => (
    <StepRow
      key={`${s.seq}-${openAll.epoch}`}
      sessionId={sessionId}
      step={s}
      nested={nested}
      openAll={openAll}
      initiallyOpen={s.seq === openSeq}
    />
  );
  return (
    <li className="flex flex-col gap-1.5" data-search="">
      {row(node.event, false)}
      {node.children.length > 1 ? (
        <div
          className="ml-6 flex flex-col gap-1.5 rounded-md border border-dashed border-indigo-300 p-1.5"
          data-testid="parallel-group"
        >
          <div className="text-xs font-medium text-indigo-700">
            parallel · {node.children.length} calls asked for at once
          </div>
          {node.children.map((c) => row(c, true))}
        </div>
      ) : (
        node.children.map((c) => row(c, true))
      )}
    </li>
  );
}

const KIND_BAR = {
  model_call: "bg-indigo-500",
  tool_call: "bg-slate-500",
  user_message: "bg-amber-400",
  final_output: "bg-emerald-500",
} as const;
export const WATERFALL_ROW = 30;
/** On a phone: step, name, bar, duration (tokens and cost are in the Steps view); from `sm` up, all six columns. */
export const WATERFALL_GRID =
  "grid grid-cols-[2.5rem_minmax(4.5rem,7rem)_minmax(0,1fr)_3.75rem] items-center gap-2 sm:grid-cols-[3.5rem_minmax(7rem,14rem)_minmax(0,1fr)_5rem_4.5rem_4.5rem]";

/** One bar of the latency waterfall (`rows`: the bars drawn with it, for recordings without start times). */
export function WaterfallBar({
  r,
  rows,
  totalMs,
}: {
  r: WaterfallRow;
  rows: readonly WaterfallRow[];
  totalMs: number;
}) {
  const { left, width } = barOf(r, rows, totalMs);
  return (
    <div
      role="listitem"
      data-testid="waterfall-row"
      data-seq={r.seq}
      data-parallel={r.parallelGroup ?? undefined}
      style={{ height: WATERFALL_ROW }}
      className={`${WATERFALL_GRID} border-b border-slate-100 px-2 text-xs ${r.parallelGroup !== null ? "bg-indigo-50/50" : ""}`}
    >
      <span className="font-mono text-slate-500">#{r.seq}</span>
      <span className="flex min-w-0 items-center gap-1">
        <span className={`min-w-0 truncate font-mono ${r.kind === "tool_call" ? "pl-3" : ""}`} title={r.name}>
          {r.name}
        </span>
        {r.parallelGroup !== null ? (
          <span title={`Ran in parallel with ${plural(r.parallelSize - 1, "other call")} of step #${r.parallelGroup}`}>
            <Badge tone="info">∥ {r.parallelSize}</Badge>
          </span>
        ) : null}
      </span>
      {r.durationMs === null && r.offsetMs === null ? (
        // Nothing to draw: say so rather than leave an empty track.
        <span className="text-slate-500 italic">not timed</span>
      ) : (
        <span className="relative h-3 rounded bg-slate-100">
          <span
            className={`absolute top-0 h-3 rounded ${r.status === "failed" ? "bg-rose-500" : KIND_BAR[r.kind]}`}
            style={{ left: `${Math.min(Math.max(left, 0), 100)}%`, width: `${Math.min(Math.max(width, 0.5), 100)}%` }}
          />
        </span>
      )}
      <span className="text-right tabular-nums">{formatDuration(r.durationMs)}</span>
      <span className="hidden text-right tabular-nums sm:block">{r.tokens ? formatTokens(r.tokens) : "—"}</span>
      <span className="hidden text-right tabular-nums sm:block">{formatCost(r.costUsd)}</span>
    </div>
  );
}

/** A bar's place in percent: by start time when the recording has them, else durations laid end to end. */
function barOf(r: WaterfallRow, rows: readonly WaterfallRow[], totalMs: number): { left: number; width: number } {
  if (totalMs > 0 && r.offsetMs !== null)
    return { left: (r.offsetMs / totalMs) * 100, width: ((r.durationMs ?? 0) / totalMs) * 100 };
  const total = rows.reduce((s, x) => s + (x.durationMs ?? 0), 0);
  if (total === 0) return { left: 0, width: 0 };
  let before = 0;
  for (const x of rows) {
    if (x === r) break;
    before += x.durationMs ?? 0;
  }
  return { left: (before / total) * 100, width: ((r.durationMs ?? 0) / total) * 100 };
}
