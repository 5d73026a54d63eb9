"use client";

import { useQuery } from "@tanstack/react-query";
import { readComparePair, REPLAY_SIDES, sourceKey, type CompareSource, type SideLabels } from "./compare-source";
import { Badge } from "@/components/ui/Badge";
import { JsonBlock } from "@/components/ui/JsonBlock";
import { JsonDiff } from "@/components/ui/monaco";
import { Card } from "@/components/ui/Card";
import { comparableJson, type CompareRow } from "@/lib/session-view/compare-rows";
import { PairTypeBadge } from "./PairTypeBadge";

/** The selected pair: both sides, changed pairs as a diff that opens at the first difference. */
export function PairDetail({
  source,
  labels = REPLAY_SIDES,
  row,
  isFirstDivergence,
}: {
  source: CompareSource;
  labels?: SideLabels;
  row: CompareRow | null;
  isFirstDivergence: boolean;
}) {
  const { data, error, isPending } = useQuery({
    queryKey: ["pair", ...sourceKey(source), row?.id],
    enabled: row !== null,
    queryFn: async () => {
      const result = await readComparePair(source, row!.id);
      if (!result.ok) throw new Error(result.error.message);
      return result.data;
    },
    staleTime: Infinity,
  });
  if (!row) {
    return (
      <div className="flex min-h-40 items-center justify-center rounded-lg border border-dashed border-slate-300 bg-white p-6 text-sm text-slate-500">
        Select a pair to see both sides; changed pairs open as a diff.
      </div>
    );
  }
  return (
    <Card
      className="min-w-0"

      aria-label="Selected pair"
      data-testid="pair-detail"
    >
      <h3 className="mb-2 flex flex-wrap items-center gap-2 text-sm font-semibold text-slate-900">
        <PairTypeBadge type={row.type} />
        <span className="font-mono">
          {row.kind} {row.name}
        </span>
        <span className="font-normal text-slate-500">
          {labels.base} {row.baseSeq ?? "—"} · {labels.branch} {row.branchSeq ?? "—"}
        </span>
        {isFirstDivergence ? <Badge tone="bad">first divergence</Badge> : null}
      </h3>
      {error ? (
        <p role="alert" className="text-sm text-rose-700">
          {error.message}
        </p>
      ) : null}
      {isPending || !data ? (
        <p className="text-sm text-slate-500">Loading…</p>
      ) : row.type === "changed" ? (
        <>
          {data.changedPaths.length > 0 ? (
            // Wraps: the paths are one unbroken run of chips otherwise, and ran past the panel's edge.
            <div className="mb-2 flex flex-wrap items-baseline gap-1 text-xs" data-testid="changed-paths">
              <span className="text-slate-500">Changed:</span>
              {data.changedPaths.map((p) => (
                <code key={p} className="rounded bg-amber-100 px-1 py-0.5 break-all text-amber-900">
                  {p}
                </code>
              ))}
            </div>
          ) : null}
          {/* Unchanged stretches are folded and the view opens at the first difference. */}
          <JsonDiff
            key={row.id}
            original={comparableJson(data.base)}
            modified={comparableJson(data.branch)}
            height={460}
            focusChanges
            sides={{ original: capitalized(labels.base), modified: capitalized(labels.branch) }}
          />
        </>
      ) : row.type === "equal" ? (
        <JsonBlock label="Both sides (equal)" value={JSON.parse(comparableJson(data.branch)) as unknown} />
      ) : row.type === "unreached" ? (
        <JsonBlock
          label="Base step the branch never reached (it ended first); counted in no metric"
          value={JSON.parse(comparableJson(data.base)) as unknown}
        />
      ) : (
        <JsonBlock
          label={
            source.kind === "replay"
              ? row.type === "inserted"
                ? "Only in the branch"
                : "Only in the base run"
              : `Only in ${row.type === "inserted" ? labels.branch : labels.base}`
          }
          value={JSON.parse(comparableJson(data.branch ?? data.base)) as unknown}
        />
      )}
    </Card>
  );
}

const capitalized = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);
