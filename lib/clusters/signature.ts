// ---------------------------------------------------------------------------
// A failed session's signature: what its failure is, with what differs
// between runs of the same failure masked out. Sessions of one agent with
// equal signatures form a cluster. Pure: computed at ingest from the events
// being saved, or from the few event rows a stored session needs (see
// `FailureStep`).
// ---------------------------------------------------------------------------
import { createHash } from "node:crypto";
import { maskMessage } from "./mask";

/** What the failure decision reads of a step. */
export type FailureStep = {
  seq: number;
  kind: string;
  name: string;
  status: string;
  error: { type?: unknown; message?: unknown } | null;
};

export type FailureSignature = {
  /** The failing online check's name (the first by name, lib/db/online-checks.ts); "" when no check failed. */
  check: string;
  /** `tool:<name>` for a tool call, `model` for a model step (the model id is left out: a model upgrade does not make a new failure), "" when no step failed. */
  step: string;
  errorType: string;
  /** The error message as a template (see ./mask.ts). */
  message: string;
};

/** Longest stored template and error type (the hash covers the whole text). */
export const STORED_MESSAGE_CHARS = 1000;
const STORED_TYPE_CHARS = 200;

/**
 * The failed tool calls the run did not recover from: no later completed call of the same tool.
 * Reads only failed steps and each tool's completed calls, so the rows a stored session needs are its
 * failed events plus its last completed call per tool (lib/db reads just those).
 */
function unrecovered(steps: readonly FailureStep[]): FailureStep[] {
  const lastCompleted = new Map<string, number>();
  for (const s of steps)
    if (s.kind === "tool_call" && s.status === "completed")
      lastCompleted.set(s.name, Math.max(lastCompleted.get(s.name) ?? -1, s.seq));
  return steps.filter(
    (s) => s.kind === "tool_call" && s.status === "failed" && (lastCompleted.get(s.name) ?? -1) < s.seq,
  );
}

/**
 * Whether a session failed: the one definition clusters and regressions use. Its status is failed, or a
 * tool call failed and no later call of the same tool succeeded. (When sessions carry an imported outcome,
 * this is the function to point at it.)
 */
export function isFailedSession(session: { status: string }, steps: readonly FailureStep[]): boolean {
  return session.status === "failed" || unrecovered(steps).length > 0;
}

/** The step a failed session's signature names: the first failed step that is not a recovered tool call. */
function failingStep(steps: readonly FailureStep[]): FailureStep | null {
  const sorted = [...steps].sort((a, b) => a.seq - b.seq);
  const stuck = new Set(unrecovered(sorted));
  return sorted.find((s) => s.status === "failed" && (s.kind !== "tool_call" || stuck.has(s))) ?? null;
}

function text(value: unknown): string {
  if (typeof value === "string") return value;
  if (value === null || value === undefined) return "";
  if (typeof value === "number" || typeof value === "boolean") return String(value);
  try {
    return JSON.stringify(value) ?? "";
  } catch {
    return "";
  }
}

/** The session's failure signature, or null when it did not fail. */
export function failureSignature(
  session: { status: string },
  steps: readonly FailureStep[],
  check: string | null = null,
): FailureSignature | null {
  if (!isFailedSession(session, steps) && check === null) return null;
  const step = failingStep(steps);
  return {
    check: check ?? "",
    step:
      step === null
        ? ""
        : step.kind === "tool_call"
          ? `tool:${step.name}`
          : step.kind === "model_call"
            ? "model"
            : step.kind,
    errorType: text(step?.error?.type).trim(),
    message: maskMessage(text(step?.error?.message)),
  };
}

/**
 * The cluster key of a signature: SHA-256 over its fields, each written as its length and then its UTF-16
 * code units, so no text inside one field can pose as a field boundary, and lone surrogates (which UTF-8
 * would turn into U+FFFD) stay distinct.
 */
export function signatureHash(sig: FailureSignature): string {
  const hash = createHash("sha256");
  hash.update("branchpoint-failure-signature/1");
  for (const field of [sig.check, sig.step, sig.errorType, sig.message]) {
    const bytes = Buffer.from(field, "utf16le");
    const length = Buffer.alloc(4);
    length.writeUInt32BE(bytes.length);
    hash.update(length);
    hash.update(bytes);
  }
  return hash.digest("hex");
}

/** Text the database can store: lone surrogates and NUL replaced (the hash keeps them apart), cut to `max`. */
export function storableText(value: string, max: number): string {
  let out = "";
  let count = 0;
  for (let i = 0; i < value.length && count < max; i++, count++) {
    const c = value.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff) {
      const next = value.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) {
        out += value[i]! + value[i + 1]!;
        i++;
        continue;
      }
      out += "\ufffd";
    } else if ((c >= 0xdc00 && c <= 0xdfff) || c === 0) out += "\ufffd";
    else out += value[i]!;
  }
  return count >= max && out.length < value.length ? `${out}…` : out;
}

/** The signature as stored: fields cut to what a page shows, made storable; the hash is of the full signature. */
export function storedSignature(sig: FailureSignature): FailureSignature {
  return {
    check: storableText(sig.check, STORED_TYPE_CHARS),
    step: storableText(sig.step, STORED_TYPE_CHARS),
    errorType: storableText(sig.errorType, STORED_TYPE_CHARS),
    message: storableText(sig.message, STORED_MESSAGE_CHARS),
  };
}

/** A cluster's name until an analyst gives it one: `refund_payment: PaymentDeclined: card <id> declined`. */
export function defaultLabel(sig: FailureSignature): string {
  const where = sig.check ? `check ${sig.check}` : sig.step.startsWith("tool:") ? sig.step.slice(5) : sig.step || "run";
  const what = [sig.errorType, sig.message].filter(Boolean).join(": ") || "failed without an error";
  const label = `${where}: ${what}`;
  return label.length > 120 ? `${label.slice(0, 119)}…` : label;
}
