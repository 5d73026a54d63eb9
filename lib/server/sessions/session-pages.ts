/**
 * A session read a window at a time, for pages that must open a 10,000-step
 * run at once: the overview (no events), step summaries and the conversation
 * for a window of seqs, one step whole, and search. Each costs the window
 * (search: one pass over the session, in windows), never a prefix per step.
 */
import { z } from "zod";
import type { Db } from "@/lib/db";
import { fullEvent, toSessionEvent } from "@/lib/db/session-reads";
import { eventWindow, sessionOverview, type EventWindow, type SessionOverview } from "@/lib/db/session-window";
import { AppError, notFound, parseInput } from "@/lib/errors";
import type { SessionEvent } from "@/lib/replay";
import { buildConversation, chatSearchText, type ChatItem } from "@/lib/session-view/conversation";
import { summarizeStep, type StepSummary } from "@/lib/session-view/steps";
import { buildTimeline, searchTextOf } from "@/lib/session-view/timeline";
import { authorize } from "../authz";
import type { Principal } from "../principal";

/** Steps per window when none is asked for, and at most. */
export const WINDOW_DEFAULT = 50;
export const WINDOW_MAX = 500;
/** A window's text fields are cut to this (the step itself, opened, has all of it). */
const TEXT_MAX = 8_000;
/** Search returns at most this many matches (and counts them all). */
const MATCHES_MAX = 200;
const SEARCH_WINDOW = 500;

const Seq = z.coerce.number().int().min(-2_147_483_648).max(2_147_483_647);

export const SessionWindowInput = z.object({
  sessionId: z.string().min(1).max(200),
  /** The first seq of the window (default: the session's first); the answer's nextCursor is the next window's. */
  cursor: Seq.optional(),
  limit: z.coerce.number().int().min(1).max(WINDOW_MAX).default(WINDOW_DEFAULT),
});
export type SessionWindowInput = z.input<typeof SessionWindowInput>;

export const SessionSearchInput = z.object({
  sessionId: z.string().min(1).max(200),
  q: z.string().trim().min(1).max(200),
  /** steps: steps (with the calls they asked for) whose text matches; names: steps by name or kind; chat: messages. */
  in: z.enum(["steps", "names", "chat"]).default("steps"),
});
export type SessionSearchInput = z.input<typeof SessionSearchInput>;

export const SessionStepInput = z.object({ sessionId: z.string().min(1).max(200), seq: Seq });
export type SessionStepInput = z.input<typeof SessionStepInput>;

export type SessionWindow<T> = { cursor: number | null; nextCursor: number | null } & T;

/** The session's header: its fields and counts, no events; `firstSeq`/`lastSeq` span its steps. */
export async function getSessionOverview(
  principal: Principal,
  input: { sessionId: string },
  prisma: Db,
): Promise<SessionOverview> {
  authorize(principal, "sessions.read");
  const session = await sessionOverview(prisma, input.sessionId);
  if (!session) throw notFound("session", input.sessionId);
  return session;
}

async function readWindow(input: z.infer<typeof SessionWindowInput>, prisma: Db) {
  const session = await sessionOverview(prisma, input.sessionId, { metadata: "stored" });
  if (!session) throw notFound("session", input.sessionId);
  if (session.firstSeq === null || session.lastSeq === null) return { window: null, cursor: null, nextCursor: null };
  // A cursor before the session's first step starts at it (and keeps every seq queried inside the column's range).
  const from = Math.max(input.cursor ?? session.firstSeq, session.firstSeq);
  const to = from + input.limit;
  const window = from > session.lastSeq ? null : await eventWindow(prisma, input.sessionId, from, to);
  return { window, cursor: from, nextCursor: to <= session.lastSeq ? to : null };
}

const cut = (text: string) =>
  text.length > TEXT_MAX
    ? `${text.slice(0, TEXT_MAX)}… (${text.length - TEXT_MAX} more characters: open the step)`
    : text;

/** A chat item with its texts bounded. */
function boundedItem(item: ChatItem): ChatItem {
  if (item.type !== "message") return { ...item, text: cut(item.text) };
  return {
    ...item,
    text: cut(item.text),
    toolCalls: item.toolCalls.map((c) => ({
      ...c,
      args: cut(c.args),
      result: c.result === null ? null : cut(c.result),
      error: c.error === null ? null : cut(c.error),
    })),
  };
}

function summariesOf(window: EventWindow): StepSummary[] {
  return window.events.map((row) => {
    const stored = (row.input as { messages?: unknown } | null)?.messages;
    const messages =
      row.kind === "model_call" && Array.isArray(stored) ? (row.inputPrefixCount ?? 0) + stored.length : null;
    return summarizeStep(toSessionEvent(row), messages);
  });
}

