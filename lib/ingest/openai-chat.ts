import { parseJsonBounded } from "@/lib/hostile/json";
import { z } from "zod";
import { assignCallIdentity, type Message, type SessionEvent, type ToolCallRequest } from "@/lib/replay";
import {
  firstRecord,
  isRecord,
  recordsOf,
  type FormatOutcome,
  type ImportContext,
  type JsonImporter,
} from "./importer";
import { at, issueAt, zodIssues, type Location } from "./issues";
import type { JsonInput } from "./json";
import type { ImportedSession, ImportIssue } from "./types";

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
  }),
  z.object({
    role: z.literal("tool"),
    tool_call_id: z.string().optional(),
    content: Content,
    name: z.string().optional(),
  }),
]);
export type ChatMessage = z.infer<typeof ChatMessage>;

const ChatTool = z.object({
  type: z.literal("function").optional(),
  function: z.object({
    name: z.string().min(1),
    description: z.string().optional(),
    parameters: z.unknown().optional(),
  }),
});

/** A request-shaped log document: `{messages, model?, tools?, …}`. */
export const ChatDocument = z.object({
  id: z.string().optional(),
  model: z.string().optional(),
  temperature: z.number().optional(),
  tools: z.array(ChatTool).optional(),
  metadata: z.record(z.string(), z.unknown()).optional(),
  messages: z.array(ChatMessage),
});

/** One τ-bench trajectory (sierra-research/tau-bench `historical_trajectories`). */
export const TauBenchTrajectory = z.object({
  task_id: z.union([z.number(), z.string()]),
  trial: z.number().int().optional(),
  reward: z.number().optional(),
  info: z.unknown().optional(),
  traj: z.array(ChatMessage),
});

type Conversation = {
  messages: ChatMessage[];
  /** where the message list sits, for issue paths */
  location: Location;
  model?: string;
  temperature?: number;
  tools?: z.infer<typeof ChatTool>[];
};

// ---------------------------------------------------------------------------
// Conversion
// ---------------------------------------------------------------------------

function parseArgs(raw: string | Record<string, unknown>): Pick<ToolCallRequest, "args" | "argsUnparsed"> {
  if (typeof raw !== "string") return { args: raw };
  try {
    return { args: parseJsonBounded(raw) };
  } catch {
    return { args: raw, argsUnparsed: true };
  }
}

function normalize(message: ChatMessage): Message {
  switch (message.role) {
    case "system":
    case "developer":
      return {
        role: "system",
        content: message.content,
        ...(message.name ? { name: message.name } : {}),
      };
    case "user":
      return {
        role: "user",
        content: message.content,
        ...(message.name ? { name: message.name } : {}),
      };
    case "assistant": {
      const calls = message.tool_calls ?? [];
      return {
        role: "assistant",
        content: message.content ?? null,
        ...(calls.length > 0
          ? {
              toolCalls: calls.map((call) => ({
                id: call.id ?? "",
                name: call.function.name,
                ...parseArgs(call.function.arguments),
              })),
            }
          : {}),
      };
    }
    case "tool":
      return {
        role: "tool",
        content: message.content,
        ...(message.tool_call_id !== undefined ? { toolCallId: message.tool_call_id } : {}),
        ...(message.name ? { name: message.name } : {}),
      };
  }
}

const ERROR_PREFIX = /^Error:\s?/;

type Draft = Omit<SessionEvent, "cacheKey" | "occurrence">;

/** An event with the fields a chat log never records (times, usage) left empty, keys in the stored order. */
function draft(fields: Pick<Draft, "seq" | "kind" | "name" | "input" | "output" | "status" | "parentSeq">): Draft {
  const { seq, kind, name, input, output, status, parentSeq } = fields;
  return {
    seq,
    kind,
    name,
    input,
    output,
    error: null,
    status,
    startedAt: null,
    durationMs: null,
    usage: null,
    parentSeq,
  };
}

