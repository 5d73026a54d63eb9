import type { Message, SessionEvent } from "./events";
import { deepEqual } from "./json";
import { conversationWork, givenMessages, listRelativeTo, MessageList } from "./message-list";
import type { ReplayStep } from "./replay-types";

/** A rebuilt model input: its message list, the reasons it differs from the record, and the messages in full on request. */
export interface RebuiltInput {
  list: MessageList | null;
  drift: string[];
  /** The full messages (materialized when read: a cost of the conversation's length). */
  readonly messages: Message[];
}

function rebuilt(list: MessageList | null, drift: string[]): RebuiltInput {
  let messages: Message[] | null = null;
  return {
    list,
    drift,
    get messages() {
      return (messages ??= list === null ? [] : list.toArray());
    },
  };
}

/** A reason a rebuilt input differs from the record, at the position of the message that gave it. */
type ReasonAt = { at: number; reason: string };

/**
 * The conversation a branch has built, as far as the next model step's input
 * needs it: what the branch changed (tool results, model outputs, the system
 * prompt), whether its structure left the record's, and the messages since the
 * last model step. Model step inputs are rebuilt from this, as message lists
 * that extend the previous step's (see ./message-list.ts): a step costs the
 * messages it adds, whether the branch follows the record or not.
 */
export class BranchConversation {
  /** callId → the branch's tool message, for calls whose result differs from the record. */
  readonly changedToolResults = new Map<string, Message>();
  /** First tool call id → the branch's assistant message, for model outputs that differ from the record. */
  readonly changedModelOutputs = new Map<string, Message>();
  /** The edited system prompt, once an edit set it. */
  systemPrompt: { value: unknown } | null = null;
  /** The branch took another path than the record: later inputs are rebuilt from the branch itself. */
  structureDiverged = false;
  /** The last model step's message list (null: its input had none), built when first read, and its output. */
  private prevListOrBuild: MessageList | null | (() => MessageList | null) = null;
  prevOutput: Message | null = null;
  /** The system prompt `prevList` was built under. */
  private prevListPrompt: { value: unknown } | null = null;
  /** Messages since the last model step: user messages, and tool steps whose message is built only when needed. */
  sinceLastModelStep: (Message | ReplayStep)[] = [];

  get prevList(): MessageList | null {
    const value = this.prevListOrBuild;
    if (typeof value !== "function") return value;
    const built = value();
    this.prevListOrBuild = built;
    return built;
  }

  /**
   * The last substitution: the recorded list it was made for, the branch's
   * list it gave, its reasons by position, and the call ids its messages carry
   * (those of messages a later list no longer takes too: a superset is safe).
   */
  private lastSubstitution: {
    recorded: MessageList;
    list: MessageList;
    reasons: ReasonAt[];
    ids: Set<string>;
  } | null = null;
  /** Ids (tool call ids, first tool call ids) changed since the last substitution. */
  private readonly changesSince: string[] = [];
  /** The system prompt changed since the last substitution: walk every message again. */
  private rewalk = false;

  /**
   * The input messages for model step i, rebuilt from what the branch
   * produced, with the reasons it differs from the recorded input (none: the
   * recorded list itself is returned). `recordedList` is the recorded input's
   * message list (by default read from the event, stored whole).
   */
  reconstructInput(
    i: number,
    recorded: SessionEvent | null,
    recordedList: MessageList | null = listOfInput(recorded?.input),
  ): RebuiltInput {
    if (recorded && !this.structureDiverged) {
      if (this.unchanged() || recordedList === null) return rebuilt(recordedList, NO_DRIFT);
      return this.substituteChanges(recordedList);
    }
    // Past the record, or after the branch took another path: the conversation so far.
    const added: Message[] = [];
    if (this.prevOutput) added.push(this.prevOutput);
    for (const entry of this.sinceLastModelStep) added.push(asMessage(entry));
    conversationWork.messages += added.length;
    const drift = i === 0 && !recorded ? NO_DRIFT : ["conversation_rebuilt"];
    const previous = this.prevList;
    if (this.systemPrompt === null) {
      const list = previous === null ? MessageList.of(added) : new MessageList(previous, previous.length, added);
      return rebuilt(list, drift);
    }
    const value = this.systemPrompt.value;
    const withPrompt = (m: Message): Message => (m.role === "system" ? { ...m, content: value } : m);
    if (previous !== null && this.prevListPrompt === this.systemPrompt)
      return rebuilt(new MessageList(previous, previous.length, added.map(withPrompt)), drift);
    // The prompt changed since the last list was built: every message once more.
    const messages = [...(previous?.toArray() ?? []), ...added].map(withPrompt);
    return rebuilt(listRelativeTo(previous, messages), drift);
  }

