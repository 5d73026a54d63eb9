import type { Message, SessionEvent } from "./events";

/**
 * A model input's message list without a copy of its prefix: the first
 * `count` messages of `prefix`'s list, then `added`. A long conversation sends
 * the whole conversation at every model step; as lists, each step's input
 * points at the previous one and holds only the messages it adds, so building
 * one costs what it adds, not the length of the conversation. `toArray()`
 * gives the full list when something needs it (a live model request, the
 * evidence of a full replay), at the cost of its length.
 */
export class MessageList {
  readonly length: number;

  constructor(
    readonly prefix: MessageList | null,
    readonly count: number,
    readonly added: readonly Message[],
  ) {
    if (prefix === null ? count !== 0 : count < 0 || count > prefix.length)
      throw new Error(`A message list cannot take ${count} messages of a list of ${prefix?.length ?? 0}.`);
    this.length = count + added.length;
  }

  /** A list stored whole. */
  static of(messages: readonly Message[]): MessageList {
    return new MessageList(null, 0, messages);
  }

  /** Every message, in order (the stored array itself for a list stored whole). */
  toArray(): Message[] {
    if (this.prefix === null) return this.added as Message[];
    // This list's own messages, then each list it extends, as far as the one before takes them.
    const segments: { added: readonly Message[]; take: number }[] = [{ added: this.added, take: this.added.length }];
    let limit = this.count;
    for (let node: MessageList | null = this.prefix; node !== null && limit > 0; node = node.prefix) {
      if (limit > node.count) {
        segments.push({ added: node.added, take: limit - node.count });
        limit = node.count;
      }
    }
    const out: Message[] = [];
    for (let s = segments.length - 1; s >= 0; s--) {
      const { added, take } = segments[s]!;
      for (let k = 0; k < take; k++) out.push(added[k]!);
    }
    conversationWork.messages += out.length;
    return out;
  }
}

/**
 * How many messages the engine has walked while rebuilding and comparing
 * model inputs (read, substituted, compared or copied), since the start of the
 * process. Tests read it to check that a step costs the messages it adds, not
 * the length of the conversation (counted, so the check does not depend on timing).
 */
export const conversationWork = { messages: 0 };

/** How many leading messages two lists share (the same objects). */
export function sharedPrefixLength(a: readonly Message[], b: readonly Message[]): number {
  const limit = Math.min(a.length, b.length);
  let k = 0;
  while (k < limit && a[k] === b[k]) k++;
  conversationWork.messages += k;
  return k;
}

/**
 * `messages` as a list that extends `previous` (sharing the messages they
 * begin with, compared by reference): the pointer a model step's input gets
 * when it was built whole. Costs the length of both.
 */
export function listRelativeTo(previous: MessageList | null, messages: readonly Message[]): MessageList {
  if (previous === null) return MessageList.of(messages);
  const k = sharedPrefixLength(previous.toArray(), messages);
  if (k === 0) return MessageList.of(messages);
  return new MessageList(previous, k, k === messages.length ? NO_MESSAGES : messages.slice(k));
}

const NO_MESSAGES: readonly Message[] = Object.freeze([]);

/** How a model call's input points at an earlier one: the first `count` full messages of step/event `seq`. */
export type InputPrefix = { seq: number; count: number };

/** The `messages` array of a model call's input as given (stored form or full), or null when it has none. */
export function givenMessages(input: unknown): readonly Message[] | null {
  if (input === null || typeof input !== "object" || Array.isArray(input)) return null;
  const messages = (input as { messages?: unknown }).messages;
  return Array.isArray(messages) ? (messages as Message[]) : null;
}

/**
 * The message list of each model call of a base run that has a `messages`
 * array. An event with `inputPrefix` (the stored form) extends the list of the
 * event it names; a full input is cut against the previous model call's
 * messages (the same objects, as a loader of stored prefixes gives them), so
 * both forms give lists that share their prefixes. Lists are built in seq
 * order as far as they are asked for (a replay that copies the record never
 * asks). Cost: the messages stored, plus, for full inputs, the shared prefix
 * compared by reference.
 */
