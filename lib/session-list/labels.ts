/** What a session is called, and what tells it from others called the same: pure, for the list, the palette and pages. */
import { formatDateTime } from "@/lib/format";

type Named = {
  title: string | null;
  externalId: string | null;
  format: string;
  startedAt: Date | string | null;
  agent: { name: string };
};

/**
 * What a session is called: its title; else the id its source gave it, unless that is an OTLP
 * group key (`trace:<hex>`), which no one recognises; else its agent (an OTLP service) and start.
 */
export function sessionLabel(s: Named): string {
  if (s.title) return s.title;
  if (s.externalId && !s.format.startsWith("otlp")) return s.externalId;
  return s.startedAt ? `${s.agent.name} · ${formatDateTime(s.startedAt)}` : s.agent.name;
}

/**
 * The source's id of a session, short enough for a line under its title: a trace id's first 8
 * characters (`trace 0af76519`), else the id the source gave (over 28 characters, its start and end); null when the
 * label already is that id or there is none.
 */
export function sourceId(s: Named): string | null {
  const id = s.externalId;
  if (!id || sessionLabel(s) === id) return null;
  const trace = /^(?:trace[:_-]?)([0-9a-f]{8,})/i.exec(id);
  if (trace) return `trace ${trace[1]!.slice(0, 8)}`;
  // Cut in the middle: a source's ids often differ only at the end (…task-13:trial-2).
  return id.length > 28 ? `${id.slice(0, 12)}…${id.slice(-15)}` : id;
}

/**
 * What tells a session from others with the same title, in one line: when it started (to the
 * second) and its source's id. Six runs of one prompt read the same title; this line does not.
 */
export function sessionDistinction(s: Named): string {
  const started = s.startedAt ? `started ${formatDateTime(s.startedAt)}` : null;
  return [started, sourceId(s)].filter(Boolean).join(" · ");
}
