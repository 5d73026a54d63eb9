/**
 * The playground: one recorded model call sent again, as recorded or edited, to a configured model endpoint.
 * The call goes through the live executors' own code (lib/executors/live.ts: the allow-list, the key variables,
 * the outbound guard, the built-in demo model for demo data) and the endpoint is chosen as fork-live chooses it
 * (resolveModelEndpoint). Nothing is stored: a run is an answer to the person who asked (the page keeps its runs).
 */
import { z } from "zod";
import type { Db } from "@/lib/db";
import { listModelEndpoints } from "@/lib/db/checks";
import { listPriceRows } from "@/lib/db/prices";
import { fullEvent, sessionHead } from "@/lib/db/session-reads";
import { AppError, notFound } from "@/lib/errors";
import { executorRefusal, modelEndpointChoices } from "@/lib/executors/endpoint-choices";
import { ExecutorError, modelExecutor, MODEL_TIMEOUT_MS } from "@/lib/executors/live";
import { estimateMicros } from "@/lib/prices/prices";
import { Message, type Usage } from "@/lib/replay";
import { authorize, can } from "../authz";
import type { Principal } from "../principal";
import { resolveModelEndpoint } from "../checks/counterfactual";

/** The most messages one playground call may send. */
export const MAX_PLAYGROUND_MESSAGES = 2_000;
/** The most tool definitions one playground call may send. */
export const MAX_PLAYGROUND_TOOLS = 256;
/** The largest request (messages and tools as JSON, in characters) one playground call may send. */
export const MAX_PLAYGROUND_CHARS = 2_000_000;

const SessionStep = {
  sessionId: z.string().trim().min(1, "Name the session.").max(64),
  step: z.number().int("The step is a whole number.").min(0).max(2_147_483_647),
};

export const PlaygroundStepInput = z.strictObject(SessionStep);
export type PlaygroundStepInput = z.infer<typeof PlaygroundStepInput>;

/** What replaces the recorded request: each field given replaces the recorded one; the others are sent as recorded. */
export const PlaygroundRequest = z.strictObject({
  messages: z
    .array(Message)
    .min(1, "Send at least one message.")
    .max(MAX_PLAYGROUND_MESSAGES, `At most ${MAX_PLAYGROUND_MESSAGES} messages.`)
    .optional(),
  tools: z.array(z.unknown()).max(MAX_PLAYGROUND_TOOLS, `At most ${MAX_PLAYGROUND_TOOLS} tools.`).optional(),
  /** null: send no temperature (the endpoint's default). */
  temperature: z.number().min(0, "At least 0.").max(2, "At most 2.").nullable().optional(),
});
export type PlaygroundRequest = z.infer<typeof PlaygroundRequest>;

export const PlaygroundRunInput = z.strictObject({
  ...SessionStep,
  /** A model endpoint's id or name, or the demo model's; by default the one fork-live would use. */
  endpointId: z.string().trim().min(1).max(200).optional(),
  request: PlaygroundRequest.optional(),
});
export type PlaygroundRunInput = z.infer<typeof PlaygroundRunInput>;

/** A recorded model call's request as the playground sends it: what is sent, and what the session holds besides. */
export interface PlaygroundRecordedRequest {
  messages: Message[];
  tools: unknown[];
  model: string | null;
  temperature: number | null;
  /** Recorded parameters the live executors do not send (max tokens, response format…), shown for reference. */
  other: Record<string, unknown>;
}

const SENT = new Set(["messages", "tools", "model", "temperature"]);

function recordedRequest(input: unknown): PlaygroundRecordedRequest {
  const record = input !== null && typeof input === "object" && !Array.isArray(input) ? input : {};
  const fields = record as Record<string, unknown>;
  const messages = z.array(Message).safeParse(fields.messages);
  const other: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(fields))
    if (!SENT.has(key)) Object.defineProperty(other, key, { value, enumerable: true, writable: true });
  return {
    messages: messages.success ? messages.data : [],
    tools: Array.isArray(fields.tools) ? fields.tools : [],
    model: typeof fields.model === "string" ? fields.model : null,
    temperature: typeof fields.temperature === "number" ? fields.temperature : null,
    other,
  };
}

/** The session's recorded model step, its full input read; not_found for a missing session or a step of another kind. */
async function modelStep(prisma: Db, sessionId: string, seq: number) {
  const session = await sessionHead(prisma, sessionId);
  if (!session) throw notFound("session", sessionId, "sessionId");
  const event = await fullEvent(prisma, sessionId, seq);
  if (!event)
    throw new AppError("not_found", `Session "${sessionId}" has no step ${seq}.`, [
      { path: "step", message: "no such step" },
    ]);
  if (event.kind !== "model_call")
    throw new AppError(
      "invalid_input",
      `Step ${seq} is a ${event.kind.replaceAll("_", " ")}, not a model call; only a model call can be sent again.`,
      [{ path: "step", message: "not a model call" }],
    );
  return { session, event };
}

/**
 * One model step as the playground opens it: the recorded request and answer, the endpoints it may be sent to
 * (to those who may see the executor settings) and whether the reader may run it.
 */
