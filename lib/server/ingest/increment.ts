import {
  dropListedTraceIds,
  loadAgentsRequest,
  reachingRows,
  readAgentsWindow,
  setColumns,
} from "@/lib/db/agents-increment";
import type { SqlTx } from "@/lib/db/sql";
import {
  keyedRows,
  loadOtlpRequest,
  prefixEvents,
  readOtlpWindow,
  replaceRow,
  rowsOfTraces,
  sessionDigests,
  sessionRows,
  writeCreated,
  writePlan,
} from "@/lib/db/trace-increment";
import { isFallback } from "@/lib/ingest/increment/state";
import type { IncrementPlan, Planner, Read } from "@/lib/ingest/increment/types";

// ---------------------------------------------------------------------------
// Runs an incremental plan (lib/ingest/increment): answers each read it asks
// for with the source's SQL (lib/db), then, once the plan holds, writes it.
// A plan that falls back has written nothing; its reason is counted.
// ---------------------------------------------------------------------------

/** Why requests took the full rebuild, counted (for the benchmark and the tests). */
export const fallbacks = new Map<string, number>();

/** The SQL answer to a planner's read, for one source. */
function answer(sql: SqlTx, kind: "otlp" | "agents", read: Read): Promise<unknown> {
  switch (read.kind) {
    case "load":
      return kind === "otlp"
        ? loadOtlpRequest(sql, read.traceIds, read.ownKeys)
        : loadAgentsRequest(sql, read.traceIds, read.ownKeys);
    case "window":
      return kind === "otlp" ? readOtlpWindow(sql, read) : readAgentsWindow(sql, read);
    case "traces":
      return rowsOfTraces(sql, read.traceIds);
    case "reaching":
      return reachingRows(sql, read.sessionId, read.c, read.window);
    case "sessionRows":
      return sessionRows(sql, read.sessionId);
    case "sessionDigests":
      return sessionDigests(sql, read.sessionId);
    case "prefixEvents":
      return prefixEvents(sql, read.sessionId, read.from);
    case "keyed":
      return keyedRows(sql, read.keys);
  }
}

/**
 * The plan, its reads answered; null (counted by reason) when the request must take the full rebuild.
 * `onLoad` sees the answer to the planner's first read (the request's stored rows, sessions and, for OTLP, the
 * log events stored for its traces) before the planner does.
 */
export async function runPlanner<S>(
  sql: SqlTx,
  kind: "otlp" | "agents",
  planner: Planner<IncrementPlan<S>>,
  onLoad?: (loaded: unknown) => void,
): Promise<IncrementPlan<S> | null> {
  let step = planner.next();
  while (!step.done) {
    const read = step.value;
    const answered = await answer(sql, kind, read);
    if (read.kind === "load") onLoad?.(answered);
    step = planner.next(answered);
  }
  const result = step.value;
  if (!isFallback(result)) return result;
  fallbacks.set(result.fallback, (fallbacks.get(result.fallback) ?? 0) + 1);
  return null;
}

/**
 * A plan's writes (none before it: a request that falls back writes nothing). Per group, its rows' read
 * columns corrected, its session, its events from the window on and its new rows in one statement; then the
 * groups it starts (their sessions and rows); then the rows of better copies. The sessions it reaches, as the
 * full rebuild reports them.
 */
export async function writeIncrement<S>(
  sql: SqlTx,
  plan: IncrementPlan<S>,
): Promise<{ id: string; eventCount: number; externalId: string }[]> {
  for (const { plan: group, spans, fixes, derived } of plan.groups) {
    if (fixes.length > 0) await setColumns(sql, fixes);
    if (derived) await dropListedTraceIds(sql, group.session.id);
    await writePlan(sql, group, spans);
  }
  const created = plan.created.length > 0 ? await writeCreated(sql, plan.created) : [];
  for (const replacement of plan.replacements) await replaceRow(sql, replacement);
  return [...plan.sessions, ...created];
}
