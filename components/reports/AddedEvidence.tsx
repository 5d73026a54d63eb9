import Link from "next/link";
import type { ReactNode } from "react";
import { StaleRecordCells } from "@/components/investigations/StaleRecordCells";
import { Badge } from "@/components/ui/Badge";
import { DataTable, numberColumn } from "@/components/ui/DataTable";
import { formatDateTime } from "@/lib/format";
import { editWords, evidenceTitle, type EvidenceSnapshot, type ReportEvidenceItem } from "@/lib/reports/evidence";

const KIND_LABEL = {
  blame: "blame search",
  minimize: "minimal counterfactual",
  stale: "stale recordings",
  coverage: "coverage",
} as const;

/** A replay named in an item: a link on the dashboard, its id on a share page (which links nowhere). */
function ReplayRef({ id, links, children }: { id: string; links: boolean; children: ReactNode }) {
  return links ? (
    <Link href={`/replays/${id}/compare`} className="font-medium text-indigo-700 hover:underline">
      {children}
    </Link>
  ) : (
    <span>
      {children} (replay <code className="font-mono text-xs">{id}</code>)
    </span>
  );
}

function Body({ s, links }: { s: EvidenceSnapshot; links: boolean }) {
  switch (s.kind) {
    case "blame":
      return (
        <>
          <p>
            {s.decided ? (
              <>
                With the model re-run live from model step {s.decided.modelStep} (base step {s.decided.baseSeq}
                {s.decided.stepName ? `, ${s.decided.stepName}` : ""}) the run passed; from any later step it failed as
                recorded.
              </>
            ) : (
              "Re-running the model live from its first step did not make the run pass."
            )}{" "}
            Checks: {s.checks.join(", ")}; {s.trials} trial{s.trials === 1 ? "" : "s"} per probe, a fix at{" "}
            {Math.round(s.share * 100)}% passing.
          </p>
          <DataTable
            frame={false}
            dense
            label="Blame probes"
            columns={["Model live from", numberColumn("Passed"), numberColumn("Fix?")]}
          >
            {s.probes.map((p, k) => (
              <tr key={k} data-testid="evidence-probe">
                <td className="py-1 pr-2">
                  model step {p.modelStep} · base step {p.baseSeq}
                  {s.decided?.modelStep === p.modelStep ? " (deciding step)" : ""}
                </td>
                <td className="py-1 pr-2 text-right tabular-nums">
                  {p.passes} of {p.trials}
                </td>
                <td className="py-1 pr-2 text-right">{p.fixes ? "fixes" : "fails"}</td>
              </tr>
            ))}
          </DataTable>
          {s.branchReplayId ? (
            <p>
              <ReplayRef id={s.branchReplayId} links={links}>
                The branch forked at the deciding step
              </ReplayRef>
            </p>
          ) : null}
        </>
      );
    case "minimize":
      return (
        <>
          {s.minimal ? (
            <>
              <p>
                Removing any one of these edits breaks the fix (checks: {s.checks.join(", ")}; {s.probes.length}{" "}
                probes):
              </p>
              <ul className="list-disc pl-5" data-testid="evidence-minimal-edits">
                {s.minimal.map((e) => (
                  <li key={`${e.seq}-${e.op}`}>{editWords(e)}</li>
                ))}
              </ul>
            </>
          ) : (
            <p>The branch&apos;s {s.edits.length} edits together did not pass the checks, so nothing was minimised.</p>
          )}
          {s.savedReplayId ? (
            <p>
              <ReplayRef id={s.savedReplayId} links={links}>
                The saved replay with only these edits
              </ReplayRef>
            </p>
          ) : null}
        </>
      );
    case "stale":
      return (
        <>
          <p>
            {s.counts.stale} stale, {s.counts.fresh} still the same
            {s.counts.unchecked > 0 ? `, ${s.counts.unchecked} not reached` : ""}.
            {s.volatile.length > 0 ? ` Ignored paths: ${s.volatile.join(", ")}.` : ""}
            {s.skipped.length > 0 ? ` Not called: ${s.skipped.map((k) => k.tool).join(", ")}.` : ""}
          </p>
          <DataTable frame={false} dense label="Recordings checked" columns={["Step", "Tool", "Today", "Differs at"]}>
            {s.records.map((r) => (
              <tr key={r.seq} data-testid="evidence-stale-row">
                <StaleRecordCells record={r} cell="py-1 pr-2" />
                <td className="py-1 pr-2 font-mono text-xs">{r.paths.join(", ") || "—"}</td>
              </tr>
            ))}
          </DataTable>
        </>
      );
    case "coverage":
      return (
        <DataTable
          frame={false}
          dense
          label="Coverage by tool"
          columns={[
            "Tool",
            numberColumn("Calls"),
            numberColumn("Recorded"),
            numberColumn("Other sources"),
            numberColumn("Missed"),
            numberColumn("Unused recordings"),
          ]}
        >
          {s.tools.map((t) => {
            const recorded = t.bySource.recorded ?? 0;
            const other = Object.entries(t.bySource)
              .filter(([k, v]) => k !== "recorded" && v > 0)
              .map(([k, v]) => `${k.replaceAll("_", " ")} ${v}`)
              .join(", ");
            return (
              <tr key={t.tool} data-testid="evidence-coverage-row">
                <td className="py-1 pr-2 font-mono text-xs">{t.tool}</td>
                <td className="py-1 pr-2 text-right tabular-nums">{t.calls}</td>
                <td className="py-1 pr-2 text-right tabular-nums">{recorded}</td>
                <td className="py-1 pr-2 text-right">{other || "—"}</td>
                <td className="py-1 pr-2 text-right tabular-nums">
                  {t.misses.reduce((n, m) => n + m.count, 0)}
                  {t.misses.length > 0 ? (
                    <span className="block text-xs text-slate-600">
                      {t.misses.map((m) => m.reason.replaceAll("_", " ")).join(", ")}
                    </span>
                  ) : null}
                </td>
                <td className="py-1 pr-2 text-right tabular-nums">{t.unused}</td>
              </tr>
            );
          })}
        </DataTable>
      );
  }
}

