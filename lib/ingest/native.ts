import { z } from "zod";
import {
  assignCallIdentity,
  EventError,
  EventStatus,
  Message,
  ModelCallInput,
  ToolCallInput,
  Usage,
  type SessionEvent,
} from "@/lib/replay";
import { firstRecord, isRecord, recordsOf, type FormatOutcome, type JsonImporter } from "./importer";
import { zodIssues, type Location } from "./issues";
import type { JsonInput } from "./json";
import { Adapter, Capability, SideEffect, type ImportedSession, type ImportIssue } from "./types";

// ---------------------------------------------------------------------------
// The native format: one Branchpoint session per document (or JSONL of them),
// checked by one zod schema that is also published as JSON Schema.
// ---------------------------------------------------------------------------

const Seq = z.number().int().nonnegative();

const eventFields = {
  seq: Seq.optional().describe("0-based position; when given on every event, the seqs must be exactly 0..n-1"),
  name: z.string().min(1).describe("tool name, model id, or a label for user_message/final_output"),
  error: EventError.nullable().optional(),
  status: EventStatus.optional().describe("defaults to `failed` when `error` is set, else `completed`"),
  startedAt: z.iso.datetime({ offset: true }).nullable().optional(),
  durationMs: z.number().nonnegative().nullable().optional(),
  usage: Usage.nullable().optional(),
  parentSeq: Seq.nullable().optional().describe("the seq of an earlier model_call this event came from"),
  cacheKey: z.unknown().optional().describe("ignored: derived on import"),
  occurrence: z.unknown().optional().describe("ignored: derived on import"),
};

export const AssistantMessage = Message.extend({
  role: z.literal("assistant"),
});
export type AssistantMessage = z.infer<typeof AssistantMessage>;

export const NativeEvent = z.discriminatedUnion("kind", [
  z.strictObject({
    ...eventFields,
    kind: z.literal("model_call"),
    input: ModelCallInput,
    output: AssistantMessage.nullable().optional().describe("the assistant message, with the tool calls it requested"),
  }),
  z.strictObject({
    ...eventFields,
    kind: z.literal("tool_call"),
    input: ToolCallInput,
    output: z.unknown().optional().describe("the tool result, exactly as the tool returned it"),
    parentSeq: Seq.describe("the seq of the model_call that requested this call"),
  }),
  z.strictObject({
    ...eventFields,
    kind: z.literal("user_message"),
    input: z.unknown().optional(),
    output: z.unknown().describe("the message content"),
  }),
  z.strictObject({
    ...eventFields,
    kind: z.literal("final_output"),
    input: z.unknown().optional(),
    output: z.unknown().describe("the run's answer (text or JSON)"),
  }),
]);
export type NativeEvent = z.infer<typeof NativeEvent>;

export const NativeTool = z.strictObject({
  name: z.string().min(1),
  schema: z.unknown().optional().describe("the tool's JSON Schema, when known"),
  sideEffect: SideEffect.optional().describe("defaults to `unknown`; only `none` and `read` count as read-only"),
});
export type NativeTool = z.infer<typeof NativeTool>;

/** The native session document, validated in full (shape, seq order and references). */
const NativeSessionFields = z.strictObject({
  externalId: z.string().min(1).nullable().optional().describe("a stable id from the source; re-imports use it"),
  title: z.string().nullable().optional(),
  agent: z.strictObject({ name: z.string().min(1), adapter: Adapter }),
  agentVersion: z.strictObject({
    version: z.string().min(1),
    capabilities: z.array(Capability),
  }),
  startedAt: z.iso.datetime({ offset: true }).nullable().optional(),
  endedAt: z.iso.datetime({ offset: true }).nullable().optional(),
  metadata: z.record(z.string(), z.unknown()).optional(),
  tools: z.array(NativeTool).optional(),
  events: z.array(NativeEvent).min(1, "a session needs at least one event"),
});

/** A native session's fields besides its events, checked alone (an import read as a stream). */
export const NativeSessionHead = NativeSessionFields.omit({ events: true });

export const NativeSession = NativeSessionFields.superRefine((session, ctx) => {
  for (const { path, message } of integrityIssues(session)) ctx.addIssue({ code: "custom", path, message });
}).meta({
  title: "Branchpoint native session",
  description:
    "One recorded agent run. A file holds one session, a JSON array of sessions, or JSON Lines (one session per line).",
});
export type NativeSession = z.infer<typeof NativeSession>;

