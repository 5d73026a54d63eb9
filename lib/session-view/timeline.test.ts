import { describe, expect, it } from "vitest";
import type { SessionEvent } from "@/lib/replay";
import { buildTimeline } from "./timeline";

function ev(seq: number, kind: SessionEvent["kind"], parentSeq: number | null = null): SessionEvent {
  return {
    seq,
    kind,
    name: kind,
    input: null,
    output: null,
    error: null,
    status: "completed",
    startedAt: null,
    durationMs: null,
    usage: null,
    parentSeq,
    cacheKey: null,
    occurrence: null,
  };
}

describe("buildTimeline", () => {
  it("nests tool calls under the model call that requested them, in order", () => {
    const nodes = buildTimeline([
      ev(0, "user_message"),
      ev(1, "model_call"),
      ev(2, "tool_call", 1),
      ev(3, "tool_call", 1),
      ev(4, "model_call"),
      ev(5, "final_output"),
    ]);
    expect(nodes.map((n) => [n.event.seq, n.children.map((c) => c.seq)])).toEqual([
      [0, []],
      [1, [2, 3]],
      [4, []],
      [5, []],
    ]);
  });

  it("keeps a tool call whose parent is unknown as a row of its own", () => {
    const nodes = buildTimeline([ev(0, "tool_call", 7), ev(1, "tool_call", null)]);
    expect(nodes).toHaveLength(2);
  });
});
