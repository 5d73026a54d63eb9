import type { SessionEvent } from "@/lib/replay";

export type TimelineNode = { event: SessionEvent; children: SessionEvent[] };

/**
 * Groups tool calls under the model call that asked for them (parentSeq);
 * everything else stays a top-level row, in seq order.
 */
export function buildTimeline(events: readonly SessionEvent[]): TimelineNode[] {
  const modelSeqs = new Set(events.filter((e) => e.kind === "model_call").map((e) => e.seq));
  const nodes: TimelineNode[] = [];
  const byModelSeq = new Map<number, TimelineNode>();
  for (const event of events) {
    if (event.kind === "tool_call" && event.parentSeq !== null && modelSeqs.has(event.parentSeq)) {
      const parent = byModelSeq.get(event.parentSeq);
      if (parent) {
        parent.children.push(event);
        continue;
      }
    }
    const node = { event, children: [] };
    if (event.kind === "model_call") byModelSeq.set(event.seq, node);
    nodes.push(node);
  }
  return nodes;
}
