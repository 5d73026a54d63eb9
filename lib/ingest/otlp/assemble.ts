import {
  assignCallIdentity,
  canonicalJson,
  sameJson,
  type Message,
  type SessionEvent,
  type ToolCallRequest,
} from "@/lib/replay";
import { toolsFromConversation, withConversationOutputs } from "./conversation-tools";
import type { FinalStep, ModelStep, Step, StepTiming, ToolStep } from "./steps";

// ---------------------------------------------------------------------------
// From steps read off spans (any convention, any SDK) to a session's ordered
// events. Pure and order-independent: the same set of steps gives the same
// events whatever order they came in.
//
// - Model calls are ordered by start time (then end, then key).
// - A tool call belongs to the model call that requested it, found by CALL
//   ID — never by its place in the span tree, which SDK versions disagree on.
//   Without a usable id it takes the latest earlier model call of its trace
//   that requested a call with the same name and arguments (then the same
//   name) not already taken. Tool calls follow their model call in the order
//   the model requested them.
// - User turns after the first model call (a new user message at the end of a
//   later model call's input) become user_message events; the first prompt is
//   part of the first model call's input, not an event.
// - final_output: the agent's answer when a root span gives one, else the text
//   of a trace's last model call when it requested no tools.
// ---------------------------------------------------------------------------

export type { FinalStep, ModelStep, Step, StepTiming, ToolStep } from "./steps";

type EventDraft = Omit<SessionEvent, "cacheKey" | "occurrence">;

/** A step's agent as its input keeps it: the name (`agent`), and its id and description beside it. */
function agentFields(step: ModelStep | ToolStep): Record<string, string> {
  const out: Record<string, string> = {};
  if (step.agent !== undefined) out.agent = step.agent;
  if (step.agentId !== undefined) out.agentId = step.agentId;
  if (step.agentDescription !== undefined) out.agentDescription = step.agentDescription;
  return out;
}

export function isoFromNanos(ns: bigint): string {
  return new Date(Number(ns / 1_000_000n)).toISOString();
}

export function durationMs(startNs: bigint, endNs: bigint | null): number | null {
  if (endNs === null || endNs < startNs) return null;
  return Math.round(Number(endNs - startNs) / 1_000) / 1_000;
}

function compareTiming(a: StepTiming, b: StepTiming): number {
  if (a.startNs !== b.startNs) return a.startNs < b.startNs ? -1 : 1;
  const ae = a.endNs ?? -1n;
  const be = b.endNs ?? -1n;
  if (ae !== be) return ae < be ? -1 : 1;
  return a.key < b.key ? -1 : a.key > b.key ? 1 : 0;
}

function sameArgs(a: unknown, b: unknown): boolean {
  const left = canonicalJson(a);
  return left !== undefined && left === canonicalJson(b);
}

type Link = { model: ModelStep; request: ToolCallRequest | null; requestIndex: number };

/** Ties every tool step to the model call that requested it (or to none). */
function linkTools(models: ModelStep[], tools: ToolStep[]): Map<ToolStep, Link | null> {
  const byKey = new Map(models.map((m) => [m.key, m]));
  const claimed = new Set<ToolCallRequest>();
  const links = new Map<ToolStep, Link | null>();
  const requestsOf = (m: ModelStep) => m.output?.toolCalls ?? [];
  // The model calls requesting each call id, in the models' order (one pass, not a scan of every model per tool).
  const requestingCall = new Map<string, ModelStep[]>();
  for (const m of models)
    for (const id of new Set(requestsOf(m).map((r) => r.id))) {
      const list = requestingCall.get(id);
      if (list) list.push(m);
      else requestingCall.set(id, [m]);
    }

  // First the tools the source tied itself and those with a call id, then the rest: a fallback never takes a request an id names.
  const ordered = [...tools].sort(compareTiming);
  for (const tool of ordered) {
    if (tool.parent !== undefined) {
      const model = tool.parent.modelKey === null ? undefined : byKey.get(tool.parent.modelKey);
      if (!model) {
        links.set(tool, null);
        continue;
      }
      const request = tool.parent.request;
      if (request) claimed.add(request);
      links.set(tool, {
        model,
        request,
        requestIndex: request ? requestsOf(model).indexOf(request) : Number.MAX_SAFE_INTEGER,
      });
      continue;
    }
    if (!tool.callId) continue;
    const candidates = requestingCall.get(tool.callId) ?? [];
    if (candidates.length === 0) continue;
    const sameTrace = candidates.filter((m) => m.traceId === tool.traceId);
    const pool = sameTrace.length > 0 ? sameTrace : candidates;
    const before = pool.filter((m) => m.startNs <= tool.startNs);
    const model = before.length > 0 ? before[before.length - 1]! : pool[0]!;
    const requestIndex = requestsOf(model).findIndex((r) => r.id === tool.callId);
    const request = requestsOf(model)[requestIndex] ?? null;
    if (request) claimed.add(request);
    links.set(tool, { model, request, requestIndex });
  }
  for (const tool of ordered) {
    if (links.has(tool)) continue;
    const earlier = models.filter((m) => m.traceId === tool.traceId && m.startNs <= tool.startNs).reverse();
    let found: Link | null = null;
    for (const match of [
      (r: ToolCallRequest) => r.name === tool.name && sameArgs(r.args, tool.args),
      (r: ToolCallRequest) => r.name === tool.name,
    ]) {
      for (const model of earlier) {
        const requestIndex = requestsOf(model).findIndex((r) => !claimed.has(r) && match(r));
        if (requestIndex >= 0) {
          const request = requestsOf(model)[requestIndex]!;
          claimed.add(request);
          found = { model, request, requestIndex };
          break;
        }
      }
      if (found) break;
    }
    links.set(tool, found);
  }
  return links;
}

