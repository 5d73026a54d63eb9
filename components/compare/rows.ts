import type { AlignedPair } from "@/lib/replay";
import { isInputOnlyPair } from "@/components/counterfactual/labels";
import { previewText } from "@/lib/format";

/** One line of the comparison list: light enough to send 5,000 of them to the browser. */
export interface CompareRow {
  id: string;
  type: AlignedPair["type"];
  kind: string;
  name: string;
  baseSeq: number | null;
  branchSeq: number | null;
  source: string | null;
  preview: string;
  /** A model step whose input changed while its output was copied from the record ("input changed, output recorded"). */
  inputOnly?: true;
}

// Not the engine's isBaseOnly: this module reaches the browser, and importing a value from the engine would bundle it.
const baseOnly = (p: AlignedPair): p is Extract<AlignedPair, { type: "removed" | "unreached" }> =>
  p.type === "removed" || p.type === "unreached";

const TYPES = [
  "equal",
  "changed",
  "inserted",
  "removed",
  "unreached",
] as const satisfies readonly AlignedPair["type"][];

/**
 * The rows as sent to the browser: tuples over a table of the strings that
 * repeat (kinds, names, sources), and no ids (a pair's id is its seqs), so
 * 5,000 rows weigh about half as much in the page's payload.
 */
export interface PackedRows {
  strings: string[];
  /** [type, kind, name, baseSeq, branchSeq, source, preview, inputOnly?]: type an index into the pair types, kind/name/source into `strings` (-1 for no source); a trailing 1 marks `inputOnly`. */
  rows: (
    | [number, number, number, number | null, number | null, number, string]
    | [number, number, number, number | null, number | null, number, string, 1]
  )[];
}

export function packRows(rows: readonly CompareRow[]): PackedRows {
  const strings: string[] = [];
  const index = new Map<string, number>();
  const ref = (s: string) => {
    let n = index.get(s);
    if (n === undefined) index.set(s, (n = strings.push(s) - 1));
    return n;
  };
  return {
    strings,
    rows: rows.map((r) => {
      const row: [number, number, number, number | null, number | null, number, string] = [
        TYPES.indexOf(r.type),
        ref(r.kind),
        ref(r.name),
        r.baseSeq,
        r.branchSeq,
        r.source === null ? -1 : ref(r.source),
        r.preview,
      ];
      return r.inputOnly ? [...row, 1] : row;
    }),
  };
}

export function unpackRows(packed: PackedRows): CompareRow[] {
  const str = (n: number) => packed.strings[n] ?? "";
  return packed.rows.map(([t, kind, name, baseSeq, branchSeq, source, preview, inputOnly]) => {
    const type = TYPES[t] ?? "equal";
    return {
      id:
        type === "inserted"
          ? `i${branchSeq}`
          : type === "removed" || type === "unreached"
            ? `r${baseSeq}`
            : `p${baseSeq}-${branchSeq}`,
      type,
      kind: str(kind),
      name: str(name),
      baseSeq,
      branchSeq,
      source: source < 0 ? null : str(source),
      preview,
      ...(inputOnly === 1 ? { inputOnly: true as const } : {}),
    };
  });
}

export const COMPARE_FILTERS = ["all", "changes", "changed", "inserted", "removed", "unreached"] as const;
export type CompareFilter = (typeof COMPARE_FILTERS)[number];

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
    const e = baseOnly(p) ? p.base : p.branch;
    return {
      id: p.id,
      type: p.type,
      kind: e.kind,
      name: e.name,
      baseSeq: p.type === "inserted" ? null : p.base.seq,
      branchSeq: baseOnly(p) ? null : p.branch.seq,
      source: baseOnly(p) ? null : (p.branch.source ?? null),
      preview: previewOf(e),
      ...(p.type === "changed" && isInputOnlyPair(p) ? { inputOnly: true as const } : {}),
    };
  });
}

/** A difference the branch made: not an equal pair, nor a base step the branch never reached. */
export const isChange = (r: Pick<CompareRow, "type">) => r.type !== "equal" && r.type !== "unreached";

/** Words for a pair type, as the list and the detail show it. */
export const TYPE_LABEL: Record<CompareRow["type"], string> = {
  equal: "equal",
  changed: "changed",
  inserted: "inserted",
  removed: "removed",
  unreached: "not reached",
};

/**
 * The row j (+1) or k (−1) moves to: the next or previous change after the
 * selected row (or from the top / bottom when nothing is selected), among the
 * rows shown. Null when there is none in that direction.
 */
export function nextChange(rows: readonly CompareRow[], selectedId: string | null, direction: 1 | -1): string | null {
  const at = selectedId === null ? -1 : rows.findIndex((r) => r.id === selectedId);
  const start = at >= 0 ? at + direction : direction === 1 ? 0 : rows.length - 1;
  for (let k = start; k >= 0 && k < rows.length; k += direction) if (isChange(rows[k]!)) return rows[k]!.id;
  return null;
}

export function filterRows(rows: readonly CompareRow[], filter: CompareFilter): readonly CompareRow[] {
  if (filter === "all") return rows;
  if (filter === "changes") return rows.filter(isChange);
  return rows.filter((r) => r.type === filter);
}

export interface CompareState {
  pair: string | null;
  filter: CompareFilter;
}

/** The view's state from the URL: an unknown filter falls back to all, a malformed pair id to none. */
export function parseCompareState(params: {
  pair?: string | string[] | undefined;
  filter?: string | string[] | undefined;
}): CompareState {
  const pair = typeof params.pair === "string" && /^(p\d+-\d+|i\d+|r\d+)$/.test(params.pair) ? params.pair : null;
  const filter = (COMPARE_FILTERS as readonly string[]).includes(String(params.filter))
    ? (params.filter as CompareFilter)
    : "all";
  return { pair, filter };
}

export function compareSearch(state: CompareState): string {
  const q = new URLSearchParams();
  if (state.pair) q.set("pair", state.pair);
  if (state.filter !== "all") q.set("filter", state.filter);
  const s = q.toString();
  return s ? `?${s}` : "";
}

/** The fields a pair's diff compares, as pretty JSON. */
export function comparableJson(
  e: { name: string; input: unknown; output: unknown; error: unknown; status: string } | null,
): string {
  if (!e) return "";
  return JSON.stringify({ name: e.name, status: e.status, input: e.input, output: e.output, error: e.error }, null, 2);
}

export function finalText(value: unknown): string {
  if (value === undefined || value === null) return "";
  return typeof value === "string" ? value : JSON.stringify(value, null, 2);
}
