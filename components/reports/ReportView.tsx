import type { ReactNode } from "react";
import { Badge, StatusBadge } from "@/components/ui/Badge";
import { ScrollFrame } from "@/components/ui/ScrollFrame";
import { JsonBlock } from "@/components/ui/JsonBlock";
import { STEPS_BY_SOURCE_WORDS, reportFigures } from "@/lib/comparison-words";
import { formatDateTime } from "@/lib/format";
import { pairTitle, type ReportDocument } from "@/lib/reports/export";
import { MARKDOWN_SECTIONS, VALIDITY_DESCRIPTIONS } from "@/lib/reports/sections";
import type { SnapshotPair } from "@/lib/reports/snapshot";
import { Markdown } from "./Markdown";
import { StrengthBadge, ValidityBadge } from "./ValidityBadge";
import { DataTable } from "@/components/ui/DataTable";
import { AddedEvidence } from "./AddedEvidence";
import { Card } from "@/components/ui/Card";

function Section({ title, id, children, note }: { title: string; id: string; children: ReactNode; note?: ReactNode }) {
  return (
    <Card padding="lg" aria-labelledby={id}>
      <div className="mb-2 flex items-baseline justify-between gap-4">
        <h2 id={id} className="text-sm font-semibold tracking-wide text-slate-900 uppercase">
          {title}
        </h2>
        {note ? <div className="text-xs text-slate-500">{note}</div> : null}
      </div>
      {children}
    </Card>
  );
}

const PAIR_TONES = {
  equal: "neutral",
  changed: "warn",
  inserted: "info",
  removed: "bad",
  unreached: "neutral",
} as const;

function PairView({ pair, first }: { pair: SnapshotPair; first: boolean }) {
  return (
    <div className="rounded-md border border-slate-200" data-testid="report-pair" data-pair-id={pair.id}>
      <div className="flex flex-wrap items-center gap-2 border-b border-slate-200 bg-slate-50 px-3 py-2 text-sm">
        <Badge tone={PAIR_TONES[pair.type]}>{pair.type}</Badge>
        <span className="font-mono text-xs">{pairTitle(pair).replace(/^\w+: /, "")}</span>
        {!(pair.type === "removed" || pair.type === "unreached") && pair.branch.source ? (
          <Badge>source: {pair.branch.source}</Badge>
        ) : null}
        {first ? <Badge tone="info">first divergence</Badge> : null}
      </div>
      <div className="grid gap-3 p-3 md:grid-cols-2">
        <div>
          {pair.type === "inserted" ? (
            <p className="text-xs text-slate-500 italic">Not in the base run.</p>
          ) : (
            <JsonBlock
              label="Base"
              name={`Base of ${pairTitle(pair)}`}
              value={{ input: pair.base.input, output: pair.base.output, error: pair.base.error }}
            />
          )}
        </div>
        <div>
          {pair.type === "removed" || pair.type === "unreached" ? (
            <p className="text-xs text-slate-500 italic">
              {pair.type === "unreached" ? "The branch ended before this step." : "Not in the branch."}
            </p>
          ) : (
            <JsonBlock
              label="Branch"
              name={`Branch of ${pairTitle(pair)}`}
              value={{ input: pair.branch.input, output: pair.branch.output, error: pair.branch.error }}
            />
          )}
        </div>
      </div>
    </div>
  );
}

function Delta({ n }: { n: number }) {
  if (n === 0) return <span className="text-slate-500">0</span>;
  return <span className={n > 0 ? "text-rose-700" : "text-emerald-700"}>{n > 0 ? `+${n}` : n}</span>;
}

/**
 * A report, read-only, from its snapshot alone: the same view on the
 * dashboard and on a share page. It has no links and no actions.
 */