  /** Whether a recorded model input is still exactly what the branch would send (nothing changed, same structure). */
  recordedInputStands(): boolean {
    return !this.structureDiverged && this.unchanged();
  }

  private unchanged(): boolean {
    return this.changedToolResults.size === 0 && this.changedModelOutputs.size === 0 && this.systemPrompt === null;
  }

  /**
   * The recorded messages with the branch's changes put in, and which changes
   * showed. Long conversations send the whole conversation at every model
   * step, so this is incremental: when this step's recorded list extends the
   * list of the last substitution (its pointer names that list) and no change
   * since then touches its messages, the result extends the last result by the
   * new messages only; the reasons of the messages it no longer takes are
   * dropped by position. Otherwise every message is substituted afresh (once
   * per system prompt edit, or when a change reaches back into the conversation).
   * Given an array (the whole list), it is first cut against the last recorded list.
   */
  substituteChanges(recorded: MessageList | readonly Message[]): RebuiltInput {
    const last = this.lastSubstitution;
    const recordedList = recorded instanceof MessageList ? recorded : listRelativeTo(last?.recorded ?? null, recorded);
    if (
      last !== null &&
      !this.rewalk &&
      recordedList.prefix === last.recorded &&
      !this.changesSince.some((id) => last.ids.has(id))
    ) {
      const count = recordedList.count;
      const reasons = last.reasons;
      while (reasons.length > 0 && reasons[reasons.length - 1]!.at >= count) reasons.pop();
      const ids = last.ids;
      const added: Message[] = [];
      recordedList.added.forEach((m, k) => {
        added.push(this.substitute(m, count + k, reasons));
        noteIds(m, ids);
      });
      conversationWork.messages += added.length;
      return this.remember(recordedList, new MessageList(last.list, count, added), reasons, ids);
    }
    const reasons: ReasonAt[] = [];
    const ids = new Set<string>();
    const messages: Message[] = [];
    recordedList.toArray().forEach((m, k) => {
      messages.push(this.substitute(m, k, reasons));
      noteIds(m, ids);
    });
    conversationWork.messages += messages.length;
    return this.remember(recordedList, listRelativeTo(this.prevList, messages), reasons, ids);
  }

  /** One recorded message with the branch's change put in (adding the reason at its position), or the message itself. */
  private substitute(m: Message, at: number, reasons: ReasonAt[]): Message {
    const systemPrompt = this.systemPrompt;
    if (m.role === "system" && systemPrompt !== null && !deepEqual(m.content, systemPrompt.value)) {
      reasons.push({ at, reason: "system_prompt_edited" });
      return { ...m, content: systemPrompt.value };
    }
    if (m.role === "tool" && m.toolCallId !== undefined) {
      const changed = this.changedToolResults.get(m.toolCallId);
      if (changed) {
        reasons.push({ at, reason: `tool_result_changed:${m.toolCallId}` });
        return { ...m, content: changed.content };
      }
    }
    const firstId = m.role === "assistant" ? m.toolCalls?.[0]?.id : undefined;
    if (firstId !== undefined) {
      const changed = this.changedModelOutputs.get(firstId);
      if (changed) {
        reasons.push({ at, reason: `model_output_changed:${firstId}` });
        return changed;
      }
    }
    return m;
  }