export class BaseInputLists {
  private readonly lists = new Map<number, MessageList>();
  private next = 0;
  private previous: { list: MessageList; full: readonly Message[] | null } | null = null;

  constructor(private readonly events: readonly SessionEvent[]) {}

  /** The list of a base model call; null when its input has no `messages` array. */
  of(event: SessionEvent): MessageList | null {
    while (this.next < this.events.length && this.events[this.next]!.seq <= event.seq)
      this.add(this.events[this.next++]!);
    return this.lists.get(event.seq) ?? null;
  }

  private add(e: SessionEvent): void {
    if (e.kind !== "model_call") return;
    const messages = givenMessages(e.input);
    if (messages === null) return;
    let list: MessageList;
    let full: readonly Message[] | null = null;
    const pointer = e.inputPrefix ?? null;
    if (pointer !== null) {
      const before = this.lists.get(pointer.seq);
      if (!before || pointer.seq >= e.seq || pointer.count < 0 || pointer.count > before.length)
        throw new Error(
          `Event ${e.seq}'s input extends event ${pointer.seq} by ${pointer.count} messages, which the base run does not have.`,
        );
      list = new MessageList(before, pointer.count, messages);
    } else {
      full = messages;
      const previous = this.previous;
      const k = previous?.full ? sharedPrefixLength(previous.full, messages) : 0;
      list =
        k === 0 || previous === null ? MessageList.of(messages) : new MessageList(previous.list, k, messages.slice(k));
    }
    this.lists.set(e.seq, list);
    this.previous = { list, full };
  }

  /**
   * Checks every pointer of the base (what a replay does before it starts),
   * by the lists' lengths alone: no list is built (a replay that copies the
   * record never needs one), so the check costs a number per model call.
   */
  checkAll(): void {
    const lengths = new Map<number, number>();
    for (const e of this.events) {
      if (e.kind !== "model_call") continue;
      const messages = givenMessages(e.input);
      if (messages === null) continue;
      const pointer = e.inputPrefix ?? null;
      if (pointer !== null) {
        const before = lengths.get(pointer.seq);
        if (before === undefined || pointer.seq >= e.seq || pointer.count < 0 || pointer.count > before)
          throw new Error(
            `Event ${e.seq}'s input extends event ${pointer.seq} by ${pointer.count} messages, which the base run does not have.`,
          );
        lengths.set(e.seq, pointer.count + messages.length);
      } else lengths.set(e.seq, messages.length);
    }
  }
}

/**
 * Full inputs for steps whose model inputs are in the stored form (`inputPrefix`
 * naming an earlier step's seq): each list is built from the one it extends
 * (`concat` shares the message objects). Steps without a pointer come back as
 * they are; the pointer is dropped.
 */
export function withFullInputs<
  S extends { seq: number; kind: string; input: unknown; inputPrefix?: InputPrefix | null },
>(steps: readonly S[]): S[] {
  const full = new Map<number, readonly Message[]>();
  return steps.map((step) => {
    const stored = givenMessages(step.input);
    const pointer = step.inputPrefix ?? null;
    if (pointer === null) {
      if (step.kind === "model_call" && stored) full.set(step.seq, stored);
      if (step.inputPrefix === undefined) return step;
      const { inputPrefix: _drop, ...rest } = step;
      return rest as S;
    }
    const before = full.get(pointer.seq);
    if (!before || !stored || pointer.count > before.length || pointer.count < 0)
      throw new Error(`Step ${step.seq} extends step ${pointer.seq} by ${pointer.count} messages, which is not there.`);
    const messages =
      pointer.count === before.length ? before.concat(stored) : before.slice(0, pointer.count).concat(stored);
    full.set(step.seq, messages);
    const { inputPrefix: _drop, ...rest } = step;
    return { ...rest, input: { ...(step.input as Record<string, unknown>), messages } } as S;
  });
}
