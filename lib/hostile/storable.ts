import type { ImportedSession, ImportIssue } from "@/lib/ingest/types";
import { compactInputs, expandInputs } from "@/lib/sessions/inputs";
import { repairLoneSurrogates } from "./text";

/**
 * The last check before an import is written: what the schema accepted but
 * the database cannot hold. Each is a 400 naming the field, found before the
 * transaction starts, so nothing is written (before, each was a 500 from the
 * driver after part of the work had run).
 */

/** PostgreSQL `integer`: durations, token counts and seqs are stored in one. */
export const MAX_INT4 = 2_147_483_647;
/** Names and ids that sit in a unique index (a B-tree row holds at most ~2.7 KB). */
export const MAX_KEY_CHARS = 512;
/** A session title: shown in every list, so bounded (a 10 MB title made the list page 21 MB). */
export const MAX_TITLE_CHARS = 1_000;
/** The dates PostgreSQL's timestamptz and JS both hold without surprise. */
const MIN_DATE_MS = Date.UTC(1, 0, 1);
const MAX_DATE_MS = Date.UTC(9999, 11, 31, 23, 59, 59, 999);

export type StorableResult = { ok: true; sessions: ImportedSession[] } | { ok: false; issues: ImportIssue[] };

function checkDate(value: string | null | undefined, path: string, issues: ImportIssue[]): void {
  if (value === null || value === undefined) return;
  const ms = Date.parse(value);
  if (!Number.isFinite(ms) || ms < MIN_DATE_MS || ms > MAX_DATE_MS)
    issues.push({
      path,
      message: `must be a date between the years 1 and 9999 (got ${JSON.stringify(value.slice(0, 40))})`,
    });
}

function checkInt(value: number | null | undefined, path: string, issues: ImportIssue[], rounded = false): void {
  if (value === null || value === undefined) return;
  const v = rounded ? Math.round(value) : value;
  if (!Number.isFinite(v) || v < 0 || v > MAX_INT4)
    issues.push({ path, message: `must be between 0 and ${MAX_INT4} (got ${value})` });
}

function checkKey(value: string | null | undefined, path: string, issues: ImportIssue[], max = MAX_KEY_CHARS): void {
  if (value === null || value === undefined) return;
  if (value.length > max) issues.push({ path, message: `is ${value.length} characters long; the limit is ${max}` });
}

/**
 * Sessions as they will be written: lone surrogates repaired (counted in
 * `metadata.repairedCharacters`), and every value checked against what the
 * columns hold. Paths name the session and event (`sessions[0].events[3].durationMs`).
 */
export function storableSessions(sessions: readonly ImportedSession[]): StorableResult {
  const issues: ImportIssue[] = [];
  const out: ImportedSession[] = [];
  sessions.forEach((raw, index) => {
    const { value: s, replaced } = repairSession(raw);
    const at = sessions.length === 1 ? "" : `sessions[${index}].`;
    checkKey(s.agent.name, `${at}agent.name`, issues);
    checkKey(s.agentVersion.version, `${at}agentVersion.version`, issues);
    checkKey(s.externalId, `${at}externalId`, issues);
    checkKey(s.title, `${at}title`, issues, MAX_TITLE_CHARS);
    checkDate(s.startedAt, `${at}startedAt`, issues);
    checkDate(s.endedAt, `${at}endedAt`, issues);
    s.tools.forEach((t, k) => checkKey(t.name, `${at}tools[${k}].name`, issues));
    let inputTokens = 0;
    let outputTokens = 0;
    s.events.forEach((e, k) => {
      checkStorableEvent(e, `${at}events[${k}]`, issues);
      inputTokens += e.usage?.inputTokens ?? 0;
      outputTokens += e.usage?.outputTokens ?? 0;
    });
    checkStorableTotals({ inputTokens, outputTokens }, at, issues);
    if (s.startedAt && s.endedAt) {
      const span = Date.parse(s.endedAt) - Date.parse(s.startedAt);
      if (Number.isFinite(span)) checkInt(Math.max(0, span), `${at}endedAt (the session lasts too long in ms)`, issues);
    }
    out.push(replaced > 0 ? { ...s, metadata: { ...s.metadata, repairedCharacters: replaced } } : s);
  });
  return issues.length > 0 ? { ok: false, issues: issues.slice(0, 100) } : { ok: true, sessions: out };
}

/** One event's values checked against what the columns hold (`ep`: its path, `events[3]`). */
export function checkStorableEvent(
  e: Pick<ImportedSession["events"][number], "name" | "durationMs" | "usage" | "startedAt">,
  ep: string,
  issues: ImportIssue[],
): void {
  checkKey(e.name, `${ep}.name`, issues);
  checkInt(e.durationMs, `${ep}.durationMs`, issues, true);
  checkInt(e.usage?.inputTokens, `${ep}.usage.inputTokens`, issues);
  checkInt(e.usage?.outputTokens, `${ep}.usage.outputTokens`, issues);
  checkInt(e.usage?.cachedInputTokens, `${ep}.usage.cachedInputTokens`, issues);
  checkInt(e.usage?.cacheWriteInputTokens, `${ep}.usage.cacheWriteInputTokens`, issues);
  checkDate(e.startedAt, `${ep}.startedAt`, issues);
}

/** A session's token totals checked against the column (`at`: the session's path prefix, "" for one session). */
export function checkStorableTotals(
  totals: { inputTokens: number; outputTokens: number },
  at: string,
  issues: ImportIssue[],
): void {
  checkInt(totals.inputTokens, `${at}events[*].usage.inputTokens (the session's total)`, issues);
  checkInt(totals.outputTokens, `${at}events[*].usage.outputTokens (the session's total)`, issues);
}

/**
 * The session with its lone surrogates repaired, walking each message once: a
 * model call's input repeats the conversation so far, so the walk reads the
 * inputs in their stored form (each message where it first appears) and
 * rebuilds the full ones only when something was repaired.
 */
function repairSession(raw: ImportedSession): { value: ImportedSession; replaced: number } {
  const compact = compactInputs(raw.events, { digests: false });
  const { value, replaced } = repairLoneSurrogates({
    ...raw,
    events: raw.events.map((e, i) => ({ ...e, input: compact[i]!.input })),
  });
  if (replaced === 0) return { value: raw, replaced };
  const inputs = expandInputs(value.events.map((e, i) => ({ ...e, prefix: compact[i]!.prefix })));
  return { value: { ...value, events: value.events.map((e, i) => ({ ...e, input: inputs[i] })) }, replaced };
}