/** NativeSession as JSON Schema (draft 2020-12), describing what an importer accepts. */
export const nativeSessionJsonSchema = z.toJSONSchema(NativeSession, {
  io: "input",
  target: "draft-2020-12",
});

// ---------------------------------------------------------------------------
// Referential integrity: the checks zod's shapes cannot express.
// ---------------------------------------------------------------------------

type RawSession = z.infer<typeof NativeSessionFields>;
type IntegrityIssue = { path: (string | number)[]; message: string };

/** The events' indices in seq order, or the issues that make seq unusable. */
function seqOrder(events: readonly NativeEvent[]): { order: number[] } | { issues: IntegrityIssue[] } {
  const given = events.filter((event) => event.seq !== undefined).length;
  if (given === 0) return { order: events.map((_, index) => index) };
  const issues: IntegrityIssue[] = [];
  if (given < events.length) {
    events.forEach((event, index) => {
      if (event.seq === undefined) {
        issues.push({
          path: ["events", index, "seq"],
          message: "seq is given on other events: give it on every event or on none",
        });
      }
    });
    return { issues };
  }
  const bySeq = new Map<number, number>();
  events.forEach((event, index) => {
    const seq = event.seq!;
    const other = bySeq.get(seq);
    if (!Number.isInteger(seq) || seq < 0 || seq >= events.length) {
      issues.push({
        path: ["events", index, "seq"],
        message: `seq ${seq} is out of range: the ${events.length} events must have seqs 0..${events.length - 1}`,
      });
    } else if (other !== undefined) {
      issues.push({
        path: ["events", index, "seq"],
        message: `seq ${seq} is already used by events[${other}]`,
      });
    } else {
      bySeq.set(seq, index);
    }
  });
  if (issues.length > 0) return { issues };
  return { order: events.map((_, seq) => bySeq.get(seq)!) };
}

/** What the schema cannot say of a session's fields besides its events: tools declared twice, an end before the start. */
export function headIssues(session: Omit<RawSession, "events">): IntegrityIssue[] {
  const issues: IntegrityIssue[] = [];
  const toolNames = new Map<string, number>();
  (session.tools ?? []).forEach((tool, index) => {
    const first = toolNames.get(tool.name);
    if (first !== undefined) {
      issues.push({
        path: ["tools", index, "name"],
        message: `tool ${JSON.stringify(tool.name)} is already declared at tools[${first}]`,
      });
    } else {
      toolNames.set(tool.name, index);
    }
  });
  if (session.startedAt && session.endedAt && Date.parse(session.endedAt) < Date.parse(session.startedAt)) {
    issues.push({ path: ["endedAt"], message: "endedAt is before startedAt" });
  }
  return issues;
}

/**
 * An event's usage that cannot be: more cached input tokens than input tokens, or more tokens written to and read
 * from the cache together than the input (both are parts of it).
 */
export function usageIssues(event: NativeEvent, index: number): IntegrityIssue[] {
  const issues: IntegrityIssue[] = [];
  const input = event.usage?.inputTokens;
  const cached = event.usage?.cachedInputTokens;
  if (cached !== undefined && cached > (input ?? 0))
    issues.push({
      path: ["events", index, "usage", "cachedInputTokens"],
      message: `cachedInputTokens ${cached} is more than inputTokens (${input ?? "not given"}): the cached tokens are a part of the input`,
    });
  const written = event.usage?.cacheWriteInputTokens;
  if (written !== undefined && written + (cached ?? 0) > (input ?? 0))
    issues.push({
      path: ["events", index, "usage", "cacheWriteInputTokens"],
      message: `cacheWriteInputTokens ${written}${cached ? ` and cachedInputTokens ${cached}` : ""} are more than inputTokens (${input ?? "not given"}): the tokens written to and read from the cache are parts of the input`,
    });
  return issues;
}

