"use client";

import { useVirtualizer } from "@tanstack/react-virtual";
import { useEffect, useMemo, useRef, useState, type ReactNode } from "react";
import { Markdown } from "@/components/reports/Markdown";
import { Badge, StatusBadge } from "@/components/ui/Badge";
import { formatCost, formatDuration, formatTokens } from "@/lib/format";
import { chatSearchText, type ChatItem, type ChatToolCall } from "./conversation";
import { SESSION_VIEWS, type SessionViewName } from "./views";
import type { Waterfall, WaterfallRow } from "./waterfall";

const VIEW_LABEL: Record<SessionViewName, string> = { chat: "Conversation", timeline: "Steps", waterfall: "Latency" };
const LIST_HEIGHT = "70vh";

/** A session's run three ways (chat, steps, latency waterfall), with search; the tab and the query live in the URL. */
export function SessionView({
  chat,
  waterfall,
  timeline,
  initialView,
  initialQuery,
}: {
  chat: ChatItem[];
  waterfall: Waterfall;
  /** The steps view, rendered on the server; each step's `li` carries `data-search`. */
  timeline: ReactNode;
  initialView: SessionViewName;
  initialQuery: string;
}) {
  const [view, setView] = useState<SessionViewName>(initialView);
  const [query, setQuery] = useState(initialQuery);
  const [openAll, setOpenAll] = useState<{ open: boolean; epoch: number }>({ open: false, epoch: 0 });
  const searchRef = useRef<HTMLInputElement>(null);
  const timelineRef = useRef<HTMLDivElement>(null);
  const q = query.trim().toLowerCase();

  useEffect(() => {
    const params = new URLSearchParams(window.location.search);
    if (view === "chat") params.delete("view");
    else params.set("view", view);
    if (q) params.set("q", query.trim());
    else params.delete("q");
    const search = params.toString() ? `?${params}` : "";
    if (window.location.search !== search)
      window.history.replaceState(window.history.state, "", `${window.location.pathname}${search}`);
  }, [view, query, q]);

  // `/` goes to the search box (not while typing elsewhere).
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if (e.key !== "/" || e.altKey || e.ctrlKey || e.metaKey) return;
      const target = e.target as HTMLElement | null;
      if (target?.closest("input, textarea, select, [contenteditable=true], .monaco-editor")) return;
      e.preventDefault();
      searchRef.current?.focus();
    };
    window.addEventListener("keydown", onKey);
    return () => window.removeEventListener("keydown", onKey);
  }, []);

  // The steps view is server-rendered: its details open and close in place.
  const setAll = (open: boolean) => {
    setOpenAll((s) => ({ open, epoch: s.epoch + 1 }));
    timelineRef.current?.querySelectorAll("details").forEach((d) => {
      d.open = open;
    });
  };

  const chatShown = useMemo(() => (q ? chat.filter((i) => chatSearchText(i).includes(q)) : chat), [chat, q]);
  const rowsShown = useMemo(
    () =>
      q
        ? waterfall.rows.filter((r) => r.name.toLowerCase().includes(q) || r.kind.replace("_", " ").includes(q))
        : waterfall.rows,
    [waterfall.rows, q],
  );
  const [timelineMatches, setTimelineMatches] = useState<number | null>(null);
  useEffect(() => {
    const items = timelineRef.current?.querySelectorAll<HTMLElement>("li[data-search]");
    if (!items) return;
    let n = 0;
    items.forEach((li) => {
      const hit = !q || (li.dataset.search ?? "").includes(q);
      li.hidden = !hit;
      if (hit) n++;
    });
    setTimelineMatches(q ? n : null);
  }, [q, view]);

  const count =
    view === "chat"
      ? `${chatShown.length} of ${chat.length} messages`
      : view === "waterfall"
        ? `${rowsShown.length} of ${waterfall.rows.length} steps`
        : timelineMatches === null
          ? null
          : `${timelineMatches} matching steps`;

  return (
    <section aria-label="Session run">
      <div className="mb-3 flex flex-wrap items-center gap-2">
        <div role="tablist" aria-label="View" className="flex rounded-md border border-slate-300 bg-white p-0.5">
          {SESSION_VIEWS.map((v) => (
            <button
              key={v}
              type="button"
              role="tab"
              aria-selected={view === v}
              onClick={() => setView(v)}
              className={`rounded px-3 py-1 text-sm font-medium ${view === v ? "bg-indigo-600 text-white" : "text-slate-700 hover:bg-slate-100"}`}
            >
              {VIEW_LABEL[v]}
            </button>
          ))}
        </div>
        <label className="flex min-w-56 flex-1 items-center gap-2">
          <span className="sr-only">Search this session</span>
          <input
            ref={searchRef}
            type="search"
            value={query}
            onChange={(e) => setQuery(e.target.value)}
            placeholder="Search this session (press /)"
            aria-label="Search this session"
            className="w-full rounded-md border border-slate-300 bg-white px-3 py-1.5 text-sm"
          />
        </label>
        {q && count ? (
          <span className="text-sm text-slate-600" data-testid="search-count" aria-live="polite">
            {count}
          </span>
        ) : null}
        {view !== "waterfall" ? (
          <span className="flex gap-1">
            <button
              type="button"
              onClick={() => setAll(true)}
              className="rounded-md border border-slate-300 bg-white px-2.5 py-1 text-sm text-slate-800 hover:bg-slate-50"
            >
              Expand all
            </button>
            <button
              type="button"
              onClick={() => setAll(false)}
              className="rounded-md border border-slate-300 bg-white px-2.5 py-1 text-sm text-slate-800 hover:bg-slate-50"
            >
              Collapse all
            </button>
          </span>
        ) : null}
      </div>
      {view === "chat" ? <ChatList items={chatShown} openAll={openAll} query={q} /> : null}
      {view === "waterfall" ? <WaterfallList rows={rowsShown} totalMs={waterfall.totalMs} /> : null}
      <div ref={timelineRef} hidden={view !== "timeline"} data-testid="timeline-view">
        {timeline}
      </div>
    </section>
  );
}