/**
 * The events of one conversation. Each assistant message is a model_call
 * whose input is every message before it; its tool calls follow it in request
 * order. Tool results are matched to the calls of the latest assistant message
 * by order (a `tool_call_id` only picks among those: real logs reuse ids across
 * calls). Messages before the first assistant message are the prompt; user
 * turns after it are user_message events. When the last assistant message
 * requested no tools, its content is also the session's final_output.
 */
function convert(conversation: Conversation): {
  events: Draft[];
  issues: ImportIssue[];
} {
  const normalized = conversation.messages.map(normalize);
  const events: Draft[] = [];
  const issues: ImportIssue[] = [];
  const model = conversation.model ?? "unknown";
  const toolSchemas = conversation.tools?.map((tool) => ({
    name: tool.function.name,
    ...(tool.function.description !== undefined ? { description: tool.function.description } : {}),
    ...(tool.function.parameters !== undefined ? { parameters: tool.function.parameters } : {}),
  }));
  let pending: { event: Draft; id: string }[] = [];
  let lastAssistant: { seq: number; message: Message } | null = null;
  let seenAssistant = false;

  normalized.forEach((message, index) => {
    const location = at(conversation.location, index);
    if (message.role === "assistant") {
      seenAssistant = true;
      const seq = events.length;
      events.push(
        draft({
          seq,
          kind: "model_call",
          name: model,
          input: {
            messages: normalized.slice(0, index),
            ...(conversation.model !== undefined ? { model: conversation.model } : {}),
            ...(conversation.temperature !== undefined ? { temperature: conversation.temperature } : {}),
            ...(toolSchemas !== undefined ? { tools: toolSchemas } : {}),
          },
          output: message,
          status: "completed",
          parentSeq: null,
        }),
      );
      lastAssistant = { seq, message };
      pending = (message.toolCalls ?? []).map((call) => {
        const event: Draft = draft({
          seq: events.length,
          kind: "tool_call",
          name: call.name,
          input: {
            callId: call.id,
            args: call.args,
            ...(call.argsUnparsed ? { argsUnparsed: true } : {}),
          },
          output: null,
          // Until its result arrives: a call whose result never came never finished.
          status: "incomplete",
          parentSeq: seq,
        });
        events.push(event);
        return { event, id: call.id };
      });
      return;
    }
    if (message.role === "tool") {
      const id = message.toolCallId;
      const match = id === undefined ? 0 : pending.findIndex((call) => call.id === id);
      if (pending.length === 0) {
        issues.push(issueAt(location, "a tool result with no pending tool call before it"));
        return;
      }
      if (match < 0) {
        const ids = pending.map((call) => JSON.stringify(call.id)).join(", ");
        issues.push(
          issueAt(at(location, "tool_call_id"), `answers ${JSON.stringify(id)}, but the pending calls are ${ids}`),
        );
        return;
      }
      const [call] = pending.splice(match, 1);
      const event = call!.event;
      if (message.name !== undefined && message.name !== event.name) {
        issues.push(
          issueAt(
            at(location, "name"),
            `the result names ${JSON.stringify(message.name)}, but the call was ${JSON.stringify(event.name)}`,
          ),
        );
      }
      // Tool results stay exactly as the source wrote them, so a replay shows the agent the same text.
      event.output = message.content;
      if (typeof message.content === "string" && ERROR_PREFIX.test(message.content)) {
        event.status = "failed";
        event.error = {
          type: "ToolError",
          message: message.content.replace(ERROR_PREFIX, ""),
        };
      } else {
        event.status = "completed";
      }
      return;
    }
    if (message.role === "user" && seenAssistant) {
      events.push(
        draft({
          seq: events.length,
          kind: "user_message",
          name: "user",
          input: null,
          output: message.content,
          status: "completed",
          parentSeq: null,
        }),
      );
    }
  });

  const final = lastAssistant as { seq: number; message: Message } | null;
  if (!seenAssistant) {
    issues.push(issueAt(conversation.location, "no assistant message: there is no model step to import"));
  } else if (final && !final.message.toolCalls?.length) {
    events.push(
      draft({
        seq: events.length,
        kind: "final_output",
        name: "final_output",
        input: null,
        output: final.message.content,
        status: "completed",
        parentSeq: final.seq,
      }),
    );
  }
  return { events, issues };
}

