import { describe, expect, it } from "vitest";
import type { SessionEvent } from "@/lib/replay";
import { editTargets, initialEditValue, targetsFor } from "./edit-values";

const ev = (e: Partial<SessionEvent>): SessionEvent => ({
  seq: 0,
  kind: "tool_call",
  name: "t",
  input: null,
  output: null,
  error: null,
  status: "completed",
  startedAt: null,
  durationMs: null,
  usage: null,
  parentSeq: null,
  cacheKey: null,
  occurrence: null,
  ...e,
});

describe("edit targets", () => {
  const events = [
    ev({
      seq: 0,
      kind: "model_call",
      name: "gpt",
      input: { messages: [{ role: "system", content: "be nice" }] },
      output: { role: "assistant", content: "hi" },
    }),
    ev({ seq: 1, kind: "tool_call", name: "lookup", input: { callId: "c1", args: { id: "1" } }, output: { ok: true } }),
    ev({ seq: 2, kind: "final_output", name: "final_output", output: "done" }),
  ];
  const targets = editTargets(events);

  it("offers only steps of the kind each op needs", () => {
    expect(targetsFor("replace_tool_args", targets).map((t) => t.seq)).toEqual([1]);
    expect(targetsFor("replace_system_prompt", targets).map((t) => t.seq)).toEqual([0]);
    expect(targets.map((t) => t.seq)).toEqual([0, 1]);
  });

  it("starts each editor from the recorded value it replaces", () => {
    expect(JSON.parse(initialEditValue("replace_tool_args", targets[1]))).toEqual({ id: "1" });
    expect(JSON.parse(initialEditValue("replace_tool_result", targets[1]))).toEqual({ ok: true });
    expect(JSON.parse(initialEditValue("replace_system_prompt", targets[0]))).toBe("be nice");
    expect(JSON.parse(initialEditValue("replace_model_output", targets[0]))).toEqual({
      role: "assistant",
      content: "hi",
    });
    expect(initialEditValue("replace_tool_args", undefined)).toBe("null");
  });
});
