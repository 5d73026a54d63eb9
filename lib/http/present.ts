import { toSessionEvent, type SessionListItem, type SessionWithEvents } from "@/lib/db";
import type { SessionHead } from "@/lib/db/session-reads";
import { fullInputJson } from "@/lib/sessions/inputs";
import type { PolicyWithVersions } from "@/lib/db/policies";
import type { ExperimentDetail } from "@/lib/server/experiments/experiments";
import { experimentCountsOf } from "@/lib/server/experiments/experiment-status";
import type { ReplayView } from "@/lib/db/replays";
import { isBaseOnly, isPlainObject, type PolicyIssue } from "@/lib/replay";

/** A replay as the HTTP API returns it (`{ replay: { id, status, steps, comparability, evidence, pending? } }`). */
export function presentReplay(
  view: Pick<ReplayView, "replay" | "steps" | "evidence" | "pending" | "fixtures" | "approvals">,
  warnings?: readonly PolicyIssue[],
) {
  const { replay } = view;
  return {
    id: replay.id,
    sessionId: replay.sessionId,
    status: replay.status,
    comparability: replay.comparability,
    policyHash: replay.policyHash,
    policyVersion: replay.policyVersion,
    policy: replay.policySnapshot,
    edits: replay.edits,
    createdBy: replay.createdBy,
    createdAt: replay.createdAt.toISOString(),
    finishedAt: replay.finishedAt?.toISOString() ?? null,
    error: replay.error,
    progress: replay.progress,
    cancelRequested: replay.cancelRequested,
    attempts: replay.attempts,
    steps: view.steps,
    evidence: view.evidence,
    pending: view.pending,
    fixtures: view.fixtures.map((f) => ({ ...f, createdAt: f.createdAt.toISOString() })),
    approvals: view.approvals,
    ...(warnings && warnings.length > 0 ? { warnings } : {}),
  };
}

/** The aligned comparison with its base (pairs, first divergence, metric deltas), with the evidence. */
export function presentComparison(view: ReplayView) {
  const { comparison } = view;
  return {
    replayId: view.replay.id,
    sessionId: view.session.id,
    status: view.replay.status,
    comparability: view.replay.comparability,
    policyHash: view.replay.policyHash,
    firstDivergence: comparison.firstDivergence,
    pairs: comparison.pairs.map((p) => ({
      id: p.id,
      type: p.type,
      baseSeq: p.type === "inserted" ? null : p.base.seq,
      branchSeq: isBaseOnly(p) ? null : p.branch.seq,
      base: p.type === "inserted" ? null : p.base,
      branch: isBaseOnly(p) ? null : p.branch,
      ...(p.type === "changed" ? { delta: p.delta } : {}),
    })),
    finalOutputDiff: comparison.finalOutputDiff,
    metrics: comparison.metrics,
    evidence: view.evidence,
    fixtures: view.fixtures.map((f) => ({ ...f, createdAt: f.createdAt.toISOString() })),
    approvals: view.approvals,
  };
}

/** The API's shape of an experiment (dates as ISO strings). */
export function presentExperiment(e: ExperimentDetail) {
  return {
    id: e.id,
    name: e.name,
    status: e.status,
    createdAt: e.createdAt.toISOString(),
    finishedAt: e.finishedAt?.toISOString() ?? null,
    policyVersion: e.policyVersion,
    agentVersion: e.agentVersion,
    total: e.summary.total,
    done: e.summary.done,
    summary: e.summary,
    ...experimentCountsOf(e),
    results: e.results.map((r) => ({ ...r, sessionId: r.session.id })),
    edit: e.edit,
  };
}

/** What names a session and says how it ended, first in both the list and the single-session answers. */
function sessionIdentity(s: SessionListItem | SessionHead) {
  return {
    id: s.id,
    title: s.title,
    externalId: s.externalId,
    format: s.format,
    status: s.status,
    // Whether the run did its job (lib/sessions/outcome.ts); a row not yet worked out reads "unknown".
    outcome: s.outcome ?? "unknown",
    outcomeReason: s.outcomeReason,
    outcomeSeq: s.outcomeSeq,
  };
}

/** A session's totals, as both the list and the single-session answers show them (in this order). */
function sessionTotals(s: SessionListItem | SessionHead) {
  return {
    durationMs: s.durationMs,
    eventCount: s.eventCount,
    modelCallCount: s.modelCallCount,
    toolCallCount: s.toolCallCount,
    errorCount: s.errorCount,
    inputTokens: s.inputTokens,
    outputTokens: s.outputTokens,
    costUsd: s.costUsd,
    /** source | price_table (estimated from the price table) | none; null while it is worked out. */
    costSource: s.costSource,
    toolNames: s.toolNames,
  };
}

/** A session in a list, as the API shows it. */
export function presentListItem(s: SessionListItem) {
  return {
    ...sessionIdentity(s),
    agent: s.agent,
    agentVersion: s.agentVersion.version,
    agentVersionId: s.agentVersionId,
    startedAt: s.startedAt,
    ...sessionTotals(s),
    createdAt: s.createdAt,
  };
}

/** A session without its events, as the API shows it (the fields before `events`). */
export function presentSessionHead(s: SessionHead) {
  return {
    ...sessionIdentity(s),
    isReplay: s.isReplay,
    agent: { id: s.agent.id, name: s.agent.name, adapter: s.agent.adapter },
    agentVersion: { id: s.agentVersion.id, version: s.agentVersion.version, capabilities: s.agentVersion.capabilities },
    startedAt: s.startedAt,
    endedAt: s.endedAt,
    ...sessionTotals(s),
    metadata: s.metadata,
    createdAt: s.createdAt,
  };
}

