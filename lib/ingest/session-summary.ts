/**
 * What an imported trace's session is summed up by, the same for every platform a pull reads (LangSmith,
 * Langfuse, Braintrust): its title, the names of the tools it called, when it started and ended, and the
 * session itself as each of them builds it.
 */
import type { Message } from "@/lib/replay";
import { metadataTitle } from "./title";
import type { ImportedSession } from "./types";

type PlatformFormat = "braintrust" | "langsmith" | "langfuse";

type Events = ImportedSession["events"];

/**
 * The title a platform gave the run in its metadata, else the first user message of its first model call (on one
 * line, 80 characters), else `fallback` (the root's name); null when there is none.
 */
export function sessionTitle(metadata: unknown, events: Events, fallback: string | null | undefined): string | null {
  const firstModel = events.find((e) => e.kind === "model_call");
  const firstUser = (firstModel?.input as { messages?: Message[] } | undefined)?.messages?.find(
    (m) => m.role === "user",
  );
  const userText = typeof firstUser?.content === "string" ? firstUser.content.replace(/\s+/g, " ").trim() : "";
  return metadataTitle(metadata) ?? (userText ? userText.slice(0, 80) : fallback) ?? null;
}

/** The tools the session called, each once, sorted. */
export const calledToolNames = (events: Events): string[] =>
  [...new Set(events.flatMap((e) => (e.kind === "tool_call" ? [e.name] : [])))].sort();

/**
 * When the session started (its earliest start; null with none) and ended (its latest end; null while a span is
 * still open or none ended), from times in milliseconds.
 */
export function sessionTimes(starts: readonly number[], ends: readonly number[], open: boolean) {
  return {
    startedAt: starts.length > 0 ? new Date(starts.reduce((a, b) => Math.min(a, b))).toISOString() : null,
    endedAt: !open && ends.length > 0 ? new Date(ends.reduce((a, b) => Math.max(a, b))).toISOString() : null,
  };
}

/** The string tags of a platform's trace (anything else in the list is dropped). */
export const stringTags = (tags: unknown): string[] =>
  Array.isArray(tags) ? tags.filter((t): t is string => typeof t === "string") : [];

/**
 * A platform trace's session: its version "unknown" when the trace names none, its times from `starts` and `ends`
 * (milliseconds; no end while `open`), the platform's own fields kept in the metadata under the format's name, and
 * a tool entry for each tool it called (`schemaOf` adds a schema the trace declared).
 */
export function platformSession(p: {
  format: PlatformFormat;
  externalId: string;
  title: string | null;
  agent: ImportedSession["agent"];
  version: string | null;
  starts: readonly number[];
  ends: readonly number[];
  open: boolean;
  details: Record<string, unknown>;
  events: Events;
  schemaOf?: (tool: string) => { schema: unknown } | null;
}): ImportedSession {
  return {
    externalId: p.externalId,
    title: p.title,
    agent: p.agent,
    agentVersion: { version: p.version ?? "unknown", capabilities: [] },
    format: p.format,
    ...sessionTimes(p.starts, p.ends, p.open),
    metadata: { source: p.format, [p.format]: p.details },
    tools: calledToolNames(p.events).map((name) => ({ name, ...p.schemaOf?.(name) })),
    events: p.events,
  };
}