function ChatList({
  items,
  openAll,
  query,
}: {
  items: ChatItem[];
  openAll: { open: boolean; epoch: number };
  query: string;
}) {
  const parentRef = useRef<HTMLDivElement>(null);
  const virtualizer = useVirtualizer({
    count: items.length,
    getScrollElement: () => parentRef.current,
    estimateSize: () => 96,
    overscan: 6,
    getItemKey: (index) => items[index]!.key,
    // The first screen renders on the server, before the page hydrates.
    initialRect: { width: 0, height: 800 },
  });
  if (items.length === 0)
    return (
      <p className="rounded-lg border border-dashed border-slate-300 bg-white p-6 text-sm text-slate-500">
        {query ? "No message matches the search; clear it to see the whole conversation." : "No messages recorded."}
      </p>
    );
  return (
    <div
      ref={parentRef}
      style={{ height: LIST_HEIGHT }}
      className="overflow-auto rounded-lg border border-slate-200 bg-slate-50"
      data-testid="chat-view"
      role="log"
      aria-label="Conversation"
    >
      <div style={{ height: virtualizer.getTotalSize(), position: "relative" }}>
        {virtualizer.getVirtualItems().map((v) => {
          const item = items[v.index]!;
          return (
            <div
              key={v.key}
              data-index={v.index}
              ref={virtualizer.measureElement}
              style={{ position: "absolute", top: 0, left: 0, right: 0, transform: `translateY(${v.start}px)` }}
              className="px-3 py-1.5"
            >
              <ChatEntry item={item} openAll={openAll} />
            </div>
          );
        })}
      </div>
    </div>
  );
}

const ROLE_STYLE = {
  system: "border-slate-300 bg-slate-100",
  user: "border-amber-200 bg-amber-50",
  assistant: "border-indigo-200 bg-white",
} as const;