  private remember(recorded: MessageList, list: MessageList, reasons: ReasonAt[], ids: Set<string>): RebuiltInput {
    this.lastSubstitution = { recorded, list, reasons, ids };
    this.changesSince.length = 0;
    this.rewalk = false;
    if (reasons.length === 0) return rebuilt(list, NO_DRIFT);
    const distinct = new Set<string>();
    for (const r of reasons) distinct.add(r.reason);
    return rebuilt(list, [...distinct]);
  }

  /** Sets the system prompt an edit gave (later inputs are substituted afresh). */
  setSystemPrompt(value: unknown): void {
    this.systemPrompt = { value };
    this.rewalk = true;
  }

  /**
   * Notes a model step's output: one that differs from the record replaces
   * the recorded one in later inputs (by its first tool call id); a reply
   * without tool calls cannot be substituted, so later inputs are rebuilt.
   */
  noteModelOutput(output: Message, equalsRecorded: boolean): void {
    if (equalsRecorded) return;
    const firstId = output.toolCalls?.[0]?.id;
    if (firstId !== undefined) {
      this.changedModelOutputs.set(firstId, output);
      this.changesSince.push(firstId);
    } else this.structureDiverged = true;
  }

  /**
   * A model step ran: its input's message list (or a function that builds it
   * when first needed, or, given an input, the list of its messages stored
   * whole) and its output start the next stretch of the conversation.
   */
  advance(input: unknown, output: Message): void {
    this.prevListOrBuild =
      input === null || input instanceof MessageList || typeof input === "function"
        ? (input as MessageList | null | (() => MessageList | null))
        : listOfInput(input);
    this.prevListPrompt = this.systemPrompt;
    this.prevOutput = output;
    this.sinceLastModelStep.length = 0;
  }

  /** A tool step ran; its message is built only when a later input needs it (or at once if it changed). */
  noteToolStep(step: ReplayStep): void {
    this.sinceLastModelStep.push(step);
    if (step.equalsBase) return;
    const callId = (step.input as { callId: string }).callId;
    this.changedToolResults.set(callId, toolMessageOf(step));
    this.changesSince.push(callId);
  }
}

/** The message list of an input whose messages are stored whole; null when it has no `messages` array. */
export function listOfInput(input: unknown): MessageList | null {
  const messages = givenMessages(input);
  return messages === null ? null : MessageList.of(messages);
}

/** The ids a change can be keyed by that a message carries (its tool call id, its first tool call's id). */
function noteIds(m: Message, ids: Set<string>): void {
  if (m.role === "tool" && m.toolCallId !== undefined) ids.add(m.toolCallId);
  else if (m.role === "assistant") {
    const firstId = m.toolCalls?.[0]?.id;
    if (firstId !== undefined) ids.add(firstId);
  }
}

/** Shared by every model step without drift; never mutated. */
const NO_DRIFT: string[] = Object.freeze([]) as unknown as string[];

/** The tool message a tool step puts in the conversation. */
export function toolMessageOf(step: ReplayStep): Message {
  return {
    role: "tool",
    toolCallId: (step.input as { callId: string }).callId,
    name: step.name,
    content: step.error !== null ? { error: step.error } : step.output,
  };
}

function asMessage(entry: Message | ReplayStep): Message {
  return "role" in entry ? entry : toolMessageOf(entry);
}

/** The `messages` of a model call's input (none when it has no such list). */
export function messagesOf(input: unknown): Message[] {
  if (input === null || typeof input !== "object" || Array.isArray(input)) return [];
  const messages = (input as { messages?: unknown }).messages;
  return Array.isArray(messages) ? (messages as Message[]) : [];
}

/** The message a recorded user_message event adds to the conversation. */
export function messageOfUserEvent(event: SessionEvent): Message {
  const output = event.output;
  const source =
    output !== null && typeof output === "object" && !Array.isArray(output) && (output as { role?: unknown }).role
      ? output
      : event.input;
  if (source !== null && typeof source === "object" && !Array.isArray(source) && (source as Message).role === "user")
    return source as Message;
  return { role: "user", content: source };
}
