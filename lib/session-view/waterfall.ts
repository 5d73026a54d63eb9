import type { SessionEvent } from "@/lib/replay";

/** One bar of the latency waterfall: where the step starts and how long it ran, relative to the session. */
export interface WaterfallRow {
  seq: number;
  kind: SessionEvent["kind"];
  name: string;
  status: SessionEvent["status"];
  /** Milliseconds from the session's first start; null when the step has no start time. */
  offsetMs: number | null;
  durationMs: number | null;
  tokens: number | null;
  costUsd: number | null;
  /** Set on tool calls that ran in parallel with another call of the same model step: the group's key. */
  parallelGroup: number | null;
  parallelSize: number;
}

/** What a waterfall row needs of a step (a full event or its summary). */
export type WaterfallStep = Pick<
  SessionEvent,
  "seq" | "kind" | "name" | "status" | "startedAt" | "durationMs" | "usage" | "parentSeq"
>;

export interface Waterfall {
  rows: WaterfallRow[];
  /** The span the bars are drawn against (first start to last end), in ms; 0 when nothing is timed. */
  totalMs: number;
}

/**
 * The waterfall of a session: one row per step. Tool calls asked for by the
 * same model step form a parallel group when there are several and their
 * times overlap (or when they have no times: the model asked for them at once).
 */
export function buildWaterfall(
  events: readonly WaterfallStep[],
  /** For a window of a longer session: the session's first start (ms since the epoch). */
  opts: { t0?: number | null } = {},
): Waterfall {
  const starts = events.map((e) => (e.startedAt ? Date.parse(e.startedAt) : NaN));
  const timed = starts.filter((t) => Number.isFinite(t));
  const t0 = opts.t0 !== undefined ? opts.t0 : timed.length > 0 ? timed.reduce((a, b) => Math.min(a, b)) : null;
  let end = 0;
  const rows: WaterfallRow[] = events.map((e, i) => {
    const start = starts[i]!;
    const offsetMs = t0 !== null && Number.isFinite(start) ? start - t0 : null;
    if (offsetMs !== null) end = Math.max(end, offsetMs + (e.durationMs ?? 0));
    const u = e.usage;
    return {
      seq: e.seq,
      kind: e.kind,
      name: e.name,
      status: e.status,
      offsetMs,
      durationMs: e.durationMs,
      tokens: u ? (u.inputTokens ?? 0) + (u.outputTokens ?? 0) : null,
      costUsd: u?.costUsd ?? null,
      parallelGroup: null,
      parallelSize: 1,
    };
  });
  const byParent = new Map<number, WaterfallRow[]>();
  events.forEach((e, i) => {
    if (e.kind !== "tool_call" || e.parentSeq === null) return;
    const group = byParent.get(e.parentSeq);
    if (group) group.push(rows[i]!);
    else byParent.set(e.parentSeq, [rows[i]!]);
  });
  for (const [parent, group] of byParent) {
    if (group.length < 2) continue;
    const untimed = group.some((r) => r.offsetMs === null);
    const overlapping =
      untimed ||
      group.some((a, i) =>
        group.some(
          (b, j) =>
            i < j && a.offsetMs! < b.offsetMs! + (b.durationMs ?? 0) && b.offsetMs! < a.offsetMs! + (a.durationMs ?? 0),
        ),
      );
    if (!overlapping) continue;
    for (const r of group) {
      r.parallelGroup = parent;
      r.parallelSize = group.length;
    }
  }
  return { rows, totalMs: end };
}
