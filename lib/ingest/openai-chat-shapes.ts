import { z } from "zod";
import type { Location } from "./issues";

// ---------------------------------------------------------------------------
// Source shapes: OpenAI Chat Completions messages, as logs and benchmarks write them.
// ---------------------------------------------------------------------------

const Content = z.union([z.string(), z.array(z.unknown())], {
  error: "expected the content as a string or an array of content parts",
});

const ChatToolCall = z.object({
  id: z.string().optional(),
  type: z.literal("function").optional(),
  function: z.object({
    name: z.string().min(1),
    arguments: z.union([z.string(), z.record(z.string(), z.unknown())], {
      error: "expected the arguments as a JSON string or an object",
    }),
  }),
});

const Count = z.number().int().nonnegative();

/** A completion's `usage`, as Chat Completions answers it (the fields read; the others kept as they came). */
export const ChatUsage = z
  .object({
    prompt_tokens: Count.optional(),
    completion_tokens: Count.optional(),
    prompt_tokens_details: z.object({ cached_tokens: Count.optional() }).passthrough().nullish(),
  })
  .passthrough();

export const ChatMessage = z.discriminatedUnion("role", [
  z.object({
    role: z.enum(["system", "developer"]),
    content: Content,
    name: z.string().optional(),
  }),
  z.object({
    role: z.literal("user"),
    content: Content,
    name: z.string().optional(),
  }),
  z.object({
    role: z.literal("assistant"),
    content: Content.nullable().optional(),
    tool_calls: z.array(ChatToolCall).nullable().optional(),
    name: z.string().optional(),
    /** The usage of the completion that answered this message, when the log keeps it beside the message. */
    usage: ChatUsage.optional(),
  }),
  z.object({
    role: z.literal("tool"),
    tool_call_id: z.string().optional(),
    content: Content,
    name: z.string().optional(),
  }),
]);
export type ChatMessage = z.infer<typeof ChatMessage>;

export const ChatTool = z.object({
  type: z.literal("function").optional(),
  function: z.object({
    name: z.string().min(1),
    description: z.string().optional(),
    parameters: z.unknown().optional(),
  }),
});

export type ChatTool = z.infer<typeof ChatTool>;

/** A request-shaped log document: `{messages, model?, tools?, …}`. */
export const ChatDocument = z.object({
  id: z.string().optional(),
  model: z.string().optional(),
  temperature: z.number().optional(),
  tools: z.array(ChatTool).optional(),
  metadata: z.record(z.string(), z.unknown()).optional(),
  messages: z.array(ChatMessage),
  /** A logged completion's usage: that of its last assistant message (the completion's answer). */
  usage: ChatUsage.optional(),
});

/** One τ-bench trajectory (sierra-research/tau-bench `historical_trajectories`). */
export const TauBenchTrajectory = z.object({
  task_id: z.union([z.number(), z.string()]),
  trial: z.number().int().optional(),
  reward: z.number().optional(),
  info: z.unknown().optional(),
  traj: z.array(ChatMessage),
});

export type Conversation = {
  messages: ChatMessage[];
  /** where the message list sits, for issue paths */
  location: Location;
  model?: string;
  temperature?: number;
  tools?: z.infer<typeof ChatTool>[];
  /** The usage of the last assistant message's completion (a logged completion's own). */
  usage?: z.infer<typeof ChatUsage>;
};
