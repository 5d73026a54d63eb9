import { z } from "zod";
import { assignCallIdentity } from "@/lib/replay";
import {
  firstRecord,
  isRecord,
  recordsOf,
  type FormatOutcome,
  type ImportContext,
  type JsonImporter,
} from "./importer";
import { at, zodIssues, type Location } from "./issues";
import type { JsonInput } from "./json";
import { convert, type Draft } from "./openai-chat-convert";
import { ChatDocument, ChatMessage, TauBenchTrajectory, type Conversation } from "./openai-chat-shapes";
import type { ImportedSession, ImportIssue } from "./types";

// The source shapes live in openai-chat-shapes.ts, the conversion of one
// conversation into events in openai-chat-convert.ts; this file makes sessions
// of them and recognises the document shapes the importer accepts.
export { ChatDocument, ChatMessage, TauBenchTrajectory } from "./openai-chat-shapes";

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

export function firstUserText(messages: readonly ChatMessage[]): string | null {
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

export function stringField(record: Record<string, unknown> | undefined, ...keys: string[]): string | undefined {
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
        ...(doc.usage !== undefined ? { usage: doc.usage } : {}),
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
