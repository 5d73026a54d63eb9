/**
 * An OpenAI chat log converted one message at a time (lib/ingest/openai-chat-convert.ts `convert`, read as a
 * stream). A model call's input is every message before it; here it is produced in its stored form at once
 * (lib/sessions/inputs.ts): the messages since the previous model call and a pointer to that call, never the
 * conversation so far (copying it per model call was the square of the session: 0.6 ms an event at 10,000
 * turns, 0.02 at 100). Events come out once final: a tool call when its result arrived, or when the next
 * model call shows it never will.
 */
import type { Message, SessionEvent } from "@/lib/replay";
import type { InputPrefix } from "@/lib/sessions/inputs";
import { at, issueAt, type Location } from "../issues";
import {
  draft as chatDraft,
  chatToolSchemas,
  finalOutput,
  settleToolCall,
  userTurn,
  normalizeChatMessage,
  type Draft,
} from "../openai-chat-convert";
import type { ChatMessage, ChatTool } from "../openai-chat-shapes";
import type { ImportIssue } from "../types";

/** An event in the stored form: a model call's `input.messages` holds only what it adds to `inputPrefix`'s call. */
export type StreamDraft = Draft & { inputPrefix: InputPrefix | null };
export type StreamEvent = SessionEvent & { inputPrefix: InputPrefix | null };

export type ChatSettings = { model?: string; temperature?: number; tools?: ChatTool[] };

function draft(fields: Parameters<typeof chatDraft>[0]): StreamDraft {
  return { ...chatDraft(fields), inputPrefix: null };
}

/** Converts a conversation pushed one message at a time; `take()` gives the events that are final so far. */
export class ChatStream {
  readonly issues: ImportIssue[] = [];
  private seq = 0;
  private ready: StreamDraft[] = [];
  /** Events not final yet: the latest model call's tool calls waiting for results (and what follows them). */
  private held: StreamDraft[] = [];
  private pending: { event: StreamDraft; id: string }[] = [];
  /** Messages since the latest model call (its own output included), the next call's stored messages. */
  private since: Message[] = [];
  private lastCall: { seq: number; count: number } | null = null;
  private lastAssistant: { seq: number; message: Message } | null = null;
  private seenAssistant = false;
  private firstUser: ChatMessage | null = null;
  private readonly model: string;
  private readonly toolSchemas: ReturnType<typeof chatToolSchemas> | undefined;
  /** Tool names in first-seen order, declared ones first (the session's tools). */
  readonly toolNames: string[];

  constructor(
    private readonly settings: ChatSettings,
    private readonly location: Location,
  ) {
    this.model = settings.model ?? "unknown";
    this.toolSchemas = settings.tools ? chatToolSchemas(settings.tools) : undefined;
    this.toolNames = (settings.tools ?? []).map((t) => t.function.name);
  }

  /** The first user message seen (the session's title when it has none). */
  get firstUserMessage(): ChatMessage | null {
    return this.firstUser;
  }

  /** The next message, and where it sits in the input (for issues). */
  push(raw: ChatMessage, location: Location): void {
    if (raw.role === "user" && this.firstUser === null) this.firstUser = raw;
    const message = normalizeChatMessage(raw);
    if (message.role === "assistant") {
      this.seenAssistant = true;
      // Every earlier event is final now: tool calls still waiting never got their result.
      this.ready.push(...this.held);
      this.held = [];
      const seq = this.seq++;
      const count = (this.lastCall?.count ?? 0) + this.since.length;
      const event = draft({
        seq,
        kind: "model_call",
        name: this.model,
        input: {
          messages: this.since,
          ...(this.settings.model !== undefined ? { model: this.settings.model } : {}),
          ...(this.settings.temperature !== undefined ? { temperature: this.settings.temperature } : {}),
          ...(this.toolSchemas !== undefined ? { tools: this.toolSchemas } : {}),
        },
        output: message,
        status: "completed",
        parentSeq: null,
      });
      // The stored form compactInputs gives: no pointer when the previous call had no messages.
      if (this.lastCall && this.lastCall.count > 0)
        event.inputPrefix = { seq: this.lastCall.seq, count: this.lastCall.count };
      this.lastCall = { seq, count };
      this.since = [message];
      this.lastAssistant = { seq, message };
      this.held.push(event);
      this.pending = (message.toolCalls ?? []).map((call) => {
        if (!this.toolNames.includes(call.name)) this.toolNames.push(call.name);
        const tool = draft({
          seq: this.seq++,
          kind: "tool_call",
          name: call.name,
          input: { callId: call.id, args: call.args, ...(call.argsUnparsed ? { argsUnparsed: true } : {}) },
          output: null,
          status: "incomplete",
          parentSeq: seq,
        });
        this.held.push(tool);
        return { event: tool, id: call.id };
      });
      if (this.pending.length === 0) this.release();
      return;
    }
    this.since.push(message);
    if (message.role === "tool") {
      const id = message.toolCallId;
      if (this.pending.length === 0) {
        this.issues.push(issueAt(location, "a tool result with no pending tool call before it"));
        return;
      }
      const match = id === undefined ? 0 : this.pending.findIndex((call) => call.id === id);
      if (match < 0) {
        const ids = this.pending.map((call) => JSON.stringify(call.id)).join(", ");
        this.issues.push(
          issueAt(at(location, "tool_call_id"), `answers ${JSON.stringify(id)}, but the pending calls are ${ids}`),
        );
        return;
      }
      const [call] = this.pending.splice(match, 1);
      const event = call!.event;
      settleToolCall(event, message, location, this.issues);
      if (this.pending.length === 0) this.release();
      return;
    }
    if (message.role === "user" && this.seenAssistant) {
      const event: StreamDraft = { ...userTurn(this.seq++, message.content), inputPrefix: null };
      if (this.pending.length === 0) this.ready.push(event);
      else this.held.push(event);
    }
  }

  /** The events final so far, in seq order (each given once). */
  take(): StreamDraft[] {
    const out = this.ready;
    this.ready = [];
    return out;
  }

  /** The conversation is over: the rest of its events, and the issues of its end. */
  end(): StreamDraft[] {
    this.ready.push(...this.held);
    this.held = [];
    const final = this.lastAssistant;
    if (!this.seenAssistant) {
      this.issues.push(issueAt(this.location, "no assistant message: there is no model step to import"));
    } else if (final && !final.message.toolCalls?.length) {
      this.ready.push({ ...finalOutput(this.seq++, final.message.content, final.seq), inputPrefix: null });
    }
    return this.take();
  }

  private release() {
    this.ready.push(...this.held);
    this.held = [];
  }
}
