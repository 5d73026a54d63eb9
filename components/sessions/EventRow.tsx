import { Badge, StatusBadge } from "@/components/ui/Badge";
import { JsonBlock } from "@/components/ui/JsonBlock";
import { formatDuration, formatTokens, previewText } from "@/lib/format";
import type { SessionEvent } from "@/lib/replay";

const KIND_LABEL: Record<SessionEvent["kind"], string> = {
  model_call: "model",
  tool_call: "tool",
  user_message: "user",
  final_output: "final",
};

const KIND_TONE = { model_call: "info", tool_call: "neutral", user_message: "warn", final_output: "good" } as const;

function preview(e: SessionEvent): string {
  if (e.error) return `${e.error.type}: ${e.error.message}`;
  if (e.kind === "model_call") {
    const out = e.output as { content?: unknown; toolCalls?: { name: string }[] } | null;
    const calls = out?.toolCalls?.map((c) => c.name).join(", ");
    return calls ? `→ ${calls}` : previewText(out?.content);
  }
  if (e.kind === "tool_call") {
    const args = (e.input as { args?: unknown } | null)?.args;
    return `${previewText(args, 70)} ⇒ ${previewText(e.output, 70)}`;
  }
  return previewText(e.output ?? e.input);
}

export function EventRow({ event, nested = false }: { event: SessionEvent; nested?: boolean }) {
  const failed = event.status === "failed";
  const tokens = (event.usage?.inputTokens ?? 0) + (event.usage?.outputTokens ?? 0);
  const messages = (event.input as { messages?: unknown[] } | null)?.messages;
  return (
    <details
      data-testid={`event-${event.seq}`}
      data-kind={event.kind}
      data-name={event.name}
      className={`group rounded-md border ${failed ? "border-rose-300 bg-rose-50/60" : "border-slate-200 bg-white"} ${nested ? "ml-8" : ""}`}
    >
      <summary className="flex cursor-pointer items-center gap-3 px-3 py-2 text-sm select-none">
        <span className="w-8 shrink-0 text-right font-mono text-xs text-slate-500">#{event.seq}</span>
        <span className="text-slate-400 transition-transform group-open:rotate-90">▸</span>
        <Badge tone={KIND_TONE[event.kind]}>{KIND_LABEL[event.kind]}</Badge>
        <span className="shrink-0 font-medium text-slate-900">{event.name}</span>
        {event.status !== "completed" ? <StatusBadge status={event.status} /> : null}
        {event.occurrence !== null && event.occurrence > 0 ? (
          <Badge title="This exact call (same tool, same arguments) was made before in this session">
            repeat #{event.occurrence + 1}
          </Badge>
        ) : null}
        <span className={`min-w-0 flex-1 truncate font-mono text-xs ${failed ? "text-rose-700" : "text-slate-500"}`}>
          {preview(event)}
        </span>
        <span className="shrink-0 text-xs text-slate-500 tabular-nums">{formatDuration(event.durationMs)}</span>
        <span className="w-14 shrink-0 text-right text-xs text-slate-500 tabular-nums">
          {tokens ? `${formatTokens(tokens)} tok` : ""}
        </span>
      </summary>
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
            <JsonBlock label={`Input${messages ? ` (${messages.length} messages)` : ""}`} value={event.input} />
          </>
        ) : (
          <div className="md:col-span-2">
            <JsonBlock
              label={event.kind === "final_output" ? "Answer" : "Message"}
              value={event.output ?? event.input}
            />
          </div>
        )}
      </div>
    </details>
  );
}