/**
 * Evidence added from investigations and coverage: each item frozen when it was added, with what it found, the
 * policy it ran under and that policy's hash, and who added it. `links` is off on a share page.
 */
export function AddedEvidence({
  items,
  links,
  remove,
}: {
  items: readonly ReportEvidenceItem[];
  links: boolean;
  /** A control to take an item out (drafts on the dashboard). */
  remove?: (id: string) => ReactNode;
}) {
  if (items.length === 0) return null;
  return (
    <div className="space-y-3" data-testid="added-evidence">
      <h3 className="text-xs font-medium tracking-wide text-slate-500 uppercase">Investigations and coverage</h3>
      {items.map((item) => {
        const s = item.snapshot;
        return (
          <article
            key={item.id}
            className="space-y-2 rounded-md border border-slate-200 p-3 text-sm"
            data-testid="evidence-item"
            data-kind={item.kind}
            aria-label={evidenceTitle(s)}
          >
            <div className="flex flex-wrap items-center gap-2">
              <Badge tone="info">{KIND_LABEL[item.kind]}</Badge>
              <h4 className="font-medium text-slate-900">{evidenceTitle(s)}</h4>
              {remove ? <span className="ml-auto">{remove(item.id)}</span> : null}
            </div>
            <p className="text-xs text-slate-600">
              Added by <span className="font-medium text-slate-900">{item.addedBy ?? "unknown"}</span>,{" "}
              {formatDateTime(item.addedAt)} · session {s.session.label}
              {s.at ? ` · finished ${formatDateTime(s.at)}` : ""}
            </p>
            <p className="text-xs text-slate-600">
              {s.policy ? (
                <>
                  Policy {s.policy.version ? `${s.policy.version.policyName} v${s.policy.version.version}` : "as run"},
                  hash{" "}
                  <code className="font-mono break-all text-slate-900" data-testid="evidence-policy-hash">
                    {s.policy.hash}
                  </code>
                </>
              ) : (
                "No policy: a stale check calls the tools themselves with the recorded arguments."
              )}
            </p>
            <Body s={s} links={links} />
          </article>
        );
      })}
    </div>
  );
}
