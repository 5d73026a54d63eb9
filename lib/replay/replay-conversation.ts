import type { Message, SessionEvent } from "./events";
import { deepEqual } from "./json";
import type { ReplayStep } from "./replay";

/**
 * The conversation a branch has built, as far as the next model step's input
 * needs it: what the branch changed (tool results, model outputs, the system
 * prompt), whether its structure left the record's, and the messages since the
 * last model step. Model step inputs are rebuilt from this.
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
  /** The last model step's input (its messages are read only if a later input is rebuilt) and output. */
  prevInput: unknown = null;
  prevOutput: Message | null = null;
  /** Messages since the last model step: user messages, and tool steps whose message is built only when needed. */
  sinceLastModelStep: (Message | ReplayStep)[] = [];

  /** The last substitution (recorded messages, the result, its reasons, the call ids its messages carry). */
  private lastSubstitution: {
    recorded: readonly Message[];
    messages: Message[];
    reasons: Set<string>;
    ids: Set<string>;
  } | null = null;
  /** Ids (tool call ids, first tool call ids) changed since the last substitution. */
  private readonly changesSince: string[] = [];
  /** The system prompt changed since the last substitution: walk every message again. */
  private rewalk = false;

  /**
   * The input messages for model step i, rebuilt from what the branch
   * produced, with the reasons it differs from the recorded input (none: the
   * recorded messages themselves are returned).
   */
  reconstructInput(i: number, recorded: SessionEvent | null): { messages: Message[]; drift: string[] } {
    if (recorded && !this.structureDiverged) {
      const recordedMessages = messagesOf(recorded.input);
      if (this.unchanged()) return { messages: recordedMessages, drift: NO_DRIFT };
      return this.substituteChanges(recordedMessages);
    }
    // Past the record, or after the branch took another path: the conversation so far.
    const messages = [...messagesOf(this.prevInput)];
    if (this.prevOutput) messages.push(this.prevOutput);
    for (const entry of this.sinceLastModelStep) messages.push(asMessage(entry));
    if (this.systemPrompt !== null) {
      const value = this.systemPrompt.value;
      for (let k = 0; k < messages.length; k++)
        if (messages[k]!.role === "system") messages[k] = { ...messages[k]!, content: value };
    }
    return { messages, drift: i === 0 && !recorded ? NO_DRIFT : ["conversation_rebuilt"] };
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
   * step, so this is incremental: when this step's recorded messages extend
   * the previous step's (the same message objects, checked by reference) and
   * no change since then touches those messages, the previous result is
   * extended by the new messages only, instead of looking every message up again.
   */
  substituteChanges(recordedMessages: readonly Message[]): { messages: Message[]; drift: string[] } {
    const last = this.lastSubstitution;
    if (
      last !== null &&
      !this.rewalk &&
      recordedMessages.length >= last.recorded.length &&
      !this.changesSince.some((id) => last.ids.has(id)) &&
      sharesPrefix(recordedMessages, last.recorded)
    ) {
      const messages = last.messages.slice();
      const reasons = new Set(last.reasons);
      const ids = last.ids;
      for (let k = last.recorded.length; k < recordedMessages.length; k++) {
        const m = recordedMessages[k]!;
        messages.push(this.substitute(m, reasons));
        noteIds(m, ids);
      }
      return this.remember(recordedMessages, messages, reasons, ids);
    }
    const reasons = new Set<string>();
    const ids = new Set<string>();
    const messages: Message[] = [];
    for (const m of recordedMessages) {
      messages.push(this.substitute(m, reasons));
      noteIds(m, ids);
    }
    return this.remember(recordedMessages, messages, reasons, ids);
  }

  /** One recorded message with the branch's change put in (adding the reason), or the message itself. */
  private substitute(m: Message, reasons: Set<string>): Message {
    const systemPrompt = this.systemPrompt;
    if (m.role === "system" && systemPrompt !== null && !deepEqual(m.content, systemPrompt.value)) {
      reasons.add("system_prompt_edited");
      return { ...m, content: systemPrompt.value };
    }
    if (m.role === "tool" && m.toolCallId !== undefined) {
      const changed = this.changedToolResults.get(m.toolCallId);
      if (changed) {
        reasons.add(`tool_result_changed:${m.toolCallId}`);
        return { ...m, content: changed.content };
      }
    }
    const firstId = m.role === "assistant" ? m.toolCalls?.[0]?.id : undefined;
    if (firstId !== undefined) {
      const changed = this.changedModelOutputs.get(firstId);
      if (changed) {
        reasons.add(`model_output_changed:${firstId}`);
        return changed;
      }
    }
    return m;
  }

  private remember(
    recorded: readonly Message[],
    messages: Message[],
    reasons: Set<string>,
    ids: Set<string>,
  ): { messages: Message[]; drift: string[] } {
    this.lastSubstitution = { recorded, messages, reasons, ids };
    this.changesSince.length = 0;
    this.rewalk = false;
    return { messages, drift: reasons.size === 0 ? NO_DRIFT : [...reasons] };
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

  /** A model step ran: its input and output start the next stretch of the conversation. */
  advance(input: unknown, output: Message): void {
    this.prevInput = input;
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

/** Whether `list` starts with every message of `prefix` (the same objects). */
function sharesPrefix(list: readonly Message[], prefix: readonly Message[]): boolean {
  for (let k = prefix.length - 1; k >= 0; k--) if (list[k] !== prefix[k]) return false;
  return true;
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