/** The window's messages: read from the lead on (what it said is not said again), kept from the window on. */
function conversationOf(window: EventWindow, from: number): ChatItem[] {
  const events = [...window.lead, ...window.events].map((row) => ({
    ...toSessionEvent(row),
    inputPrefixSeq: row.inputPrefixSeq,
  }));
  return buildConversation(events, { before: window.before })
    .filter((item) => item.seq >= from)
    .map(boundedItem);
}

/** Step summaries of one window (tool calls with the model call that asked for them). */
export async function listSessionSteps(
  principal: Principal,
  input: SessionWindowInput,
  prisma: Db,
): Promise<SessionWindow<{ steps: StepSummary[] }>> {
  authorize(principal, "sessions.read");
  const { window, cursor, nextCursor } = await readWindow(parseInput(SessionWindowInput, input), prisma);
  return { cursor, nextCursor, steps: window ? summariesOf(window) : [] };
}

/** The conversation of one window: each message once, where it first appears, texts bounded. */
export async function readSessionConversation(
  principal: Principal,
  input: SessionWindowInput,
  prisma: Db,
): Promise<SessionWindow<{ items: ChatItem[] }>> {
  authorize(principal, "sessions.read");
  const { window, cursor, nextCursor } = await readWindow(parseInput(SessionWindowInput, input), prisma);
  return { cursor, nextCursor, items: window ? conversationOf(window, cursor) : [] };
}

/** One step whole: a model call's full input rebuilt from the stored prefixes. */
export async function getSessionStep(principal: Principal, input: SessionStepInput, prisma: Db): Promise<SessionEvent> {
  authorize(principal, "sessions.read");
  const { sessionId, seq } = parseInput(SessionStepInput, input);
  const row = await fullEvent(prisma, sessionId, seq);
  if (!row) {
    if (!(await sessionOverview(prisma, sessionId, { metadata: "stored" }))) throw notFound("session", sessionId);
    throw new AppError("not_found", `Session "${sessionId}" has no step ${seq}.`, [
      { path: "seq", message: "no such step" },
    ]);
  }
  return toSessionEvent(row);
}

export type SessionSearchResult = {
  /** `in: steps|names`: the matching steps (steps: whole, with the calls they asked for). */
  steps: StepSummary[];
  /** `in: chat`: the matching messages. */
  items: ChatItem[];
  /** How many match (steps: steps with their calls; names: steps; chat: messages); at most 200 are returned. */
  matches: number;
  /** What they were found among (steps: steps with their calls; names: steps; chat: messages). */
  total: number;
};

/** Search one session, a window at a time: the first 200 matches and how many there are. */
export async function searchSession(
  principal: Principal,
  input: SessionSearchInput,
  prisma: Db,
): Promise<SessionSearchResult> {
  authorize(principal, "sessions.read");
  const { sessionId, q: raw, in: where } = parseInput(SessionSearchInput, input);
  const q = raw.toLowerCase();
  const session = await sessionOverview(prisma, sessionId, { metadata: "stored" });
  if (!session) throw notFound("session", sessionId);
  const result: SessionSearchResult = { steps: [], items: [], matches: 0, total: 0 };
  if (session.firstSeq === null || session.lastSeq === null) return result;
  for (let from = session.firstSeq; from <= session.lastSeq; from += SEARCH_WINDOW) {
    const window = await eventWindow(prisma, sessionId, from, from + SEARCH_WINDOW);
    if (where === "chat") {
      for (const item of conversationOf(window, from)) {
        result.total++;
        if (!chatSearchText(item).includes(q)) continue;
        if (result.matches++ < MATCHES_MAX) result.items.push(item);
      }
      continue;
    }
    const summaries = summariesOf(window);
    if (where === "names") {
      for (const s of summaries) {
        result.total++;
        if (!(s.name.toLowerCase().includes(q) || s.kind.replace("_", " ").includes(q))) continue;
        if (result.matches++ < MATCHES_MAX) result.steps.push(s);
      }
      continue;
    }
    const bySeq = new Map(summaries.map((s) => [s.seq, s]));
    const events = window.events.map(toSessionEvent);
    for (const node of buildTimeline(events)) {
      result.total++;
      if (![node.event, ...node.children].some((e) => searchTextOf(e).includes(q))) continue;
      if (result.matches++ < MATCHES_MAX)
        for (const e of [node.event, ...node.children]) result.steps.push(bySeq.get(e.seq)!);
    }
  }
  return result;
}
