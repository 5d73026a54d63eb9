"use client";

import { useQuery } from "@tanstack/react-query";
import { useEffect, useId, useMemo, useRef, useState, type ReactNode } from "react";
import { sessionConversationAction, sessionSearchAction, sessionStepsAction } from "@/lib/actions/sessions";
import type { ChatItem } from "@/lib/session-view/conversation";
import type { StepSummary } from "@/lib/session-view/steps";
import { buildTimeline } from "@/lib/session-view/timeline";
import { buildWaterfall } from "@/lib/session-view/waterfall";
import { formatDuration } from "@/lib/format";
import { useWindowList, virtualItemStyle } from "@/components/ui/useWindowList";
import { ScrollFrame } from "@/components/ui/ScrollFrame";
import { WindowPending } from "@/components/ui/WindowPending";
import { ChatEntry, StepNode, WATERFALL_GRID, WATERFALL_ROW, WaterfallBar, type OpenAll } from "./entries";
import { useSearchHighlight } from "./useSearchHighlight";
import { SESSION_VIEWS, type SessionViewName } from "./views";
import { Button } from "@/components/ui/Button";
import { TabPanel, Tabs } from "@/components/ui/Tabs";

const VIEW_LABEL: Record<SessionViewName, string> = { chat: "Conversation", timeline: "Steps", waterfall: "Latency" };
const LIST_HEIGHT = "70vh";
/**
 * Each view's list: the estimated height of one step until its window is measured, and how the
 * list is named and framed.
 */
const LISTS: Record<
  SessionViewName,
  { perStep: number; label: string; role: string; testId?: string; className: string }
> = {
  chat: {
    perStep: 60,
    label: "Conversation",
    role: "log",
    testId: "chat-view",
    className: "rounded-lg border border-slate-200 bg-slate-50",
  },
  timeline: {
    perStep: 40,
    label: "Timeline",
    role: "region",
    className: "rounded-lg border border-slate-200 bg-slate-50 p-1.5",
  },
  waterfall: {
    perStep: WATERFALL_ROW,
    label: "Latency waterfall",
    role: "list",
    className: "rounded-b-lg border border-t-0 border-slate-200 bg-white",
  },
};
/** Windows of steps kept in the browser after they scroll away (they load again when scrolled back to). */
const WINDOW_GC_MS = 30_000;

/** The first window, rendered on the server with the page: the steps' summaries or the conversation. */
export type InitialWindow =
  { kind: "steps"; cursor: number; steps: StepSummary[] } | { kind: "chat"; cursor: number; items: ChatItem[] };

type Span = { firstSeq: number; lastSeq: number; window: number };

/**
 * A session's run three ways (chat, steps, latency waterfall), with search;
 * the tab and the query live in the URL. Only what is on screen is loaded: the
 * session is read a window of steps at a time (the first with the page, the
 * others as they scroll into view, dropped a while after they leave it), a
 * step's inputs and outputs when it is opened, and a search runs on the server.
 */