function integrityIssues(session: RawSession): IntegrityIssue[] {
  const issues: IntegrityIssue[] = [];
  session.events.forEach((event, index) => {
    issues.push(...usageIssues(event, index));
  });
  issues.push(...headIssues(session));
  const ordered = seqOrder(session.events);
  if ("issues" in ordered) return [...issues, ...ordered.issues];
  const check = eventRules();
  ordered.order.forEach((index, seq) => issues.push(...check(session.events[index]!, seq, index)));
  return issues;
}

/**
 * The rules between events, checked one event at a time in seq order (the whole document's check, and an import
 * read as a stream): a failed event has its error, a parentSeq names an earlier model_call, and a tool_call
 * answers a call that model_call requested, once. Keeps of each earlier event only its kind, and of a model_call
 * the ids and names of the calls it requested.
 */
export function eventRules(): (event: NativeEvent, seq: number, index: number) => IntegrityIssue[] {
  const kinds: NativeEvent["kind"][] = [];
  const requests = new Map<number, { id: string; name: string }[]>();
  /** answers given so far per model_call seq and call id */
  const answered = new Map<string, number>();
  return (event, seq, index) => {
    kinds[seq] = event.kind;
    if (event.kind === "model_call" && event.output?.toolCalls?.length)
      requests.set(
        seq,
        event.output.toolCalls.map((call) => ({ id: call.id, name: call.name })),
      );
    const issues: IntegrityIssue[] = [];
    const at = (...rest: (string | number)[]) => ["events", index, ...rest];
    if (event.status === "failed" && !event.error) {
      issues.push({
        path: at("error"),
        message: "a failed event needs its error {type, message}",
      });
    }
    if (event.error && event.status !== undefined && event.status !== "failed") {
      issues.push({
        path: at("status"),
        message: `an event with an error must have status "failed", not ${JSON.stringify(event.status)}`,
      });
    }
    const parentSeq = event.parentSeq;
    if (parentSeq === null || parentSeq === undefined) return issues;
    // Checked here too: the schema's issues do not stop this pass, and a negative or fractional seq has no event.
    if (!Number.isInteger(parentSeq) || parentSeq < 0) {
      issues.push({
        path: at("parentSeq"),
        message: `parentSeq must be the seq of an earlier event (got ${parentSeq})`,
      });
      return issues;
    }
    if (parentSeq >= seq) {
      issues.push({
        path: at("parentSeq"),
        message: `parentSeq ${parentSeq} must be an earlier event than this one (seq ${seq})`,
      });
      return issues;
    }
    const parentKind = kinds[parentSeq];
    // (Undefined only in a stream, where the parent had issues of its own: the import is refused already.)
    if (parentKind === undefined) return issues;
    if (parentKind !== "model_call") {
      issues.push({
        path: at("parentSeq"),
        message: `parentSeq ${parentSeq} is a ${parentKind}; it must be a model_call`,
      });
      return issues;
    }
    if (event.kind !== "tool_call") return issues;
    const callId = event.input.callId;
    const calls = requests.get(parentSeq) ?? [];
    let requested = calls.filter((call) => call.id === callId);
    // A request the source gave no id (""), as some traces record them: the call answering it has an id of its own
    // (a trace's span id), so it answers one of the parent's unnamed requests, one call each.
    const unnamed = calls.filter((call) => call.id === "");
    const answersUnnamed = requested.length === 0 && unnamed.length > 0;
    if (answersUnnamed) requested = unnamed;
    if (requested.length === 0) {
      const ids = calls.map((call) => JSON.stringify(call.id));
      issues.push({
        path: at("input", "callId"),
        message: `the model_call at seq ${parentSeq} did not request call ${JSON.stringify(callId)} (it requested ${ids.length > 0 ? ids.join(", ") : "no tool calls"})`,
      });
      return issues;
    }
    if (!requested.some((call) => call.name === event.name)) {
      issues.push({
        path: at("name"),
        message: answersUnnamed
          ? `the model_call at seq ${parentSeq} requested no call of ${JSON.stringify(event.name)} without an id, and none with id ${JSON.stringify(callId)}`
          : `call ${JSON.stringify(callId)} was requested as ${JSON.stringify(requested[0]!.name)}, not ${JSON.stringify(event.name)}`,
      });
    }
    const key = `${parentSeq}\u0000${answersUnnamed ? "" : callId}`;
    const count = (answered.get(key) ?? 0) + 1;
    answered.set(key, count);
    if (count > requested.length) {
      issues.push({
        path: at("input", "callId"),
        message: answersUnnamed
          ? `the model_call at seq ${parentSeq} requested ${unnamed.length} call(s) without an id, and more tool_call events answer them`
          : `call ${JSON.stringify(callId)} of the model_call at seq ${parentSeq} already has a tool_call event`,
      });
    }
    return issues;
  };
}