export async function playgroundStep(principal: Principal, input: PlaygroundStepInput, prisma: Db) {
  authorize(principal, "sessions.read");
  const { session, event } = await modelStep(prisma, input.sessionId, input.step);
  const canRun = can(principal, "replays.run");
  const endpoints = can(principal, "executors.read") ? await modelEndpointChoices(prisma, session) : [];
  const recorded = recordedRequest(event.input);
  const preferred = canRun
    ? await resolveModelEndpoint(prisma, undefined, recorded.model ?? event.name, session).catch(() => null)
    : null;
  return {
    session: { id: session.id, title: session.title, externalId: session.externalId },
    demo: session.demo,
    step: event.seq,
    name: event.name,
    request: recorded,
    answer: { output: event.output ?? null, error: event.error ?? null },
    usage: {
      inputTokens: event.inputTokens,
      outputTokens: event.outputTokens,
      costUsd: event.costUsd,
    },
    durationMs: event.durationMs,
    endpoints,
    defaultEndpointId: preferred?.id ?? endpoints[0]?.id ?? null,
    canRun,
  };
}
export type PlaygroundStep = Awaited<ReturnType<typeof playgroundStep>>;

/** What the request sends, with the edits in place of the recorded fields; refused when it is over the limits. */
function requestToSend(recorded: PlaygroundRecordedRequest, edits: PlaygroundRequest = {}) {
  const messages = edits.messages ?? recorded.messages;
  const tools = edits.tools ?? recorded.tools;
  const temperature = edits.temperature === undefined ? recorded.temperature : edits.temperature;
  if (messages.length === 0)
    throw new AppError("invalid_input", "The recorded call has no messages to send; write some.", [
      { path: "request.messages", message: "no messages" },
    ]);
  const chars = JSON.stringify(messages).length + JSON.stringify(tools).length;
  if (chars > MAX_PLAYGROUND_CHARS)
    throw new AppError(
      "invalid_input",
      `The request is ${chars.toLocaleString("en-US")} characters of JSON; one playground call sends at most ${MAX_PLAYGROUND_CHARS.toLocaleString("en-US")}.`,
      [{ path: edits.messages ? "request.messages" : "request.tools", message: "too large" }],
    );
  return { messages, tools, temperature };
}

/** The answer's cost by the price table, in micro-dollars; null when its model has no price or it reported no tokens. */
async function costMicros(prisma: Db, model: string, usage: Usage | undefined): Promise<number | null> {
  if (!usage || (usage.inputTokens === undefined && usage.outputTokens === undefined)) return null;
  const { micros } = estimateMicros(
    [{ model, inputTokens: usage.inputTokens ?? 0, outputTokens: usage.outputTokens ?? 0 }],
    await listPriceRows(prisma),
    new Date(),
  );
  return micros === null ? null : Number(micros);
}

/**
 * Sends a recorded model call again, edited or not, to a model endpoint, and answers what it said (with its usage,
 * latency and cost by the price table). Who may run fork-live may run this (`replays.run`). Nothing is stored.
 */
export async function runPlayground(
  principal: Principal,
  input: PlaygroundRunInput,
  prisma: Db,
  deps: { timeoutMs?: number } = {},
) {
  authorize(principal, "replays.run");
  const { session, event } = await modelStep(prisma, input.sessionId, input.step);
  const recorded = recordedRequest(event.input);
  const sent = requestToSend(recorded, input.request);
  const endpoint = await resolveModelEndpoint(prisma, input.endpointId, recorded.model ?? event.name, session);
  if (!endpoint)
    throw new AppError(
      "executor_missing",
      (await listModelEndpoints(prisma)).length === 0
        ? "No model endpoint is configured (Settings → Executors); an administrator adds one."
        : "Several model endpoints are configured and none serves the recorded model: choose one.",
      [{ path: "endpointId", message: "no_endpoint" }],
    );
  const started = Date.now();
  const answer = await modelExecutor(prisma, undefined, endpoint.id, { timeoutMs: deps.timeoutMs ?? MODEL_TIMEOUT_MS })(
    {
      modelStep: 0,
      step: event.seq,
      messages: sent.messages,
      model: recorded.model ?? undefined,
      temperature: sent.temperature ?? undefined,
      tools: sent.tools.length > 0 ? sent.tools : undefined,
      recorded: null,
    },
  ).catch((error: unknown) => {
    throw error instanceof ExecutorError ? executorRefusal(error) : error;
  });
  const model = answer.model ?? endpoint.name;
  return {
    endpoint: { id: endpoint.id, name: endpoint.name },
    model,
    output: answer.output,
    usage: { inputTokens: answer.usage?.inputTokens ?? null, outputTokens: answer.usage?.outputTokens ?? null },
    costMicros: await costMicros(prisma, model, answer.usage),
    durationMs: answer.durationMs ?? Date.now() - started,
    sent: { messages: sent.messages.length, tools: sent.tools.length, temperature: sent.temperature },
  };
}
export type PlaygroundRun = Awaited<ReturnType<typeof runPlayground>>;