export function SessionView({
  sessionId,
  span,
  t0,
  totalMs,
  initialView,
  initialQuery,
  initial,
  openSeq,
}: {
  sessionId: string;
  /** The seqs the steps span, and the window size the page was rendered with. */
  span: Span;
  /** The session's first start (ms since the epoch), null when the recording has no times. */
  t0: number | null;
  totalMs: number;
  initialView: SessionViewName;
  initialQuery: string;
  initial: InitialWindow | null;
  /** A deep link to one step (`?step=`): the steps view opens there, with the step open. */
  openSeq: number | null;
}) {
  const [view, setView] = useState<SessionViewName>(initialView);
  const tabsId = useId();
  const [query, setQuery] = useState(initialQuery);
  const [searched, setSearched] = useState(initialQuery.trim());
  const [openAll, setOpenAll] = useState<OpenAll>({ open: false, epoch: 0 });
  const searchRef = useRef<HTMLInputElement>(null);
  const q = query.trim();

  useEffect(() => {
    const t = setTimeout(() => setSearched(q), 200);
    return () => clearTimeout(t);
  }, [q]);

  useEffect(() => {
    const params = new URLSearchParams(window.location.search);
    if (view === "chat") params.delete("view");
    else params.set("view", view);
    if (q) params.set("q", q);
    else params.delete("q");
    const search = params.toString() ? `?${params}` : "";
    if (window.location.search !== search)
      window.history.replaceState(window.history.state, "", `${window.location.pathname}${search}`);
  }, [view, q]);

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

  const searchIn = view === "chat" ? "chat" : view === "waterfall" ? "names" : "steps";
  const search = useQuery({
    queryKey: ["session-search", sessionId, searchIn, searched],
    enabled: searched !== "",
    staleTime: 60_000,
    gcTime: WINDOW_GC_MS,
    queryFn: async () => {
      const result = await sessionSearchAction({ sessionId, q: searched, in: searchIn });
      if (!result.ok) throw new Error(result.error.message);
      return result.data;
    },
  });
  const found = searched !== "" && searched === q ? search.data : undefined;
  const count = !found
    ? null
    : view === "chat"
      ? `${found.matches} of ${found.total} messages`
      : view === "waterfall"
        ? `${found.matches} of ${found.total} steps`
        : `${found.matches} matching steps`;

  const setAll = (open: boolean) => setOpenAll((s) => ({ open, epoch: s.epoch + 1 }));
  const common = { sessionId, span, openAll, initial, openSeq };

  return (
    <section aria-label="Session run">
      <div className="mb-3 flex flex-wrap items-center gap-2">
        <Tabs
          id={tabsId}
          label="View"
          look="segmented"
          tabs={SESSION_VIEWS.map((v) => ({ value: v, label: VIEW_LABEL[v] }))}
          selected={view}
          onSelect={setView}
        />
        <label className="flex min-w-56 flex-1 items-center gap-2">
          <span className="sr-only">Search this session</span>
          <input
            ref={searchRef}
            type="search"
            value={query}
            onChange={(e) => setQuery(e.target.value)}
            placeholder="Search this session (press /)"
            aria-label="Search this session"
            maxLength={200}
            className="w-full rounded-md border border-slate-300 bg-white px-3 py-1.5 text-sm"
          />
        </label>
        {q ? (
          <span className="text-sm text-slate-600" data-testid="search-count" aria-live="polite">
            {search.error ? search.error.message : (count ?? "Searching…")}
          </span>
        ) : null}
        {view !== "waterfall" ? (
          <span className="flex gap-1">
            <Button variant="secondary" onClick={() => setAll(true)}>
              Expand all
            </Button>
            <Button variant="secondary" onClick={() => setAll(false)}>
              Collapse all
            </Button>
          </span>
        ) : null}
      </div>
      <TabPanel id={tabsId} value={view}>
        {q ? (
          <SearchResults
            view={view}
            sessionId={sessionId}
            found={found}
            query={searched}
            openAll={openAll}
            t0={t0}
            totalMs={totalMs}
          />
        ) : view === "chat" ? (
          <ChatList {...common} />
        ) : view === "timeline" ? (
          <StepsList {...common} />
        ) : (
          <WaterfallList {...common} t0={t0} totalMs={totalMs} />
        )}
      </TabPanel>
    </section>
  );
}

type ListProps = {
  sessionId: string;
  span: Span;
  openAll: OpenAll;
  initial: InitialWindow | null;
  openSeq: number | null;
};

const windowCount = (span: Span) => Math.ceil((span.lastSeq - span.firstSeq + 1) / span.window);
const cursorOf = (span: Span, index: number) => span.firstSeq + index * span.window;

/** What every window of a list is drawn from: the session, its span, where the window starts and the server's first window. */
type WindowProps = { sessionId: string; span: Span; cursor: number; initial: InitialWindow | null };

/** One window of a session's steps or conversation, kept a while after it scrolls away; the server's first window seeds it. */
function useSessionWindow<T>(
  kind: InitialWindow["kind"],
  { sessionId, span, cursor }: WindowProps,
  initialData: T | undefined,
  load: (args: { sessionId: string; cursor: number; limit: number }) => Promise<T>,
) {
  return useQuery({
    queryKey: ["session-window", sessionId, kind, cursor, span.window],
    staleTime: Infinity,
    gcTime: WINDOW_GC_MS,
    initialData,
    queryFn: () => load({ sessionId, cursor, limit: span.window }),
  });
}

/** One window of step summaries (the steps and latency views share it). */
function useStepsWindow(w: WindowProps) {
  const seed = w.initial?.kind === "steps" && w.initial.cursor === w.cursor ? w.initial.steps : undefined;
  return useSessionWindow("steps", w, seed, async (args) => {
    const result = await sessionStepsAction(args);
    if (!result.ok) throw new Error(result.error.message);
    return result.data.steps;
  });
}

function useChatWindow(w: WindowProps) {
  const seed = w.initial?.kind === "chat" && w.initial.cursor === w.cursor ? w.initial.items : undefined;
  return useSessionWindow("chat", w, seed, async (args) => {
    const result = await sessionConversationAction(args);
    if (!result.ok) throw new Error(result.error.message);
    return result.data.items;
  });
}