/** The tool steps and their links: those observed, and the calls no tool step shows, read from the conversation (a model client's instrumentation has no tool spans). */
function allTools(
  models: ModelStep[],
  steps: readonly Step[],
): { tools: ToolStep[]; links: Map<ToolStep, Link | null> } {
  const observed = steps.filter((s): s is ToolStep => s.kind === "tool_call");
  const links = linkTools(models, observed);
  const taken = new Set<string>();
  for (const [tool, link] of links) {
    if (tool.callId) taken.add(tool.callId);
    if (link?.request) taken.add(link.request.id);
  }
  const inferred = toolsFromConversation(models, taken);
  for (const [tool, link] of linkTools(models, inferred)) links.set(tool, link);
  return { tools: [...observed, ...inferred], links };
}

function key(message: Message): string {
  return (
    canonicalJson({ role: message.role, content: message.content ?? null, toolCalls: message.toolCalls ?? [] }) ??
    `${message.role}:${String(message.content)}`
  );
}

/** Two messages the same by their keys (equal JSON fields first: cheaper than serializing both, and it implies equal keys). */
function sameMessage(a: Message, b: Message): boolean {
  if (a === b) return true;
  if (
    a.role === b.role &&
    sameJson(a.content ?? null, b.content ?? null) &&
    sameJson(a.toolCalls ?? [], b.toolCalls ?? [])
  )
    return true;
  return key(a) === key(b);
}

/** The messages of `next` past the longest common prefix with `previous`. */
function appended(previous: readonly Message[], next: readonly Message[]): Message[] {
  let i = 0;
  while (i < previous.length && i < next.length && sameMessage(previous[i]!, next[i]!)) i++;
  return next.slice(i);
}

/**
 * The events of `steps`. `previous` is the conversation (input and output) of
 * the model call just before them, when they continue a session: the new user
 * turns of their first model call are found against it.
 */
