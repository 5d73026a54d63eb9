import type { SessionEvent } from "@/lib/replay";

type Step = Pick<SessionEvent, "seq" | "kind" | "parentSeq">;
export type TimelineNode<E extends Step = SessionEvent> = { event: E; children: E[] };

/**
 * Groups tool calls under the model call that asked for them (parentSeq);
 * everything else stays a top-level row, in seq order.
 */
export function buildTimeline<E extends Step>(events: readonly E[]): TimelineNode<E>[] {
  const modelSeqs = new Set(events.filter((e) => e.kind === "model_call").map((e) => e.seq));
  const nodes: TimelineNode<E>[] = [];
  const byModelSeq = new Map<number, TimelineNode<E>>();
  for (const event of events) {
    if (event.kind === "tool_call" && event.parentSeq !== null && modelSeqs.has(event.parentSeq)) {
      const parent = byModelSeq.get(event.parentSeq);
      if (parent) {
        parent.children.push(event);
        continue;
      }
    }
    const node: TimelineNode<E> = { event, children: [] };
    if (event.kind === "model_call") byModelSeq.set(event.seq, node);
    nodes.push(node);
  }
  return nodes;
}

const SEARCH_LIMIT = 2000;

/**
 * What a search finds a step by, lower-cased and bounded: its name, its
 * arguments or message, its output and error. A model call's input (the
 * whole conversation so far) is left out: its messages are found where they
 * first appear, so the text stays linear in the session.
 */
export function searchTextOf(e: SessionEvent): string {
  const text = (v: unknown) => (v === null || v === undefined ? "" : typeof v === "string" ? v : JSON.stringify(v));
  const input =
    e.kind === "model_call"
      ? ""
      : text(e.kind === "tool_call" ? (e.input as { args?: unknown } | null)?.args : e.input);
  const error = e.error ? `${e.error.type} ${e.error.message}` : "";
  return [e.name, input, text(e.output), error].join(" ").slice(0, SEARCH_LIMIT).toLowerCase();
}
