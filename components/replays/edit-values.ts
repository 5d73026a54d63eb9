import type { EditOp, SessionEvent } from "@/lib/replay";

/** A base step an edit can target, with the values each edit op starts from. */
export interface EditTarget {
  seq: number;
  kind: SessionEvent["kind"];
  name: string;
  output: unknown;
  args: unknown;
  systemPrompt: unknown;
}

export const EDIT_OPS: { op: EditOp; label: string; kind: SessionEvent["kind"] }[] = [
  { op: "replace_tool_result", label: "Replace a tool result", kind: "tool_call" },
  { op: "replace_tool_args", label: "Replace tool arguments", kind: "tool_call" },
  { op: "replace_model_output", label: "Replace a model output", kind: "model_call" },
  { op: "replace_system_prompt", label: "Replace the system prompt", kind: "model_call" },
];

export function editTargets(events: readonly SessionEvent[]): EditTarget[] {
  return events
    .filter((e) => e.kind === "tool_call" || e.kind === "model_call")
    .map((e) => {
      const input = (e.input ?? {}) as { args?: unknown; messages?: { role: string; content: unknown }[] };
      return {
        seq: e.seq,
        kind: e.kind,
        name: e.name,
        output: e.output,
        args: e.kind === "tool_call" ? (input.args ?? null) : null,
        systemPrompt:
          e.kind === "model_call" ? (input.messages?.find((m) => m.role === "system")?.content ?? "") : null,
      };
    });
}

/** The JSON an edit's editor starts from: the recorded value it replaces. */
export function initialEditValue(op: EditOp, target: EditTarget | undefined): string {
  if (!target) return "null";
  const value =
    op === "replace_tool_args" ? target.args : op === "replace_system_prompt" ? target.systemPrompt : target.output;
  return JSON.stringify(value ?? null, null, 2);
}

export function targetsFor(op: EditOp, targets: readonly EditTarget[]): EditTarget[] {
  const kind = EDIT_OPS.find((o) => o.op === op)?.kind;
  return targets.filter((t) => t.kind === kind);
}
