/**
 * What the platforms' export files share (Langfuse traces, LangSmith runs): a file is a record, an array or JSON
 * Lines of them, or a list page holding them under one key; each trace maps on its own, and the file imports
 * whole or not at all.
 */
import { isRecord } from "./importer";
import type { JsonInput } from "./json";
import { formatPath, type Path } from "./otlp/path";
import type { ImportedSession, ImportIssue } from "./types";

export type TraceResult =
  { ok: true; session: ImportedSession; warnings: ImportIssue[] } | { ok: false; issues: ImportIssue[] };
export type TraceFileImport =
  { ok: true; sessions: ImportedSession[]; warnings: ImportIssue[] } | { ok: false; issues: ImportIssue[] };

/** Whether a file's first record (first line, first element, first of a list page's `key`) looks like `looks`. */
export function firstLooksLike(input: JsonInput, key: string, looks: (value: unknown) => boolean): boolean {
  if (input.shape === "lines") return looks(input.lines[0]?.value);
  const v = input.value;
  if (Array.isArray(v)) return looks(v[0]);
  if (isRecord(v) && Array.isArray(v[key]) && !("id" in v)) return looks((v[key] as unknown[])[0]);
  return looks(v);
}

/** Maps each trace in turn: every session, or the first 100 issues (a line of JSON Lines names where). */
export function importEach<T extends { line?: number }>(traces: readonly T[], map: (trace: T) => TraceResult) {
  const sessions: ImportedSession[] = [];
  const issues: ImportIssue[] = [];
  const warnings: ImportIssue[] = [];
  for (const trace of traces) {
    const mapped = map(trace);
    const line = trace.line;
    const prefix = (i: ImportIssue) =>
      line !== undefined ? { ...i, path: `line ${line}${i.path ? `: ${i.path}` : ""}` } : i;
    if (!mapped.ok) issues.push(...mapped.issues.map(prefix));
    else {
      sessions.push(mapped.session);
      warnings.push(...mapped.warnings.map(prefix));
    }
    if (issues.length >= 100) break;
  }
  const result: TraceFileImport =
    issues.length > 0 ? { ok: false, issues: issues.slice(0, 100) } : { ok: true, sessions, warnings };
  return result;
}

/** A trace with no step at all (no llm, tool or other span, and no output), refused at its first item's path. */
export const noStepsIn = (list: readonly { path: Path }[], traceId: string): TraceResult => ({
  ok: false,
  issues: [
    {
      path: formatPath(list[0]?.path ?? []),
      message: `trace ${traceId}: no llm, tool or other step, and no output: nothing to import`,
    },
  ],
});
