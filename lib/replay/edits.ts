import { z } from "zod";
import { Message, type SessionEvent } from "./events";

/** A counterfactual, kept as data so a replay can be re-run and shown: applied at the branch step aligned with base event `seq`. */
export const EditOp = z.enum([
  "replace_tool_result",
  "replace_tool_args",
  "replace_model_output",
  "replace_system_prompt",
]);
export type EditOp = z.infer<typeof EditOp>;

export const Edit = z.object({
  seq: z.number().int().nonnegative(),
  op: EditOp,
  value: z.unknown(),
});
export type Edit = z.infer<typeof Edit>;

export const Edits = z.array(Edit);
export type Edits = z.infer<typeof Edits>;

export interface EditIssue {
  index: number;
  path: (string | number)[];
  code: "unknown_seq" | "wrong_kind" | "duplicate" | "invalid_value" | "schema";
  message: string;
}

const KIND_OF: Record<EditOp, SessionEvent["kind"]> = {
  replace_tool_result: "tool_call",
  replace_tool_args: "tool_call",
  replace_model_output: "model_call",
  replace_system_prompt: "model_call",
};

/** Edits indexed by base seq, after validation. */
export interface EditPlan {
  toolResult: Map<number, unknown>;
  toolArgs: Map<number, unknown>;
  modelOutput: Map<number, Message>;
  systemPrompt: Map<number, unknown>;
  all: readonly Edit[];
}

/** Checks edits against the base run. Every problem is reported; none is applied partially. */
export function validateEdits(
  base: readonly SessionEvent[],
  editsInput: unknown,
): { ok: true; plan: EditPlan } | { ok: false; issues: EditIssue[] } {
  const parsed = Edits.safeParse(editsInput ?? []);
  if (!parsed.success) {
    return {
      ok: false,
      issues: parsed.error.issues.map((issue) => ({
        index: typeof issue.path[0] === "number" ? issue.path[0] : -1,
        path: issue.path.filter((p): p is string | number => typeof p !== "symbol"),
        code: "schema" as const,
        message: issue.message,
      })),
    };
  }
  if (parsed.data.length === 0)
    return {
      ok: true,
      plan: { toolResult: new Map(), toolArgs: new Map(), modelOutput: new Map(), systemPrompt: new Map(), all: [] },
    };
  const bySeq = new Map(base.map((e) => [e.seq, e]));
  const issues: EditIssue[] = [];
  const seen = new Set<string>();
  const plan: EditPlan = {
    toolResult: new Map(),
    toolArgs: new Map(),
    modelOutput: new Map(),
    systemPrompt: new Map(),
    all: parsed.data,
  };
  parsed.data.forEach((edit, index) => {
    const event = bySeq.get(edit.seq);
    if (!event) {
      issues.push({
        index,
        path: [index, "seq"],
        code: "unknown_seq",
        message: `Edit ${index} names seq ${edit.seq}, which the base run does not have.`,
      });
      return;
    }
    const wanted = KIND_OF[edit.op];
    if (event.kind !== wanted) {
      issues.push({
        index,
        path: [index, "op"],
        code: "wrong_kind",
        message: `Edit ${index} (${edit.op}) needs a ${wanted} event, but seq ${edit.seq} is a ${event.kind}.`,
      });
      return;
    }
    const key = `${edit.seq}:${edit.op}`;
    if (seen.has(key)) {
      issues.push({
        index,
        path: [index],
        code: "duplicate",
        message: `Edit ${index} repeats ${edit.op} at seq ${edit.seq}.`,
      });
      return;
    }
    seen.add(key);
    switch (edit.op) {
      case "replace_tool_result":
        plan.toolResult.set(edit.seq, edit.value);
        break;
      case "replace_tool_args":
        plan.toolArgs.set(edit.seq, edit.value);
        break;
      case "replace_system_prompt":
        plan.systemPrompt.set(edit.seq, edit.value);
        break;
      case "replace_model_output": {
        const message = Message.safeParse(edit.value);
        if (!message.success || message.data.role !== "assistant") {
          issues.push({
            index,
            path: [index, "value"],
            code: "invalid_value",
            message: `Edit ${index} (replace_model_output) needs an assistant message {role: "assistant", content, toolCalls?}.`,
          });
          return;
        }
        plan.modelOutput.set(edit.seq, message.data);
        break;
      }
    }
  });
  return issues.length > 0 ? { ok: false, issues } : { ok: true, plan };
}