/**
 * The windows of a session, virtualized: only those on screen (and one either
 * side) are in the page; each measures itself once loaded.
 */
function WindowList({
  view,
  of: { sessionId, span, initial },
  startSeq = null,
  children,
}: {
  view: SessionViewName;
  /** The session and its first window, as the list was given them. */
  of: Pick<ListProps, "sessionId" | "span" | "initial">;
  startSeq?: number | null;
  children: (window: WindowProps) => ReactNode;
}) {
  const { perStep, label, role, testId, className } = LISTS[view];
  const { parentRef, virtualizer } = useWindowList({
    windows: windowCount(span),
    // A session shorter than a window is estimated at its own length: its box then opens near its real height.
    windowHeight: Math.min(span.window, span.lastSeq - span.firstSeq + 1) * perStep,
    startWindow: startSeq === null ? 0 : Math.max(0, Math.floor((startSeq - span.firstSeq) / span.window)),
    focusSeq: startSeq,
  });
  return (
    <div
      ref={parentRef}
      // At most this tall: a short session's box ends with its last step, not a screen of empty space below.
      style={{ maxHeight: LIST_HEIGHT }}
      className={`overflow-auto ${className}`}
      data-testid={testId}
      role={role}
      aria-label={label}
    >
      <div style={{ height: virtualizer.getTotalSize(), position: "relative" }}>
        {virtualizer.getVirtualItems().map((v) => (
          <div key={v.key} data-index={v.index} ref={virtualizer.measureElement} style={virtualItemStyle(v.start)}>
            {children({ sessionId, span, initial, cursor: cursorOf(span, v.index) })}
          </div>
        ))}
      </div>
    </div>
  );
}

function ChatList({ openAll, ...of }: ListProps) {
  return (
    <WindowList view="chat" of={of}>
      {(w) => <ChatWindow {...w} openAll={openAll} />}
    </WindowList>
  );
}

function ChatWindow({ openAll, ...w }: WindowProps & { openAll: OpenAll }) {
  const { data, error } = useChatWindow(w);
  if (!data) return <WindowPending error={error} height={w.span.window * LISTS.chat.perStep} />;
  return data.map((item) => (
    <div key={item.key} className="px-3 py-1.5">
      <ChatEntry item={item} openAll={openAll} />
    </div>
  ));
}

function StepsList({ openAll, openSeq, ...of }: ListProps) {
  return (
    <div data-testid="timeline-view">
      <WindowList view="timeline" of={of} startSeq={openSeq}>
        {(w) => <StepsWindow {...w} openAll={openAll} openSeq={openSeq} />}
      </WindowList>
    </div>
  );
}

function StepsWindow({ openAll, openSeq, ...w }: WindowProps & { openAll: OpenAll; openSeq: number | null }) {
  const { data, error } = useStepsWindow(w);
  const nodes = useMemo(() => (data ? buildTimeline(data) : []), [data]);
  if (!data) return <WindowPending error={error} height={w.span.window * LISTS.timeline.perStep} />;
  return (
    <ol className="flex flex-col gap-1.5 pb-1.5">
      {nodes.map((node) => (
        <StepNode key={node.event.seq} sessionId={w.sessionId} node={node} openAll={openAll} openSeq={openSeq} />
      ))}
    </ol>
  );
}

/** The time axis over the bars: the run's start, its end, and three marks between, in the run's own time. */
function TimeAxis({ totalMs }: { totalMs: number }) {
  const marks = [0, 0.25, 0.5, 0.75, 1];
  return (
    <span className="relative block h-4" role="img" aria-label={`time, from 0 to ${formatDuration(totalMs)}`}>
      {marks.map((f) => (
        <span
          key={f}
          aria-hidden
          className="absolute top-0 whitespace-nowrap tabular-nums"
          style={
            f === 0 ? { left: 0 } : f === 1 ? { right: 0 } : { left: `${f * 100}%`, transform: "translateX(-50%)" }
          }
        >
          {/* The middle marks only from `sm` up: on a phone the track is too narrow for five labels. */}
          <span className={f === 0 || f === 1 ? "" : "hidden sm:inline"}>
            {formatDuration(Math.round(totalMs * f))}
          </span>
        </span>
      ))}
    </span>
  );
}