function toolsOf(events: readonly Draft[], declared: Conversation["tools"]): ImportedSession["tools"] {
  const tools: ImportedSession["tools"] = (declared ?? []).map((tool) => ({
    name: tool.function.name,
    ...(tool.function.parameters !== undefined ? { schema: tool.function.parameters } : {}),
  }));
  for (const event of events) {
    if (event.kind === "tool_call" && !tools.some((tool) => tool.name === event.name)) tools.push({ name: event.name });
  }
  return tools;
}

function firstUserText(messages: readonly ChatMessage[]): string | null {
  const user = messages.find((message) => message.role === "user");
  if (!user || typeof user.content !== "string") return null;
  const text = user.content.replace(/\s+/g, " ").trim();
  return text.length > 80 ? `${text.slice(0, 79)}…` : text;
}

/** `gpt-4o-airline.json` → model and domain, as τ-bench names its trajectory files. */
function tauBenchFileHints(filename: string | undefined): {
  model?: string;
  domain?: string;
} {
  const base = filename
    ?.split(/[\\/]/)
    .pop()
    ?.replace(/(\.sample)?\.jsonl?$/i, "");
  const match = base?.match(/^(.+)-(airline|retail)$/i);
  return match ? { model: match[1], domain: match[2]!.toLowerCase() } : {};
}