type EventRow = SessionWithEvents["events"][number];

const prefixOf = (e: EventRow) =>
  e.inputPrefixSeq === null ? null : { seq: e.inputPrefixSeq, count: e.inputPrefixCount ?? 0 };

/**
 * One session with its events in order, each in the stored event shape. With inputs
 * "delta" (the session as read in that form), each event also carries
 * `inputPrefix`: null, or `{ seq, count }` when its input's messages follow
 * the first `count` messages of event `seq`'s full input.
 */
export function presentSession(s: SessionWithEvents, opts: { inputs?: "full" | "delta" } = {}) {
  return {
    ...presentSessionHead(s),
    events:
      opts.inputs === "delta"
        ? s.events.map((e) => ({ ...toSessionEvent(e), inputPrefix: prefixOf(e) }))
        : s.events.map(toSessionEvent),
  };
}

/**
 * `{ session: presentSession(s, opts) }` as JSON text in pieces, from the
 * session's head and its event rows in seq order in their STORED form: the
 * same document byte for byte, but an event at a time (full inputs rebuilt as
 * the rows go by, from the latest model call's messages), so that neither the
 * session nor the document is ever held whole.
 */
export async function* presentSessionJson(
  head: SessionHead,
  rows: AsyncIterable<EventRow>,
  opts: { inputs?: "full" | "delta" } = {},
): AsyncGenerator<string> {
  const document = JSON.stringify({ session: { ...presentSessionHead(head), events: [] } });
  yield `${document.slice(0, -"[]}}".length)}[`;
  const delta = opts.inputs === "delta";
  yield* eventsJson(head, rows, delta ? "delta" : "full", (row, rest) =>
    delta ? { ...rest, inputPrefix: prefixOf(row) } : rest,
  );
  yield "]}}";
}

type EventRest = Omit<ReturnType<typeof toSessionEvent>, "seq" | "kind" | "name" | "input">;

/**
 * A session's events as the comma-separated JSON objects of an array, an event at a time: toSessionEvent's keys
 * in its order with the input's text put in place (rebuilt whole from the stored prefix unless `inputs` is
 * "delta"), and `after` choosing what follows the input.
 */
async function* eventsJson(
  head: SessionHead,
  rows: AsyncIterable<EventRow>,
  inputs: "full" | "delta",
  after: (row: EventRow, rest: EventRest) => object,
): AsyncGenerator<string> {
  const fullInput = inputs === "delta" ? null : fullInputJson();
  let comma = "";
  let sent = 0;
  for await (const row of rows) {
    sent++;
    const { seq, kind, name, input, ...rest } = toSessionEvent(row);
    const inputText = fullInput
      ? fullInput({ seq: row.seq, kind: row.kind, input: row.input, prefix: prefixOf(row) })
      : JSON.stringify(input);
    yield `${comma}${JSON.stringify({ seq, kind, name }).slice(0, -1)},"input":${inputText},${JSON.stringify(after(row, rest)).slice(1)}`;
    comma = ",";
  }
  // The windows are read one after another, not as one snapshot: a session rewritten under the read (a trace
  // export, a rebuild) shows as a different number of events, and the body is cut rather than closed as if whole.
  if (sent !== head.eventCount)
    throw new Error(`session ${head.id} changed while it was sent: ${sent} events read, ${head.eventCount} expected`);
}

/** What a native document says of one of the agent's tools. */
export type NativeToolRow = { name: string; schema: unknown; sideEffect: string };

/**
 * One session as a native document on one line (JSON Lines), to be imported again anywhere: its agent, version
 * and tools, and its events with their inputs whole. The ids, counts and figures worked out on import are left
 * out (an import works them out again), as are the cache keys.
 */
export async function* presentNativeSessionLine(
  head: SessionHead,
  tools: readonly NativeToolRow[],
  rows: AsyncIterable<EventRow>,
): AsyncGenerator<string> {
  const document = JSON.stringify({
    externalId: head.externalId,
    title: head.title,
    agent: { name: head.agent.name, adapter: head.agent.adapter },
    agentVersion: { version: head.agentVersion.version, capabilities: head.agentVersion.capabilities },
    startedAt: head.startedAt,
    endedAt: head.endedAt,
    ...(isPlainObject(head.metadata) ? { metadata: head.metadata } : {}),
    tools: tools.map((t) => ({
      name: t.name,
      ...(t.schema === null || t.schema === undefined ? {} : { schema: t.schema }),
      sideEffect: t.sideEffect,
    })),
    events: [],
  });
  yield `${document.slice(0, -"[]}".length)}[`;
  yield* eventsJson(head, rows, "full", (_row, { cacheKey: _key, occurrence: _occurrence, ...rest }) => rest);
  yield "]}\n";
}

/** A policy as the API shows it: its versions newest first, each with its document and hash. */
export function presentPolicy(p: PolicyWithVersions) {
  return {
    id: p.id,
    name: p.name,
    agent: p.agent,
    latestVersion: p.latestVersion,
    createdAt: p.createdAt,
    updatedAt: p.updatedAt,
    versions: p.versions.map((v) => ({
      id: v.id,
      version: v.version,
      hash: v.hash,
      note: v.note,
      createdAt: v.createdAt,
      document: v.document,
    })),
  };
}