function WaterfallHeader({ totalMs, timed, children }: { totalMs: number; timed: boolean; children: ReactNode }) {
  return (
    <div data-testid="waterfall-view">
      {!timed ? (
        <p className="mb-2 text-sm text-slate-500">
          This recording has no start times, so the bars show durations only, one after another; steps recorded without
          a duration say so.
        </p>
      ) : null}
      {/* On a narrow screen the columns fit (tokens and cost are left to the Steps view); from `sm` up, should they
          not fit, they scroll sideways inside this box, header and bars together; the page does not. */}
      <ScrollFrame className="overflow-x-auto" label="Latency waterfall columns">
        <div className="sm:min-w-[30rem]">
          <div className={`${WATERFALL_GRID} border-b border-slate-200 bg-slate-50 px-2 py-1 text-xs text-slate-500`}>
            <span>step</span>
            <span>name</span>
            {timed ? <TimeAxis totalMs={totalMs} /> : <span>time</span>}
            <span className="text-right">duration</span>
            <span className="hidden text-right sm:block">tokens</span>
            <span className="hidden text-right sm:block">cost</span>
          </div>
          {children}
        </div>
      </ScrollFrame>
    </div>
  );
}

function WaterfallList({ t0, totalMs, ...of }: ListProps & { t0: number | null; totalMs: number }) {
  return (
    <WaterfallHeader totalMs={totalMs} timed={t0 !== null && totalMs > 0}>
      <WindowList view="waterfall" of={of}>
        {(w) => <WaterfallWindow {...w} t0={t0} totalMs={totalMs} />}
      </WindowList>
    </WaterfallHeader>
  );
}

function WaterfallWindow({ t0, totalMs, ...w }: WindowProps & { t0: number | null; totalMs: number }) {
  const { data, error } = useStepsWindow(w);
  const rows = useMemo(() => (data ? buildWaterfall(data, { t0 }).rows : []), [data, t0]);
  if (!data) return <WindowPending error={error} height={w.span.window * LISTS.waterfall.perStep} />;
  return rows.map((r) => <WaterfallBar key={r.seq} r={r} rows={rows} totalMs={t0 === null ? 0 : totalMs} />);
}

/** Search results: at most 200 matches (the count says how many there are), not virtualized. */
function SearchResults({
  view,
  sessionId,
  found,
  query,
  openAll,
  t0,
  totalMs,
}: {
  view: SessionViewName;
  sessionId: string;
  found: { steps: StepSummary[]; items: ChatItem[]; matches: number } | undefined;
  /** What was searched: its matches are highlighted. */
  query: string;
  openAll: OpenAll;
  t0: number | null;
  totalMs: number;
}) {
  const box = "max-h-[70vh] overflow-auto rounded-lg border border-slate-200";
  const painted = useRef<HTMLDivElement>(null);
  useSearchHighlight(painted, found && found.matches > 0 ? query : "");
  const more =
    found && found.matches > (view === "chat" ? found.items.length : found.steps.length) ? (
      <p className="px-3 py-2 text-sm text-slate-500">
        The first 200 matches are shown; narrow the search to see others.
      </p>
    ) : null;
  const nodes = useMemo(() => (found && view === "timeline" ? buildTimeline(found.steps) : []), [found, view]);
  const rows = useMemo(
    () => (found && view === "waterfall" ? buildWaterfall(found.steps, { t0 }).rows : []),
    [found, view, t0],
  );
  if (!found) return <div className={`${box} bg-slate-50 p-6 text-sm text-slate-500`}>Searching…</div>;
  if (found.matches === 0)
    return (
      <p className="rounded-lg border border-dashed border-slate-300 bg-white p-6 text-sm text-slate-500">
        Nothing in this session matches the search; clear it to see the whole run.
      </p>
    );
  const content =
    view === "chat" ? (
      <div className={`${box} bg-slate-50`} data-testid="chat-view" role="log" aria-label="Conversation">
        {found.items.map((item) => (
          <div key={item.key} className="px-3 py-1.5">
            <ChatEntry item={item} openAll={openAll} />
          </div>
        ))}
        {more}
      </div>
    ) : view === "timeline" ? (
      <div data-testid="timeline-view" className={`${box} bg-slate-50 p-1.5`}>
        <ol className="flex flex-col gap-1.5" aria-label="Timeline">
          {nodes.map((node) => (
            <StepNode key={node.event.seq} sessionId={sessionId} node={node} openAll={openAll} openSeq={null} />
          ))}
        </ol>
        {more}
      </div>
    ) : (
      <WaterfallHeader totalMs={totalMs} timed={t0 !== null && totalMs > 0}>
        <div className={`${box} rounded-t-none border-t-0 bg-white`} role="list" aria-label="Latency waterfall">
          {rows.map((r) => (
            <WaterfallBar key={r.seq} r={r} rows={rows} totalMs={t0 === null ? 0 : totalMs} />
          ))}
          {more}
        </div>
      </WaterfallHeader>
    );
  return (
    <div ref={painted} data-testid="search-results">
      {content}
    </div>
  );
}
