import { createHash } from "node:crypto";
import { setOwn } from "@/lib/hostile/objects";
import { canonicalJson, sameJson } from "@/lib/replay";

// ---------------------------------------------------------------------------
// Model inputs stored once. A model call's input is the whole conversation so
// far (`{ messages: [...], model, tools, … }`), so storing it whole at every
// step costs the square of the session. Stored, a model call's input keeps
// only the messages it adds: `inputPrefix` points at an earlier model call of
// the same run (its seq or step index) and says how many of that call's FULL
// messages come first. The full input is that call's first `count` messages
// followed by the stored ones, the other fields as stored:
//
//   full(e).messages = full(e.prefix.seq).messages.slice(0, e.prefix.count) ++ stored(e).messages
//
// The prefix is always the previous model call that has a `messages` array,
// and `count` is the longest common prefix of the two lists (0: no pointer,
// stored whole). Each message is thus stored once, where it first appears.
// Expansion walks the calls in order and builds each list from the previous
// one (no message is parsed or copied twice, arrays share their elements).
//
// `inputDigest` fingerprints the FULL input without serializing it whole at
// every step: SHA-256 of each message once, chained over the list, then mixed
// with the other fields. Equal full inputs give equal digests whatever their
// stored form, so a comparison can test equality without reading prompts.
// ---------------------------------------------------------------------------

export type InputPrefix = { seq: number; count: number };

/** One step as stored: its input with messages cut to what it adds, the pointer, and its digest. */
export type CompactInput = { input: unknown; prefix: InputPrefix | null; digest: string | null };

/** A step with its full input, or (with `inputPrefix`) already in the stored form, as the engine's compact replays give them. */
export type Step = { seq: number; kind: string; input: unknown; inputPrefix?: InputPrefix | null };
type StoredStep = Step & { prefix: InputPrefix | null };

type Plain = Record<string, unknown>;
const isPlain = (v: unknown): v is Plain => v !== null && typeof v === "object" && !Array.isArray(v);
const messagesOf = (input: unknown): readonly unknown[] | null =>
  isPlain(input) && Array.isArray(input.messages) ? input.messages : null;

const sha = (text: string) => createHash("sha256").update(text).digest("hex");
const canonical = (v: unknown) => canonicalJson(v) ?? "null";

/** Per-message hashes, memoized per object: a message shared by many steps is serialized and hashed once. */
function messageHasher() {
  const memo = new WeakMap<object, string>();
  return (m: unknown): string => {
    if (m === null || typeof m !== "object") return sha(canonical(m));
    let h = memo.get(m);
    if (h === undefined) {
      h = sha(canonical(m));
      memo.set(m, h);
    }
    return h;
  };
}

/** The chain value after one more message. */
const link = (before: string, messageHash: string) => sha(`${before}\n${messageHash}`);

/**
 * The digest of a full input. Its fields besides the messages (model, tools and their schemas…) are most often
 * the previous call's again: their canonical text is reused when they have the same JSON (a cheaper test).
 */
function digester() {
  let last: { rest: Plain; text: string } | null = null;
  return (input: unknown, chainEnd: string | null, count: number): string => {
    if (!isPlain(input) || chainEnd === null) return sha(`input\n${canonical(input)}`);
    const rest: Plain = {};
    // An own "__proto__" key (JSON.parse makes them) must stay a key of the digest, not become rest's prototype.
    for (const [k, v] of Object.entries(input)) if (k !== "messages") setOwn(rest, k, v);
    const text = last !== null && sameJson(last.rest, rest) ? last.text : canonical(rest);
    last = { rest, text };
    return sha(`messages\n${text}\n${count}\n${chainEnd}`);
  };
}

/**
 * The previous model call's messages (null: given in the stored form, so only
 * their hashes are known) with their hashes and chain values (mutated in
 * place: only the latest is kept). A hash is worked out when first needed
 * (`undefined` until then, only while `messages` is known): without digests,
 * only a message compared by hash is hashed.
 */
type Lineage = { seq: number; messages: readonly unknown[] | null; hashes: (string | undefined)[]; chain: string[] };

/**
 * The stored form of a run's inputs (events of a session, steps of a replay),
 * in order. Only model calls with a `messages` list are cut; every model call
 * with an input gets a digest (unless `digests: false`). Cost: the messages
 * added, plus one comparison per message of the prefix (the same object, or
 * failing that equal hashes, each message hashed once). A step already in the
 * stored form (`inputPrefix`, naming the previous model call with messages)
 * keeps it and costs only the messages it adds.
 */
