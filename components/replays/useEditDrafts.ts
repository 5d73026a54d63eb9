"use client";

import { useState } from "react";
import type { EditOp } from "@/lib/replay";
import { initialEditValue, targetsFor, type EditTarget } from "./edit-values";

export type EditDraft = { key: number; op: EditOp; seq: number | null; text: string };
export type ParsedEdit = { seq: number; op: EditOp; value: unknown };

/** The counterfactual edits being written: add, change (op, step or value), remove, and parse them for the action. */
export function useEditDrafts(targets: readonly EditTarget[]) {
  const [edits, setEdits] = useState<EditDraft[]>([]);
  const nextKey = () => Math.max(0, ...edits.map((e) => e.key)) + 1;

  const add = () => {
    const first = targetsFor("replace_tool_result", targets)[0];
    setEdits([
      ...edits,
      {
        key: nextKey(),
        op: "replace_tool_result",
        seq: first?.seq ?? null,
        text: initialEditValue("replace_tool_result", first),
      },
    ]);
  };
  const update = (key: number, patch: Partial<EditDraft>) =>
    setEdits(
      edits.map((e) => {
        if (e.key !== key) return e;
        const next = { ...e, ...patch };
        if (patch.op && patch.op !== e.op) {
          const candidates = targetsFor(patch.op, targets);
          const keep = candidates.find((t) => t.seq === e.seq) ?? candidates[0];
          next.seq = keep?.seq ?? null;
          next.text = initialEditValue(patch.op, keep);
        } else if (patch.seq !== undefined && patch.seq !== e.seq) {
          next.text = initialEditValue(
            next.op,
            targets.find((t) => t.seq === patch.seq),
          );
        }
        return next;
      }),
    );
  const remove = (key: number) => setEdits(edits.filter((e) => e.key !== key));

  /** The edits as the action takes them, or the first one the browser can already tell is wrong. */
  const parse = (): { edits: ParsedEdit[] } | { problem: string } => {
    const parsed: ParsedEdit[] = [];
    for (const [index, draft] of edits.entries()) {
      if (draft.seq === null) return { problem: `Edit ${index + 1}: choose a step.` };
      try {
        parsed.push({ seq: draft.seq, op: draft.op, value: JSON.parse(draft.text) as unknown });
      } catch (error) {
        return {
          problem: `Edit ${index + 1}: the value is not valid JSON (${error instanceof Error ? error.message : String(error)}).`,
        };
      }
    }
    return { edits: parsed };
  };

  return { edits, add, update, remove, parse };
}
