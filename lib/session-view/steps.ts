import { previewText } from "@/lib/format";
import type { SessionEvent } from "@/lib/replay";

/**
 * A step as a long session's pages list it: what the row shows (kind, name,
 * status, times, tokens, a short preview), never its inputs and outputs,
 * which come one step at a time when the step is opened. Its size is
 * bounded whatever the step holds.
 */
export interface StepSummary {
  seq: number;
  kind: SessionEvent["kind"];
  name: string;
  status: SessionEvent["status"];
  parentSeq: number | null;
  occurrence: number | null;
  startedAt: string | null;
  durationMs: number | null;
  usage: SessionEvent["usage"];
  /** One line: the error, the tools a model call asked for or its text, a tool's arguments and result. */
  preview: string;
  /** A model call: how many messages its full input holds (null when not known without reading them). */
  inputMessages: number | null;
  /** The agent that made the step, when its source says (a multi-agent trace's handoffs), else null. */
  agent: string | null;
}

const PREVIEW = 160;
const NAME = 200;

/** The preview line of a step (errors first: failed calls stand out). */
export function stepPreview(e: Pick<SessionEvent, "kind" | "input" | "output" | "error">): string {
  if (e.error) return previewText(`${e.error.type}: ${e.error.message}`, PREVIEW);
  if (e.kind === "model_call") {
    const out = e.output as { content?: unknown; toolCalls?: { name?: unknown }[] } | null;
    const calls = Array.isArray(out?.toolCalls)
      ? out.toolCalls.map((c) => (typeof c?.name === "string" ? c.name : "?")).join(", ")
      : "";
    return calls ? previewText(`→ ${calls}`, PREVIEW) : previewText(out?.content, PREVIEW);
  }
  if (e.kind === "tool_call") {
    const args = (e.input as { args?: unknown } | null)?.args;
    return `${previewText(args, 70)} ⇒ ${previewText(e.output, 70)}`;
  }
  return previewText(e.output ?? e.input, PREVIEW);
}

/** What every step summary starts with: its place, kind and status, and its name cut to NAME characters. */
export function stepHead<E extends { seq: number; kind: unknown; name: string; status: unknown }>(
  e: E,
): Pick<E, "seq" | "kind" | "status"> & { name: string } {
  return {
    seq: e.seq,
    kind: e.kind,
    name: e.name.length > NAME ? `${e.name.slice(0, NAME - 1)}…` : e.name,
    status: e.status,
  };
}

/** The agent a step's input names (`input.agent`: the OTLP importer's, from the GenAI conventions), cut to NAME characters. */
export function stepAgent(e: Pick<SessionEvent, "input">): string | null {
  const agent = (e.input as { agent?: unknown } | null)?.agent;
  if (typeof agent !== "string" || agent === "") return null;
  return agent.length > NAME ? `${agent.slice(0, NAME - 1)}…` : agent;
}

/** A step's summary; `inputMessages` is given by the reader (it knows the stored prefix). */
export function summarizeStep(e: SessionEvent, inputMessages: number | null = null): StepSummary {
  return {
    ...stepHead(e),
    parentSeq: e.parentSeq,
    occurrence: e.occurrence,
    startedAt: e.startedAt,
    durationMs: e.durationMs,
    usage: e.usage,
    preview: stepPreview(e),
    inputMessages,
    agent: stepAgent(e),
  };
}
