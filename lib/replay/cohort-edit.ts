import { z } from "zod";
import { canonicalJson } from "./canonical";
import type { Edit } from "./edits";
import type { SessionEvent } from "./events";

/**
 * One edit for every member of a cohort: it names a tool (and, optionally, argument values a call must have)
 * instead of a seq, since the seqs of different sessions name different steps. Each member gets a
 * `replace_tool_result` edit at each of its calls that match; a member with none is replayed without it.
 */
export const CohortEdit = z.strictObject({
  op: z.literal("replace_tool_result").default("replace_tool_result"),
  tool: z.string().trim().min(1, "Name the tool whose calls are edited.").max(200),
  /** Top-level argument values a call must have (each equal as JSON); every call of the tool when left out. */
  args: z.record(z.string(), z.unknown()).optional(),
  /** The result each matching call returns in the branch. */
  value: z.unknown().refine((v) => v !== undefined, "Give the result the calls return."),
});
export type CohortEdit = z.infer<typeof CohortEdit>;

/** How a cohort edit fits one member: the edits it becomes there, or why it does not apply. */
export type CohortEditFit = { applies: true; edits: Edit[] } | { applies: false; reason: string };

/** What fitting an edit reads of a step (the tool calls of the edited tool are enough). */
export type CohortEditStep = Pick<SessionEvent, "seq" | "kind" | "name" | "input">;

function argsOf(event: CohortEditStep): unknown {
  const input = event.input;
  return input && typeof input === "object" && "args" in input ? input.args : undefined;
}

function argsMatch(args: unknown, wanted: Record<string, unknown>): boolean {
  if (!args || typeof args !== "object" || Array.isArray(args)) return Object.keys(wanted).length === 0;
  const given = args as Record<string, unknown>;
  return Object.entries(wanted).every(
    ([key, value]) => key in given && canonicalJson(given[key]) === canonicalJson(value),
  );
}

/** The wanted arguments in words: `order_id = "4821"`. */
export function cohortEditArgsWords(args: Record<string, unknown> | undefined): string {
  return Object.entries(args ?? {})
    .map(([key, value]) => `${key} = ${canonicalJson(value) ?? String(value)}`)
    .join(", ");
}

/** The edits a cohort edit becomes on one member's recorded run, or the reason it does not apply there. */
export function fitCohortEdit(base: readonly CohortEditStep[], edit: CohortEdit): CohortEditFit {
  const calls = base.filter((e) => e.kind === "tool_call" && e.name === edit.tool);
  if (calls.length === 0) return { applies: false, reason: `No call of ${edit.tool}.` };
  const wanted = edit.args ?? {};
  const matching = calls.filter((e) => argsMatch(argsOf(e), wanted));
  if (matching.length === 0)
    return {
      applies: false,
      reason: `${calls.length === 1 ? "Its one call" : `None of its ${calls.length} calls`} of ${edit.tool} ${calls.length === 1 ? "does not have" : "has"} ${cohortEditArgsWords(wanted)}.`,
    };
  return {
    applies: true,
    edits: matching.map((e) => ({ seq: e.seq, op: "replace_tool_result" as const, value: edit.value })),
  };
}

/** Several cohort edits' edits on one session, or the step two of them set differently (by their indices). */
export type ComposedEdits = { ok: true; edits: Edit[] } | { ok: false; seq: number; first: number; second: number };

/**
 * Composes the edits several cohort edits become on one session (`lists[i]` is edit i's, empty where it does not
 * apply): one edit per step, in step order. Two that set the same step to the same result are one; two that set
 * it differently conflict.
 */
export function composeCohortEdits(lists: readonly (readonly Edit[])[]): ComposedEdits {
  const bySeq = new Map<number, { edit: Edit; from: number }>();
  for (const [from, list] of lists.entries())
    for (const edit of list) {
      const seen = bySeq.get(edit.seq);
      if (!seen) bySeq.set(edit.seq, { edit, from });
      else if (canonicalJson(seen.edit) !== canonicalJson(edit))
        return { ok: false, seq: edit.seq, first: seen.from, second: from };
    }
  return { ok: true, edits: [...bySeq.values()].map((v) => v.edit).sort((a, b) => a.seq - b.seq) };
}