function ChatEntry({ item, openAll }: { item: ChatItem; openAll: { open: boolean; epoch: number } }) {
  if (item.type === "tool_result")
    return (
      <div
        className="ml-8 rounded-md border border-slate-200 bg-white px-3 py-2"
        data-testid="chat-item"
        data-role="tool"
      >
        <div className="mb-1 text-xs text-slate-500">
          tool result {item.name ? <span className="font-mono">{item.name}</span> : null} · step #{item.seq}
        </div>
        <pre className="max-h-64 overflow-auto font-mono text-xs break-words whitespace-pre-wrap">{item.text}</pre>
      </div>
    );
  if (item.type === "final")
    return (
      <div
        className="rounded-md border border-emerald-200 bg-emerald-50 px-3 py-2"
        data-testid="chat-item"
        data-role="final"
      >
        <div className="mb-1 text-xs font-medium text-emerald-800">Final answer · step #{item.seq}</div>
        <Markdown text={item.text} empty="(empty)" />
      </div>
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
        <div className="mb-1 flex flex-wrap items-center gap-2 text-xs text-slate-500">
          <span className="font-semibold text-slate-700 capitalize">{item.role}</span>
          <span>step #{item.seq}</span>
          {item.role === "assistant" && item.model ? <span className="font-mono">{item.model}</span> : null}
          {item.tokens ? <span>{formatTokens(item.tokens)} tok</span> : null}
          {item.costUsd ? <span>{formatCost(item.costUsd)}</span> : null}
        </div>
        {item.role === "system" ? (
          <details key={openAll.epoch} open={openAll.epoch > 0 ? openAll.open : undefined}>
            <summary className="cursor-pointer text-sm text-slate-700">
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

function ToolCallEntry({ call, openAll }: { call: ChatToolCall; openAll: { open: boolean; epoch: number } }) {
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
        {call.seq !== null ? <span className="text-slate-400">#{call.seq}</span> : null}
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

const KIND_BAR = {
  model_call: "bg-indigo-500",
  tool_call: "bg-slate-500",
  user_message: "bg-amber-400",
  final_output: "bg-emerald-500",
} as const;
const ROW = 30;

function WaterfallList({ rows, totalMs }: { rows: WaterfallRow[]; totalMs: number }) {
  const parentRef = useRef<HTMLDivElement>(null);
  const virtualizer = useVirtualizer({
    count: rows.length,
    getScrollElement: () => parentRef.current,
    estimateSize: () => ROW,
    overscan: 12,
    initialRect: { width: 0, height: 600 },
  });
  const grid = "grid grid-cols-[3rem_7rem_minmax(0,1fr)_5rem_4.5rem_4.5rem] items-center gap-2";
  return (
    <div data-testid="waterfall-view">
      {totalMs === 0 ? (
        <p className="mb-2 text-sm text-slate-500">
          This recording has no start times, so the bars show durations only, one after another.
        </p>
      ) : null}
      <div className={`${grid} border-b border-slate-200 bg-slate-50 px-2 py-1 text-xs text-slate-500`}>
        <span>step</span>
        <span>name</span>
        <span>time</span>
        <span className="text-right">duration</span>
        <span className="text-right">tokens</span>
        <span className="text-right">cost</span>
      </div>
      <div
        ref={parentRef}
        style={{ height: LIST_HEIGHT }}
        className="overflow-auto rounded-b-lg border border-t-0 border-slate-200 bg-white"
        role="list"
        aria-label="Latency waterfall"
      >
        <div style={{ height: virtualizer.getTotalSize(), position: "relative" }}>
          {virtualizer.getVirtualItems().map((v) => {
            const r = rows[v.index]!;
            const { left, width } = barOf(r, rows, totalMs);
            return (
              <div
                key={r.seq}
                role="listitem"
                data-testid="waterfall-row"
                data-seq={r.seq}
                data-parallel={r.parallelGroup ?? undefined}
                style={{
                  position: "absolute",
                  top: 0,
                  left: 0,
                  right: 0,
                  height: ROW,
                  transform: `translateY(${v.start}px)`,
                }}
                className={`${grid} border-b border-slate-100 px-2 text-xs ${r.parallelGroup !== null ? "bg-indigo-50/50" : ""}`}
              >
                <span className="font-mono text-slate-500">#{r.seq}</span>
                <span className="flex min-w-0 items-center gap-1 truncate">
                  <span className={`font-mono ${r.kind === "tool_call" ? "pl-3" : ""}`}>{r.name}</span>
                  {r.parallelGroup !== null ? (
                    <span
                      title={`Ran in parallel with ${r.parallelSize - 1} other call(s) of step #${r.parallelGroup}`}
                    >
                      <Badge tone="info">∥ {r.parallelSize}</Badge>
                    </span>
                  ) : null}
                </span>
                <span className="relative h-3 rounded bg-slate-100">
                  <span
                    className={`absolute top-0 h-3 rounded ${r.status === "failed" ? "bg-rose-500" : KIND_BAR[r.kind]}`}
                    style={{ left: `${left}%`, width: `${Math.max(width, 0.5)}%` }}
                  />
                </span>
                <span className="text-right tabular-nums">{formatDuration(r.durationMs)}</span>
                <span className="text-right tabular-nums">{r.tokens ? formatTokens(r.tokens) : "—"}</span>
                <span className="text-right tabular-nums">{formatCost(r.costUsd)}</span>
              </div>
            );
          })}
        </div>
      </div>
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