export function assemble(steps: readonly Step[], previous: readonly Message[] | null = null): SessionEvent[] {
  const models = withConversationOutputs(steps.filter((s): s is ModelStep => s.kind === "model_call")).sort(
    compareTiming,
  );
  const finals = steps.filter((s): s is FinalStep => s.kind === "final_output");
  const { tools, links } = allTools(models, steps);

  const children = new Map<ModelStep, { tool: ToolStep; link: Link }[]>();
  const units: (ModelStep | ToolStep | FinalStep)[] = [...models];
  for (const tool of tools) {
    const link = links.get(tool) ?? null;
    if (link) {
      const list = children.get(link.model) ?? [];
      list.push({ tool, link });
      children.set(link.model, list);
    } else units.push(tool);
  }

  // A trace without an agent answer ends with its last model call's text, when that call requested no tools.
  const tracesWithFinal = new Set(finals.map((f) => f.traceId));
  const lastModelOf = new Map<string, ModelStep>();
  for (const m of models) lastModelOf.set(m.traceId, m);
  const allFinals: FinalStep[] = [...finals];
  for (const [traceId, m] of lastModelOf) {
    if (tracesWithFinal.has(traceId) || !m.output || (m.output.toolCalls?.length ?? 0) > 0) continue;
    if (m.output.content === null || m.output.content === undefined || m.output.content === "") continue;
    allFinals.push({
      kind: "final_output",
      traceId,
      key: `${m.key}#final`,
      atNs: m.endNs ?? m.startNs,
      output: m.output.content,
    });
  }
  units.push(...allFinals);

  const sortKey = (u: ModelStep | ToolStep | FinalStep): StepTiming =>
    u.kind === "final_output" ? { traceId: u.traceId, key: u.key, startNs: u.atNs, endNs: u.atNs } : u;
  units.sort((a, b) => {
    const order = compareTiming(sortKey(a), sortKey(b));
    // At the same instant, a final answer comes after the steps.
    if (
      order !== 0 &&
      sortKey(a).startNs === sortKey(b).startNs &&
      (a.kind === "final_output") !== (b.kind === "final_output")
    ) {
      return a.kind === "final_output" ? 1 : -1;
    }
    return order;
  });

  const events: EventDraft[] = [];
  const seqOf = new Map<ModelStep, number>();
  let previousConversation: readonly Message[] | null = previous;
  let lastModelSeq = new Map<string, number>();

  const pushTool = (tool: ToolStep, parentSeq: number | null, request: ToolCallRequest | null) => {
    // Without an id from the span or the request, the span's own id stands in (unique, stable).
    const callId = tool.callId ?? (request?.id ? request.id : (tool.key.split(":").pop() ?? tool.key));
    const fromRequest =
      tool.args === undefined && request
        ? { args: request.args, ...(request.argsUnparsed ? { argsUnparsed: true as const } : {}) }
        : null;
    events.push({
      seq: events.length,
      kind: "tool_call",
      name: tool.name,
      input: {
        callId,
        args: fromRequest ? fromRequest.args : tool.args,
        ...((fromRequest ? fromRequest.argsUnparsed : tool.argsUnparsed) ? { argsUnparsed: true } : {}),
        ...(tool.operation !== undefined ? { operation: tool.operation } : {}),
        ...(tool.unrecognized ? { unrecognized: true } : {}),
        ...(tool.fromConversation ? { fromConversation: true } : {}),
        ...agentFields(tool),
      },
      output: tool.output ?? null,
      error: tool.error,
      status: tool.status,
      startedAt: isoFromNanos(tool.startNs),
      durationMs: durationMs(tool.startNs, tool.endNs),
      usage: null,
      parentSeq,
    });
  };

  for (const unit of units) {
    if (unit.kind === "final_output") {
      events.push({
        seq: events.length,
        kind: "final_output",
        name: "final_output",
        input: null,
        output: unit.output ?? null,
        error: null,
        status: "completed",
        startedAt: isoFromNanos(unit.atNs),
        durationMs: null,
        usage: null,
        parentSeq: lastModelSeq.get(unit.traceId) ?? null,
      });
      continue;
    }
    if (unit.kind === "tool_call") {
      pushTool(unit, null, null);
      continue;
    }
    if (previousConversation !== null) {
      for (const message of appended(previousConversation, unit.input.messages)) {
        if (message.role !== "user") continue;
        events.push({
          seq: events.length,
          kind: "user_message",
          name: "user",
          input: null,
          output: message.content,
          error: null,
          status: "completed",
          startedAt: isoFromNanos(unit.startNs),
          durationMs: null,
          usage: null,
          parentSeq: null,
        });
      }
    }
    previousConversation = [...unit.input.messages, ...(unit.output ? [unit.output] : [])];
    const seq = events.length;
    seqOf.set(unit, seq);
    lastModelSeq.set(unit.traceId, seq);
    events.push({
      seq,
      kind: "model_call",
      name: unit.name,
      input: unit.agent !== undefined ? { ...unit.input, ...agentFields(unit) } : unit.input,
      output: unit.output,
      error: unit.error,
      status: unit.status,
      startedAt: isoFromNanos(unit.startNs),
      durationMs: durationMs(unit.startNs, unit.endNs),
      usage: unit.usage,
      parentSeq: null,
    });
    const own = (children.get(unit) ?? []).sort(
      (a, b) => a.link.requestIndex - b.link.requestIndex || compareTiming(a.tool, b.tool),
    );
    for (const { tool, link } of own) pushTool(tool, seq, link.request);
  }
  lastModelSeq = new Map();
  return assignCallIdentity(events);
}
