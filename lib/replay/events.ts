import { z } from "zod";

/** The kinds of step a recorded session is made of; every importer maps its source onto these. */
export const EventKind = z.enum(["model_call", "tool_call", "user_message", "final_output"]);
export type EventKind = z.infer<typeof EventKind>;

/**
 * `completed` and `failed` are the recorded outcomes. `incomplete` marks a
 * recording that never finished (a span with no end): history lookups skip it.
 */
export const EventStatus = z.enum(["completed", "failed", "incomplete"]);
export type EventStatus = z.infer<typeof EventStatus>;

export const EventError = z.object({ type: z.string(), message: z.string() });
export type EventError = z.infer<typeof EventError>;

export const Usage = z.object({
  /** Every input token of the call, those read from a prompt cache included. */
  inputTokens: z.number().int().nonnegative().optional(),
  /**
   * The part of `inputTokens` read from a prompt cache (priced at the cache rate when the price has one).
   * Sources that count cache reads apart from their input (Anthropic's `cache_read_input_tokens`,
   * Langfuse's cache keys) are added into `inputTokens` on import, so the meaning is one for every source.
   */
  cachedInputTokens: z.number().int().nonnegative().optional(),
  /**
   * The part of `inputTokens` written to a prompt cache (priced at the cache-write rate when the price has
   * one, else as input). Apart from the cached reads: reads and writes together are at most `inputTokens`.
   * Sources that count writes apart from their input (Anthropic's `cache_creation_input_tokens`, Langfuse's
   * cache-creation keys) are added into `inputTokens` on import, as reads are.
   */
  cacheWriteInputTokens: z.number().int().nonnegative().optional(),
  outputTokens: z.number().int().nonnegative().optional(),
  costUsd: z.number().nonnegative().optional(),
});
export type Usage = z.infer<typeof Usage>;

/** A tool call requested by an assistant message. `args` is parsed JSON; when the
 *  source's JSON-in-a-string did not parse, `args` keeps the raw string and
 *  `argsUnparsed` is true. */
export const ToolCallRequest = z.object({
  id: z.string(),
  name: z.string().min(1),
  args: z.unknown(),
  argsUnparsed: z.boolean().optional(),
});
export type ToolCallRequest = z.infer<typeof ToolCallRequest>;

/** The one message shape every importer normalizes to. */
export const Message = z.object({
  role: z.enum(["system", "user", "assistant", "tool"]),
  content: z.unknown(),
  toolCalls: z.array(ToolCallRequest).optional(),
  toolCallId: z.string().optional(),
  name: z.string().optional(),
});
export type Message = z.infer<typeof Message>;

/** model_call input: the messages and parameters sent. */
export const ModelCallInput = z
  .object({
    messages: z.array(Message),
    model: z.string().optional(),
    temperature: z.number().optional(),
    tools: z.array(z.unknown()).optional(),
  })
  .passthrough();
export type ModelCallInput = z.infer<typeof ModelCallInput>;

/** tool_call input: the call id the model gave it and the parsed arguments. */
export const ToolCallInput = z.object({ callId: z.string(), args: z.unknown() }).passthrough();
export type ToolCallInput = z.infer<typeof ToolCallInput>;

/** One step of a recorded session, as stored and as the engine reads it. */
export const SessionEvent = z.object({
  seq: z.number().int().nonnegative(),
  kind: EventKind,
  name: z.string(),
  input: z.unknown(),
  output: z.unknown().nullable(),
  error: EventError.nullable(),
  status: EventStatus,
  startedAt: z.string().nullable(),
  durationMs: z.number().nonnegative().nullable(),
  usage: Usage.nullable(),
  parentSeq: z.number().int().nonnegative().nullable(),
  /** Derived for tool calls: see `cacheKey`. Null when the args have no canonical form. */
  cacheKey: z.string().nullable(),
  /** Derived for tool calls: 0-based index among the session's calls with the same cache key. */
  occurrence: z.number().int().nonnegative().nullable(),
  /**
   * A model call's input in the stored form: `input.messages` holds only the
   * messages it adds to the first `count` full messages of event `seq`. Absent
   * or null: the input is whole.
   */
  inputPrefix: z.object({ seq: z.number().int().nonnegative(), count: z.number().int().nonnegative() }).nullish(),
});
export type SessionEvent = z.infer<typeof SessionEvent>;
