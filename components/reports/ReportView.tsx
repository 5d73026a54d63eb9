import type { ReactNode } from "react";
import { Badge, StatusBadge } from "@/components/ui/Badge";
import { JsonBlock } from "@/components/ui/JsonBlock";
import { STEPS_BY_SOURCE_WORDS } from "@/lib/comparison-words";
import { formatDateTime } from "@/lib/format";
import { pairTitle, type ReportDocument } from "@/lib/reports/export";
import { MARKDOWN_SECTIONS, VALIDITY_DESCRIPTIONS } from "@/lib/reports/sections";
import type { SnapshotPair } from "@/lib/reports/snapshot";
import { Markdown } from "./Markdown";
import { StrengthBadge, ValidityBadge } from "./ValidityBadge";
import { AddedEvidence } from "./AddedEvidence";
import { ComparisonMetrics, FinalOutputDiff, FixturesList, LiveCallsList, StaleRecordingsNote } from "./ReportEvidence";
import { Card } from "@/components/ui/Card";
import { changedPaths } from "@/lib/replay";
import { comparableJson } from "@/lib/session-view/compare-rows";
import { PinnedPairDiff } from "./PinnedPairDiff";

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
      {pair.type === "changed" ? (
        <div className="p-3">
          <PinnedPairDiff
            original={comparableJson(pair.base)}
            modified={comparableJson(pair.branch)}
            changedPaths={changedPaths(pair.base, pair.branch)}
            title={pairTitle(pair)}
          />
        </div>
      ) : pair.type === "equal" ? (
        <div className="p-3">
          <JsonBlock
            label="Both sides (equal)"
            name={`Both sides of ${pairTitle(pair)}`}
            value={{ input: pair.branch.input, output: pair.branch.output, error: pair.branch.error }}
          />
        </div>
      ) : (
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
      )}
    </div>
  );
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
          <ComparisonMetrics metrics={m} />
          {s.comparison.finalOutputDiff ? <FinalOutputDiff parts={s.comparison.finalOutputDiff} /> : null}
          {s.comparison.pairs.length > 0 ? (
            <div className="space-y-2">
              <h3 className="text-xs font-medium tracking-wide text-slate-500 uppercase">Pinned steps</h3>
              {s.comparison.pairs.map((p) => (
                <PairView key={p.id} pair={p} first={p.id === firstId} />
              ))}
            </div>
          ) : null}
          <FixturesList fixtures={s.fixtures} />
          <AddedEvidence items={report.addedEvidence ?? []} links={links} remove={removeEvidence} />
          <LiveCallsList calls={s.evidence.liveCalls} />
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
        {s.staleRecordings?.used.length ? <StaleRecordingsNote stale={s.staleRecordings} /> : null}
      </Section>

      <Section id="section-next" title="Next actions">
        <Markdown text={sections.nextActions} />
      </Section>
    </div>
  );
}