export function compactInputs(steps: readonly Step[], opts: { digests?: boolean } = {}): CompactInput[] {
  const compactor = inputCompactor(opts);
  return steps.map(compactor);
}

/**
 * compactInputs one step at a time, for a run that is read as a stream (an import written in windows): each call
 * takes the next step in order and gives its stored form. It keeps only the latest model call's message hashes.
 */
export function inputCompactor(opts: { digests?: boolean } = {}): (step: Step) => CompactInput {
  const withDigests = opts.digests !== false;
  const hash = messageHasher();
  const digestOf = digester();
  const hashAt = (lineage: Lineage, i: number): string => (lineage.hashes[i] ??= hash(lineage.messages?.[i]));
  let prev: Lineage | null = null;
  return (step) => {
    if (step.kind !== "model_call" || step.input === null || step.input === undefined)
      return { input: step.input, prefix: null, digest: null };
    const messages = messagesOf(step.input);
    if (!messages)
      return { input: step.input, prefix: null, digest: withDigests ? digestOf(step.input, null, 0) : null };
    const given = step.inputPrefix ?? null;
    if (given !== null) {
      const before: Lineage | null = prev;
      if (!before || before.seq !== given.seq || given.count < 0 || given.count > before.hashes.length)
        throw new BrokenInputPrefix(
          `step ${step.seq} extends step ${given.seq} by ${given.count} messages, which is not the model call before it`,
        );
      const { hashes, chain } = before;
      hashes.length = given.count;
      // The kept messages' hashes, before their objects are let go (this lineage keeps hashes only).
      for (let i = 0; i < given.count; i++) hashAt(before, i);
      chain.length = withDigests ? given.count : 0;
      for (const m of messages) {
        const h = hash(m);
        hashes.push(h);
        if (withDigests) chain.push(link(chain.at(-1) ?? "", h));
      }
      prev = { seq: step.seq, messages: null, hashes, chain };
      const digest = withDigests ? digestOf(step.input, chain.at(-1) ?? "", hashes.length) : null;
      return { input: step.input, prefix: given, digest };
    }
    let k = 0;
    const before: Lineage | null = prev;
    if (before) {
      const limit = Math.min(before.hashes.length, messages.length);
      const was = before.messages;
      // The same message object, or one with the same JSON (which has the same hash), before hashing it.
      if (was !== null) while (k < limit && sameJson(was[k], messages[k])) k++;
      while (k < limit && hashAt(before, k) === hash(messages[k])) k++;
    }
    const hashes = before ? before.hashes : [];
    const chain = before ? before.chain : [];
    hashes.length = k;
    chain.length = k;
    for (let i = k; i < messages.length; i++) {
      if (!withDigests) {
        hashes.push(undefined);
        continue;
      }
      const h = hash(messages[i]);
      hashes.push(h);
      chain.push(link(chain.at(-1) ?? "", h));
    }
    prev = { seq: step.seq, messages, hashes, chain };
    const digest = withDigests ? digestOf(step.input, chain.at(-1) ?? "", messages.length) : null;
    if (k === 0 || before === null) return { input: step.input, prefix: null, digest };
    return {
      input: { ...(step.input as Plain), messages: messages.slice(k) },
      prefix: { seq: before.seq, count: k },
      digest,
    };
  };
}

/** Raised when a stored pointer names a step that is not there, or more messages than it has. */
export class BrokenInputPrefix extends Error {}

/**
 * The full inputs of a run from its stored form, in order. Each list is built
 * from the one it extends (`concat` shares the message objects), so the cost is
 * the messages stored plus one array per model call.
 */
export function expandInputs(steps: readonly StoredStep[]): unknown[] {
  const full = new Map<number, readonly unknown[]>();
  return steps.map((step) => {
    const stored = messagesOf(step.input);
    if (!step.prefix) {
      if (step.kind === "model_call" && stored) full.set(step.seq, stored);
      return step.input;
    }
    const base = full.get(step.prefix.seq);
    if (!base || !stored || step.prefix.count > base.length || step.prefix.count < 0)
      throw new BrokenInputPrefix(
        `step ${step.seq} extends step ${step.prefix.seq} by ${step.prefix.count} messages, which is not stored`,
      );
    const messages =
      step.prefix.count === base.length ? base.concat(stored) : base.slice(0, step.prefix.count).concat(stored);
    full.set(step.seq, messages);
    return { ...(step.input as Plain), messages };
  });
}

