import { deepEqual, isBaseOnly, type AlignedPair } from "@/lib/replay";
import { previewText } from "@/lib/format";
import type { CompareRow } from "./compare-rows";

/**
 * The comparison's pairs as the list's rows: what a row shows (kinds, names,
 * sources, a preview), never the events themselves. Server side: the browser
 * gets the rows a window at a time.
 */

/** A compared pair that differs only in the model's input: same model output, copied from the record. */
export function isInputOnlyPair(pair: {
  type: string;
  base?: { kind: string; output: unknown };
  branch?: { kind: string; output: unknown; source?: string };
}): boolean {
  return (
    pair.type === "changed" &&
    pair.branch?.kind === "model_call" &&
    pair.branch.source === "recorded" &&
    pair.base !== undefined &&
    deepEqual(pair.base.output, pair.branch.output)
  );
}

function previewOf(e: {
  kind: string;
  input: unknown;
  output: unknown;
  error: { type: string; message: string } | null;
}): string {
  if (e.error) return `${e.error.type}: ${e.error.message}`;
  if (e.kind === "tool_call")
    return `${previewText((e.input as { args?: unknown } | null)?.args, 40)} ⇒ ${previewText(e.output, 50)}`;
  if (e.kind === "model_call") {
    const out = e.output as { content?: unknown; toolCalls?: { name: string }[] } | null;
    const calls = out?.toolCalls?.map((c) => c.name).join(", ");
    return calls ? `→ ${calls}` : previewText(out?.content, 90);
  }
  return previewText(e.output ?? e.input, 90);
}

export function toRows(pairs: readonly AlignedPair[]): CompareRow[] {
  return pairs.map((p) => {
    const e = isBaseOnly(p) ? p.base : p.branch;
    return {
      id: p.id,
      type: p.type,
      kind: e.kind,
      name: e.name,
      baseSeq: p.type === "inserted" ? null : p.base.seq,
      branchSeq: isBaseOnly(p) ? null : p.branch.seq,
      source: isBaseOnly(p) ? null : (p.branch.source ?? null),
      preview: previewOf(e),
      ...(p.type === "changed" && isInputOnlyPair(p) ? { inputOnly: true as const } : {}),
    };
  });
}
