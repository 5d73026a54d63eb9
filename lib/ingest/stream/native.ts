/**
 * One native session document read as a stream: its fields besides `events` (read first, wherever they sit in
 * the file), then its events one at a time, each checked by the same schema as the whole document's import
 * (lib/ingest/native.ts `NativeEvent`) and by the same rules between events (`eventRules`), and given in the
 * form the whole import gives. Pure: what it keeps is each earlier event's kind, the calls each model call
 * requested, and the tool names seen.
 *
 * Seqs: given on no event, the file's order is the seq order, as in the whole import. Given, the whole import
 * sorts the events by them; a stream cannot, so here they must be the file's order (0, 1, 2…), and an event out
 * of that order is refused by name (the import falls back to the whole document where it is small enough).
 */
import type { SessionEvent } from "@/lib/replay";
import { at, issueAt, zodIssues, type Location } from "../issues";
import {
  eventRules,
  headIssues,
  nativeHead,
  NativeEvent,
  NativeSessionHead,
  normalEvent,
  usageIssues,
} from "../native";
import type { ImportedSession, ImportIssue } from "../types";

export type NativeHead = Omit<ImportedSession, "events">;
type Event = Omit<SessionEvent, "cacheKey" | "occurrence">;

/** The most issues kept (as every import). */
const MAX_ISSUES = 100;

/** The document's fields besides its events, checked and as stored; or their issues. */
export function nativeStreamHead(
  header: Record<string, unknown>,
): { ok: true; head: NativeHead } | { ok: false; issues: ImportIssue[] } {
  const parsed = NativeSessionHead.safeParse(header);
  if (!parsed.success) return { ok: false, issues: zodIssues(parsed.error, { path: [] }) };
  const issues = headIssues(parsed.data).map((i) => issueAt({ path: i.path }, i.message));
  if (issues.length > 0) return { ok: false, issues };
  const tools = (parsed.data.tools ?? []).map((tool) => ({ ...tool }));
  return { ok: true, head: { ...nativeHead(parsed.data), tools } };
}

/** Checks and converts a session's events pushed one at a time, in the file's order. */
export class NativeStream {
  readonly issues: ImportIssue[] = [];
  private count = 0;
  /** Whether the events give their seq: decided by the first event; "mixed" once both were seen. */
  private seqs: "given" | "absent" | "mixed" | null = null;
  private readonly rules = eventRules();
  /** The session's tools: the declared ones, then each tool called that was not declared, in order. */
  readonly tools: NativeHead["tools"];

  constructor(head: NativeHead) {
    this.tools = head.tools.map((tool) => ({ ...tool }));
  }

  get full(): boolean {
    return this.issues.length >= MAX_ISSUES;
  }

  /** The next element of `events` (`index` in the file); the event as stored, or null when it has issues. */
  push(value: unknown, index: number): Event | null {
    this.count++;
    const where: Location = { path: ["events", index] };
    const parsed = NativeEvent.safeParse(value);
    if (!parsed.success) {
      this.add(zodIssues(parsed.error, where));
      return null;
    }
    const event = parsed.data;
    const before = this.issues.length;
    this.add(usageIssues(event, index).map((i) => issueAt({ path: i.path }, i.message)));
    this.checkSeq(event, index, where);
    // The rules see every valid event (they keep its kind for the events after it).
    this.add(this.rules(event, index, index).map((i) => issueAt({ path: i.path }, i.message)));
    if (this.issues.length > before) return null;
    if (event.kind === "tool_call" && !this.tools.some((tool) => tool.name === event.name))
      this.tools.push({ name: event.name });
    return normalEvent(event, index);
  }

  /** The events are over: issues of the whole (no event at all). */
  end(): void {
    if (this.count === 0) this.add([issueAt({ path: ["events"] }, "a session needs at least one event")]);
  }

  private checkSeq(event: NativeEvent, index: number, where: Location) {
    const given = event.seq !== undefined;
    if (this.seqs === null) this.seqs = given ? "given" : "absent";
    const everyOrNone = "seq is given on other events: give it on every event or on none";
    if (this.seqs === "absent" && given) {
      // The whole import names every event without a seq: the ones before this, then the ones after.
      this.seqs = "mixed";
      for (let i = 0; i < index && !this.full; i++) this.add([issueAt({ path: ["events", i, "seq"] }, everyOrNone)]);
    } else if (this.seqs !== "absent" && !given) {
      this.add([issueAt(at(where, "seq"), everyOrNone)]);
    } else if (given && this.seqs === "given" && event.seq !== index) {
      this.add([
        issueAt(
          at(where, "seq"),
          `seq ${event.seq} is not this event's place in the list (${index}): a large file is read as a stream, so its events must be listed in seq order (0, 1, 2…)`,
        ),
      ]);
    }
  }

  private add(issues: ImportIssue[]) {
    for (const issue of issues) if (!this.full) this.issues.push(issue);
  }
}