/** The digest of each full input (null for steps that are not model calls), from full inputs. */
export function inputDigests(steps: readonly Step[]): (string | null)[] {
  return compactInputs(steps).map((c) => c.digest);
}

/**
 * The full input of `steps[at]` alone, what `expandInputs(steps)[at]` gives (and refused where it throws), at the
 * cost of the messages it holds: it follows the step's pointers back and takes from each stored step only the
 * messages that reach it, instead of building every earlier step's list (a quadratic cost at 10,000 turns).
 */
export function expandInputAt(steps: readonly StoredStep[], at: number): unknown {
  const target = steps[at];
  if (!target?.prefix) return target?.input;
  // Where each earlier step is: a pointer may only name a step before its own (else a damaged one could loop).
  const indexOf = new Map<number, number>();
  for (let i = 0; i < at; i++) indexOf.set(steps[i]!.seq, i);
  const broken = (s: StoredStep, p: InputPrefix) =>
    new BrokenInputPrefix(`step ${s.seq} extends step ${p.seq} by ${p.count} messages, which is not stored`);
  const lengthOf = (s: StoredStep): number | null => {
    const own = messagesOf(s.input);
    if (!own || (!s.prefix && s.kind !== "model_call")) return null;
    return (s.prefix?.count ?? 0) + own.length;
  };
  const pieces: (readonly unknown[])[] = [];
  let step = target;
  let index = at;
  let need = lengthOf(target);
  if (need === null) throw broken(target, target.prefix);
  for (;;) {
    const own = messagesOf(step.input)!;
    const p = step.prefix;
    if (!p) {
      pieces.push(own.slice(0, need));
      break;
    }
    const baseIndex = indexOf.get(p.seq);
    const base = baseIndex !== undefined && baseIndex < index ? steps[baseIndex]! : undefined;
    const baseLength = base ? lengthOf(base) : null;
    if (!base || baseLength === null || p.count > baseLength || p.count < 0) throw broken(step, p);
    if (need > p.count) {
      pieces.push(own.slice(0, need - p.count));
      need = p.count;
    }
    step = base;
    index = baseIndex!;
  }
  return { ...(target.input as Plain), messages: pieces.reverse().flat() };
}

/**
 * The JSON text of a run's full inputs from their stored form, one step at a
 * time in order: what `JSON.stringify` of `expandInputs(steps)[i]` gives, byte
 * for byte, without holding the run. It keeps only the latest model call's
 * messages, each as its JSON text (a stored pointer always names that call:
 * see compactInputs), so its memory is the conversation's last list, and
 * each message is serialized once however many later inputs repeat it.
 * Throws BrokenInputPrefix for a pointer to any other step.
 */
export function fullInputJson(): (step: StoredStep, opts?: { skip?: boolean }) => string {
  let last: { seq: number; parts: string[] } | null = null;
  // `skip`: the step is read for the later ones only (a window of a document further on); its text is not made.
  return (step, opts) => {
    const skip = opts?.skip === true;
    const stored = messagesOf(step.input);
    if (!step.prefix) {
      if (step.kind !== "model_call" || !stored) return skip ? "" : JSON.stringify(step.input ?? null);
      const parts = stored.map(messageJson);
      last = { seq: step.seq, parts };
      return skip ? "" : objectJsonWithMessages(step.input as Plain, parts);
    }
    const { seq, count } = step.prefix;
    if (!last || last.seq !== seq || !stored || count > last.parts.length || count < 0)
      throw new BrokenInputPrefix(
        `step ${step.seq} extends step ${seq} by ${count} messages, which is not the model call before it`,
      );
    // The earlier inputs are written already: the list is cut and extended in place.
    const parts = last.parts;
    parts.length = count;
    for (const m of stored) parts.push(messageJson(m));
    last = { seq: step.seq, parts };
    return skip ? "" : objectJsonWithMessages(step.input as Plain, parts);
  };
}

/** A message as JSON.stringify writes it inside an array (where undefined becomes null). */
const messageJson = (m: unknown): string => JSON.stringify(m) ?? "null";

/** JSON.stringify(input) with its `messages` given as the JSON text of each message (same keys, same order). */
function objectJsonWithMessages(input: Plain, messages: readonly string[]): string {
  let out = "";
  for (const [key, value] of Object.entries(input)) {
    const text = key === "messages" ? `[${messages.join(",")}]` : JSON.stringify(value);
    if (text === undefined) continue;
    out += `${out === "" ? "{" : ","}${JSON.stringify(key)}:${text}`;
  }
  return out === "" ? "{}" : `${out}}`;
}