export function ReportView({
  report,
  links = false,
  removeEvidence,
}: {
  report: ReportDocument;
  /** Link the replays that added evidence names (the dashboard; a share page links nowhere). */
  links?: boolean;
  /** A control that takes an added item out (a draft on the dashboard). */
  removeEvidence?: (id: string) => ReactNode;
}) {
  const { snapshot: s, sections } = report;
  const m = s.comparison.metrics;
  const metricRows: [string, { base: number; branch: number; delta: number }][] = [
    ["Steps", m.steps],
    ["Tool calls", m.toolCalls],
    ["Errors", m.errors],
    ["Input tokens", m.inputTokens],
    ["Output tokens", m.outputTokens],
    ["Cost (USD)", m.costUsd],
    ["Latency (ms)", m.latencyMs],
  ];
  const firstId = s.comparison.firstDivergence?.id ?? null;
  return (
    // min-w-0: in the report page's grid, the view takes the column's width instead of widening it on a phone.
    <div className="min-w-0 space-y-4" data-testid="report-view">
      <dl className="grid grid-cols-2 gap-px overflow-hidden rounded-lg border border-slate-200 bg-slate-200 text-sm sm:grid-cols-3">
        {(
          [
            [
              "Session",
              <span key="s" className="break-words">
                {s.session.label}
              </span>,
            ],
            ["Agent", `${s.session.agentName} (${s.session.adapter})`],
            ["Replay", <StatusBadge key="r" status={s.replay.status} />],
            ["Comparability", s.replay.comparability?.replaceAll("_", " ") ?? "unknown"],
            ["Evidence", <StrengthBadge key="e" strength={s.evidence.strength} />],
            ["Validity", <ValidityBadge key="v" label={sections.validity} />],
          ] as [string, ReactNode][]
        ).map(([label, value]) => (
          <div key={label} className="min-w-0 bg-white px-3 py-2">
            <dt className="text-xs text-slate-500">{label}</dt>
            <dd className="mt-0.5 font-medium text-slate-900">{value}</dd>
          </div>
        ))}
      </dl>

      {MARKDOWN_SECTIONS.map(({ key, label }) => (
        <Section key={key} id={`section-${key}`} title={label}>
          <Markdown text={sections[key]} />
        </Section>
      ))}

      <Section
        id="section-policy"
        title="Policy"
        note={
          s.policy.version
            ? `${s.policy.version.policyName} v${s.policy.version.version}`
            : "ad-hoc policy (not a saved version)"
        }
      >
        <p className="mb-2 text-xs text-slate-600">
          The policy the replay ran under, as run. Hash{" "}
          <code className="font-mono break-all text-slate-900" data-testid="policy-hash">
            {s.policy.hash}
          </code>
        </p>
        <JsonBlock value={s.policy.document} name="Policy document" />
      </Section>

      <Section id="section-evidence" title="Evidence" note={`snapshot taken ${formatDateTime(s.takenAt)}`}>
        <div className="space-y-4 text-sm">
          <div className="flex flex-wrap items-center gap-2">
            <span className="text-slate-600">{STEPS_BY_SOURCE_WORDS}:</span>
            {Object.entries(s.evidence.stepsBySource).map(([k, v]) => (
              <Badge key={k}>
                {k} {v}
              </Badge>
            ))}
            <span className="text-slate-500">·</span>
            <span className="text-slate-600">
              {s.comparison.pairCount} aligned pairs: {s.comparison.counts.equal} equal, {s.comparison.counts.changed}{" "}
              changed, {s.comparison.counts.inserted} inserted, {s.comparison.counts.removed} removed
            </span>
          </div>
          <p data-testid="first-divergence">
            {s.comparison.firstDivergence ? (
              <>
                <span className="font-medium">First divergence</span> at pair {s.comparison.firstDivergence.pairIndex}:{" "}
                {s.comparison.firstDivergence.summary}
              </>
            ) : (
              "No divergence: every step of the branch equals the base run."
            )}
          </p>
          <ScrollFrame className="overflow-x-auto" label="Comparison metrics">
            <DataTable
              frame={false}
              dense
              className="max-w-2xl tabular-nums"
              columns={[
                "Metric",
                { label: "Base", align: "right" },
                { label: "Branch", align: "right" },
                { label: "Δ", align: "right" },
              ]}
            >
              {metricRows.map(([label, d]) => (
                <tr key={label}>
                  <td className="py-1 text-slate-700">{label}</td>
                  <td className="py-1 text-right">{d.base}</td>
                  <td className="py-1 text-right">{d.branch}</td>
                  <td className="py-1 text-right">
                    <Delta n={d.delta} />
                  </td>
                </tr>
              ))}
            </DataTable>
            {/* In the comparison page's words. */}
            <p className="mt-2 text-xs text-slate-600" data-testid="report-figures">
              {reportFigures(m).map(([words, value], i) => (
                <span key={words}>
                  {i > 0 ? " · " : ""}
                  {words} <span className="font-medium text-slate-900 tabular-nums">{value}</span>
                </span>
              ))}
            </p>
          </ScrollFrame>
          {s.comparison.finalOutputDiff ? (
            <div>
              <h3 className="mb-1 text-xs font-medium tracking-wide text-slate-500 uppercase">
                Final output (base → branch)
              </h3>
              <p className="rounded border border-slate-200 bg-slate-50 px-3 py-2 text-sm leading-relaxed whitespace-pre-wrap">
                {s.comparison.finalOutputDiff.map((p, i) =>
                  p.type === "equal" ? (
                    <span key={i}>{p.value}</span>
                  ) : p.type === "added" ? (
                    <ins key={i} className="bg-emerald-100 text-emerald-900 no-underline">
                      {p.value}
                    </ins>
                  ) : (
                    <del key={i} className="bg-rose-100 text-rose-900">
                      {p.value}
                    </del>
                  ),
                )}
              </p>
            </div>
          ) : null}
          {s.comparison.pairs.length > 0 ? (
            <div className="space-y-2">
              <h3 className="text-xs font-medium tracking-wide text-slate-500 uppercase">Pinned steps</h3>
              {s.comparison.pairs.map((p) => (
                <PairView key={p.id} pair={p} first={p.id === firstId} />
              ))}
            </div>
          ) : null}
          <div>
            <h3 className="mb-1 text-xs font-medium tracking-wide text-slate-500 uppercase">Fixtures</h3>
            {s.fixtures.length === 0 ? (
              <p className="text-slate-500">No analyst fixtures: no result in this branch was supplied by hand.</p>
            ) : (
              <ul className="space-y-2">
                {s.fixtures.map((f) => (
                  <li key={f.id} className="rounded-md border border-slate-200 p-3" data-testid="report-fixture">
                    <div className="flex flex-wrap items-center gap-2">
                      <span className="font-mono text-xs">{f.toolName}</span>
                      {f.stepIdx !== null ? <Badge>step {f.stepIdx}</Badge> : null}
                      <span className="text-slate-600">
                        by <span className="font-medium text-slate-900">{f.author}</span>, {formatDateTime(f.createdAt)}
                      </span>
                    </div>
                    {f.note ? <p className="mt-1 text-slate-700">“{f.note}”</p> : null}
                    <div className="mt-2">
                      <JsonBlock value={f.error ?? f.output} name={`Fixture for ${f.toolName}`} />
                    </div>
                  </li>
                ))}
              </ul>
            )}
          </div>
          <AddedEvidence items={report.addedEvidence ?? []} links={links} remove={removeEvidence} />
          <div>
            <h3 className="mb-1 text-xs font-medium tracking-wide text-slate-500 uppercase">Live calls</h3>
            {s.evidence.liveCalls.length === 0 ? (
              <p className="text-slate-500">No live calls: nothing ran against a live model or tool.</p>
            ) : (
              <ul className="space-y-1">
                {s.evidence.liveCalls.map((c) => (
                  <li key={`${c.step}-${c.logEntryId}`}>
                    step {c.step}: {c.kind} <span className="font-mono text-xs">{c.name}</span> —{" "}
                    {c.approval
                      ? `${c.approval.decision} by ${c.approval.by}${c.approval.note ? ` (“${c.approval.note}”)` : ""}`
                      : "no approval required"}
                  </li>
                ))}
              </ul>
            )}
          </div>
        </div>
      </Section>

      <Section id="section-validity" title="Validity">
        <p className="flex flex-wrap items-center gap-2 text-sm">
          <ValidityBadge label={sections.validity} />
          <span className="text-slate-700">{VALIDITY_DESCRIPTIONS[sections.validity]}</span>
        </p>
        {sections.validityNote.trim() ? <Markdown text={sections.validityNote} /> : null}
        <p className="mt-2 text-xs text-slate-500">
          Suggested from the replay: {s.suggestedValidity.label.replaceAll("_", " ")} —{" "}
          {s.suggestedValidity.reasons.join(" ")}
        </p>
        {s.staleRecordings?.used.length ? (
          <div className="mt-3 rounded-md border border-amber-300 bg-amber-50 p-3 text-sm" data-testid="report-stale">
            <p className="font-medium text-amber-900">
              The branch used {s.staleRecordings.used.length} recorded answer
              {s.staleRecordings.used.length === 1 ? "" : "s"} that the tool no longer gives
              {s.staleRecordings.checkedAt ? ` (stale check of ${formatDateTime(s.staleRecordings.checkedAt)})` : ""}:
            </p>
            <ul className="mt-1 list-disc pl-5 text-amber-900">
              {s.staleRecordings.used.map((u) => (
                <li key={u.seq}>
                  step {u.seq}: <span className="font-mono text-xs">{u.tool}</span> (base step {u.baseSeq}) differs at{" "}
                  {u.paths.join(", ") || "its answer"}
                </li>
              ))}
            </ul>
          </div>
        ) : null}
      </Section>

      <Section id="section-next" title="Next actions">
        <Markdown text={sections.nextActions} />
      </Section>
    </div>
  );
}
