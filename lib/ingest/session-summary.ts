/**
 * What an imported trace's session is summed up by, the same for every platform a pull reads (LangSmith,
 * Langfuse, Braintrust): its title, the names of the tools it called and when it started and ended.
 */
import type { Message } from "@/lib/replay";
import { metadataTitle } from "./title";
import type { ImportedSession } from "./types";

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
