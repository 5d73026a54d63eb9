import { describe, expect, it } from "vitest";
import { CohortEdit, composeCohortEdits, fitCohortEdit } from "./cohort-edit";
import type { SessionEvent } from "./events";

function call(seq: number, name: string, args: unknown): SessionEvent {
  return {
    seq,
    kind: "tool_call",
    name,
    input: { callId: `c${seq}`, args },
    output: { ok: true },
    error: null,
    status: "completed",
  } as SessionEvent;
}

const RUN = [
  call(1, "lookup_order", { order_id: "4821" }),
  call(2, "get_time", {}),
  call(3, "lookup_order", { order_id: "9" }),
];

describe("fitCohortEdit", () => {
  it("edits every call of the tool when no arguments are given", () => {
    const edit = CohortEdit.parse({ tool: "lookup_order", value: { status: "lost" } });
    expect(fitCohortEdit(RUN, edit)).toEqual({
      applies: true,
      edits: [
        { seq: 1, op: "replace_tool_result", value: { status: "lost" } },
        { seq: 3, op: "replace_tool_result", value: { status: "lost" } },
      ],
    });
  });

  it("edits only the calls with the given argument values", () => {
    const edit = CohortEdit.parse({ tool: "lookup_order", args: { order_id: "9" }, value: null });
    expect(fitCohortEdit(RUN, edit)).toEqual({
      applies: true,
      edits: [{ seq: 3, op: "replace_tool_result", value: null }],
    });
  });

  it("says why it does not apply: no call of the tool, or no call with those arguments", () => {
    expect(fitCohortEdit(RUN, CohortEdit.parse({ tool: "refund", value: 1 }))).toEqual({
      applies: false,
      reason: "No call of refund.",
    });
    expect(fitCohortEdit(RUN, CohortEdit.parse({ tool: "lookup_order", args: { order_id: 4821 }, value: 1 }))).toEqual({
      applies: false,
      reason: "None of its 2 calls of lookup_order has order_id = 4821.",
    });
    expect(fitCohortEdit(RUN, CohortEdit.parse({ tool: "get_time", args: { tz: "UTC" }, value: 1 }))).toEqual({
      applies: false,
      reason: 'Its one call of get_time does not have tz = "UTC".',
    });
  });

  it("refuses an edit with no result or an unknown field, naming the field", () => {
    const missing = CohortEdit.safeParse({ tool: "x" });
    expect(missing.error?.issues.map((i) => [i.path.join("."), i.message])).toEqual([
      ["value", "Give the result the calls return."],
    ]);
    const extra = CohortEdit.safeParse({ tool: "x", value: 1, seq: 3 });
    expect(extra.error?.issues.map((i) => i.path.join(".") || i.message)).toEqual(['Unrecognized key: "seq"']);
  });
});

describe("composing several cohort edits on one session", () => {
  const at = (seq: number, value: unknown) => ({ seq, op: "replace_tool_result" as const, value });
  it.each([
    ["one edit per step, in step order", [[at(6, "a")], [at(2, "b")]], { ok: true, edits: [at(2, "b"), at(6, "a")] }],
    [
      "two that set a step alike are one",
      [[at(6, { x: 1, y: 2 })], [at(6, { y: 2, x: 1 })]],
      { ok: true, edits: [at(6, { x: 1, y: 2 })] },
    ],
    ["an edit that does not apply adds nothing", [[], [at(1, null)]], { ok: true, edits: [at(1, null)] }],
    [
      "two that set a step differently conflict",
      [[at(1, 1)], [at(2, 2)], [at(2, 3)]],
      { ok: false, seq: 2, first: 1, second: 2 },
    ],
  ])("%s", (_name, lists, expected) => {
    expect(composeCohortEdits(lists)).toEqual(expected);
  });
});