/** τ-bench system prompts open with `# Airline Agent Policy` / `# Retail agent policy`. */
function tauBenchDomain(messages: readonly ChatMessage[]): string | undefined {
  const system = messages.find((message) => message.role === "system");
  const match = typeof system?.content === "string" ? system.content.match(/^#\s*(\w+) agent policy/i) : null;
  return match?.[1]?.toLowerCase();
}

function session(
  conversation: Conversation,
  fields: Pick<ImportedSession, "externalId" | "title" | "metadata"> & {
    agentName?: string;
    version?: string;
  },
): { session: ImportedSession; issues: ImportIssue[] } {
  const { events, issues } = convert(conversation);
  return {
    issues,
    session: {
      externalId: fields.externalId,
      title: fields.title,
      agent: {
        name: fields.agentName ?? "openai-chat-agent",
        adapter: "generic",
      },
      agentVersion: {
        version: fields.version ?? conversation.model ?? "unknown",
        capabilities: [],
      },
      format: "openai-chat",
      startedAt: null,
      endedAt: null,
      metadata: fields.metadata,
      tools: toolsOf(events, conversation.tools),
      events: assignCallIdentity(events),
    },
  };
}

function stringField(record: Record<string, unknown> | undefined, ...keys: string[]): string | undefined {
  for (const key of keys) {
    const value = record?.[key];
    if (typeof value === "string" && value !== "") return value;
  }
  return undefined;
}

type Shape = "tau-bench" | "chat-document" | "messages";

function shapeOf(value: unknown): Shape | null {
  if (isRecord(value) && Array.isArray(value.traj)) return "tau-bench";
  if (isRecord(value) && Array.isArray(value.messages)) return "chat-document";
  if (isRecord(value) && typeof value.role === "string") return "messages";
  return null;
}

/** Imports OpenAI Chat Completions message logs: τ-bench trajectories, `{messages}` documents (also JSONL), bare message arrays. */
export function importOpenAiChat(input: JsonInput, ctx: ImportContext = {}): FormatOutcome {
  const shape = shapeOf(firstRecord(input));
  if (shape === null) {
    return {
      ok: false,
      issues: [
        {
          path: "",
          message: "expected τ-bench trajectories, a {messages} document or an array of chat messages",
        },
      ],
    };
  }
  const issues: ImportIssue[] = [];
  const sessions: ImportedSession[] = [];

  if (shape === "messages") {
    // A bare array of messages is one conversation.
    if (input.shape !== "document")
      return {
        ok: false,
        issues: [
          {
            path: "",
            message: "a bare message array must be one JSON document",
          },
        ],
      };
    const parsed = z.array(ChatMessage).safeParse(input.value);
    if (!parsed.success) return { ok: false, issues: zodIssues(parsed.error, { path: [] }) };
    const result = session(
      { messages: parsed.data, location: { path: [] } },
      { externalId: null, title: firstUserText(parsed.data), metadata: {} },
    );
    return result.issues.length > 0 ? { ok: false, issues: result.issues } : { ok: true, sessions: [result.session] };
  }

  const hints = tauBenchFileHints(ctx.filename);
  for (const record of recordsOf(input)) {
    const location: Location = { line: record.line, path: record.path };
    if (shape === "tau-bench") {
      const parsed = TauBenchTrajectory.safeParse(record.value);
      if (!parsed.success) {
        issues.push(...zodIssues(parsed.error, location));
        continue;
      }
      const { task_id, trial, reward, info, traj } = parsed.data;
      const domain = tauBenchDomain(traj) ?? hints.domain;
      const result = session(
        {
          messages: traj,
          location: at(location, "traj"),
          ...(hints.model ? { model: hints.model } : {}),
        },
        {
          externalId: ["tau-bench", domain, `task-${task_id}`, trial !== undefined ? `trial-${trial}` : undefined]
            .filter((part) => part !== undefined)
            .join(":"),
          title: `τ-bench${domain ? ` ${domain}` : ""} task ${task_id}${trial !== undefined ? `, trial ${trial}` : ""}`,
          metadata: {
            source: "tau-bench",
            ...(domain ? { domain } : {}),
            task_id,
            ...(trial !== undefined ? { trial } : {}),
            ...(reward !== undefined ? { reward } : {}),
            ...(info !== undefined ? { info } : {}),
          },
          ...(domain ? { agentName: `tau-bench-${domain}-agent` } : {}),
        },
      );
      issues.push(...result.issues);
      sessions.push(result.session);
      continue;
    }
    const parsed = ChatDocument.safeParse(record.value);
    if (!parsed.success) {
      issues.push(...zodIssues(parsed.error, location));
      continue;
    }
    const doc = parsed.data;
    const result = session(
      {
        messages: doc.messages,
        location: at(location, "messages"),
        ...(doc.model !== undefined ? { model: doc.model } : {}),
        ...(doc.temperature !== undefined ? { temperature: doc.temperature } : {}),
        ...(doc.tools !== undefined ? { tools: doc.tools } : {}),
      },
      {
        externalId: doc.id ?? stringField(doc.metadata, "session_id", "sessionId", "conversation_id") ?? null,
        title: stringField(doc.metadata, "title") ?? firstUserText(doc.messages),
        metadata: doc.metadata ?? {},
        agentName: stringField(doc.metadata, "agent", "agent_name", "agentName"),
        version: stringField(doc.metadata, "agent_version", "agentVersion", "version"),
      },
    );
    issues.push(...result.issues);
    sessions.push(result.session);
  }
  if (issues.length > 0) return { ok: false, issues };
  if (sessions.length === 0)
    return {
      ok: false,
      issues: [{ path: "", message: "the document holds no conversations" }],
    };
  return { ok: true, sessions };
}

export const openAiChatImporter: JsonImporter = {
  format: "openai-chat",
  label:
    "openai-chat (OpenAI Chat Completions messages: τ-bench trajectories, {messages} documents or JSONL, a message array)",
  accepts: "json",
  detect: (input) => shapeOf(firstRecord(input)) !== null,
  import: (input, ctx) => importOpenAiChat(input, ctx),
};