// ---------------------------------------------------------------------------
// Native document → ImportedSession, and back.
// ---------------------------------------------------------------------------

/** Normalizes a validated native session: seq order, defaults, derived cache keys and occurrences. */
export function fromNativeSession(session: NativeSession): ImportedSession {
  const ordered = seqOrder(session.events);
  if ("issues" in ordered) throw new TypeError("fromNativeSession needs a session NativeSession has validated");
  const events = ordered.order.map((index, seq) => normalEvent(session.events[index]!, seq));
  const tools = (session.tools ?? []).map((tool) => ({ ...tool }));
  for (const event of events) {
    if (event.kind === "tool_call" && !tools.some((tool) => tool.name === event.name)) tools.push({ name: event.name });
  }
  return { ...nativeHead(session), tools, events: assignCallIdentity(events) };
}

/** A validated event as stored, at its seq: defaults filled in (call identity is derived later). */
export function normalEvent(event: NativeEvent, seq: number): Omit<SessionEvent, "cacheKey" | "occurrence"> {
  return {
    seq,
    kind: event.kind,
    name: event.name,
    input: event.input ?? null,
    output: event.output ?? null,
    error: event.error ?? null,
    status: event.status ?? (event.error ? "failed" : "completed"),
    startedAt: event.startedAt ?? null,
    durationMs: event.durationMs ?? null,
    usage: event.usage ?? null,
    parentSeq: event.parentSeq ?? null,
  };
}

/** A validated session's fields besides its events and tools, as stored. */
export function nativeHead(session: Omit<RawSession, "events">): Omit<ImportedSession, "events" | "tools"> {
  return {
    externalId: session.externalId ?? null,
    title: session.title ?? null,
    agent: { ...session.agent },
    agentVersion: {
      version: session.agentVersion.version,
      capabilities: [...session.agentVersion.capabilities],
    },
    format: "native",
    startedAt: session.startedAt ?? null,
    endedAt: session.endedAt ?? null,
    metadata: session.metadata ?? {},
  };
}

/** Any imported session as a native document (the export format); derived fields are left out. */
export function toNativeSession(session: ImportedSession): NativeSession {
  return {
    externalId: session.externalId,
    title: session.title,
    agent: { ...session.agent },
    agentVersion: {
      version: session.agentVersion.version,
      capabilities: [...session.agentVersion.capabilities],
    },
    startedAt: session.startedAt,
    endedAt: session.endedAt,
    metadata: session.metadata,
    tools: session.tools.map((tool) => ({ ...tool })),
    events: session.events.map(({ cacheKey: _cacheKey, occurrence: _occurrence, ...event }) => event as NativeEvent),
  };
}

/** Validates and normalizes every session of a parsed native input; any bad session fails the whole input. */
export function importNative(input: JsonInput): FormatOutcome {
  const sessions: ImportedSession[] = [];
  const issues: ImportIssue[] = [];
  const records = recordsOf(input);
  if (records.length === 0)
    return {
      ok: false,
      issues: [{ path: "", message: "the document holds no sessions" }],
    };
  for (const record of records) {
    const location: Location = { line: record.line, path: record.path };
    const parsed = NativeSession.safeParse(record.value);
    if (!parsed.success) {
      issues.push(...zodIssues(parsed.error, location));
      continue;
    }
    sessions.push(fromNativeSession(parsed.data));
  }
  if (issues.length > 0) return { ok: false, issues };
  return { ok: true, sessions };
}

function looksNative(value: unknown): boolean {
  return isRecord(value) && "events" in value && ("agent" in value || "agentVersion" in value);
}

export const nativeImporter: JsonImporter = {
  format: "native",
  label: "native (a Branchpoint session {agent, agentVersion, events}, an array of them, or JSONL)",
  accepts: "json",
  detect: (input) => looksNative(firstRecord(input)),
  import: (input) => importNative(input),
};
