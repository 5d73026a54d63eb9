import { STEPS_BY_SOURCE_WORDS, reportFigures } from "@/lib/comparison-words";
import type { AlignedPair } from "@/lib/replay";
import { MARKDOWN_SECTIONS, VALIDITY_DESCRIPTIONS, type ReportSections } from "./sections";
import { editWords, evidenceTitle, type ReportEvidenceItem } from "./evidence";
import type { ReportSnapshot } from "./snapshot";

/** A report as the views and exports see it: the analyst's sections and the frozen snapshot. */
export interface ReportDocument {
  id: string;
  title: string;
  createdAt: string;
  createdBy: string | null;
  /** `draft` while it may be edited or deleted; `published` once frozen (only then shareable). */
  status: "draft" | "published";
  publishedAt: string | null;
  updatedAt: string;
  sections: ReportSections;
  snapshot: ReportSnapshot;
  /** Investigations and coverage added as evidence, oldest first, each frozen with its policy hash and author. */
  addedEvidence: ReportEvidenceItem[];
}

export const EXPORT_FORMATS = ["md", "json"] as const;
export type ExportFormat = (typeof EXPORT_FORMATS)[number];

/** A file-name-safe slug of the title. */
export function exportFileName(report: Pick<ReportDocument, "title" | "id">, format: ExportFormat): string {
  const slug =
    report.title
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, "-")
      .replace(/^-+|-+$/g, "")
      .slice(0, 60) || "report";
  return `${slug}-${report.id}.${format}`;
}

/** The JSON export: every section, the snapshot with the full policy document and its hash. */
export function reportToJson(report: ReportDocument): string {
  const { snapshot } = report;
  return JSON.stringify(
    {
      format: "branchpoint.report/v1",
      report: {
        id: report.id,
        title: report.title,
        createdAt: report.createdAt,
        createdBy: report.createdBy,
        status: report.status,
        publishedAt: report.publishedAt,
        session: snapshot.session,
        replay: snapshot.replay,
        policy: snapshot.policy,
        sections: report.sections,
        evidence: snapshot.evidence,
        comparison: snapshot.comparison,
        fixtures: snapshot.fixtures,
        approvals: snapshot.approvals,
        suggestedValidity: snapshot.suggestedValidity,
        staleRecordings: snapshot.staleRecordings ?? null,
        addedEvidence: report.addedEvidence,
      },
    },
    null,
    2,
  );
}

/** A fenced code block whose fence is longer than any backtick run inside. */
export function fence(text: string, lang = ""): string {
  const longest = Math.max(2, ...[...text.matchAll(/`+/g)].map((m) => m[0].length));
  const f = "`".repeat(longest + 1);
  return `${f}${lang}\n${text}\n${f}`;
}

/** Escapes a value for a Markdown table cell. */
export function cell(value: unknown): string {
  return String(value).replaceAll("\\", "\\\\").replaceAll("|", "\\|").replaceAll(/\r?\n/g, " ");
}

const signed = (n: number) => (n > 0 ? `+${n}` : String(n));

export function pairTitle(p: AlignedPair): string {
  const e = p.type === "removed" || p.type === "unreached" ? p.base : p.branch;
  const where =
    p.type === "removed" || p.type === "unreached"
      ? `base #${p.base.seq}`
      : p.type === "inserted"
        ? `branch #${p.branch.seq}`
        : `base #${p.base.seq} ↔ branch #${p.branch.seq}`;
  return `${p.type}: ${e.kind} ${e.name} (${where})`;
}

function pairMarkdown(p: AlignedPair): string {
  const out = [`#### ${pairTitle(p)}`];
  if (p.type !== "inserted")
    out.push(
      "Base:",
      fence(JSON.stringify({ input: p.base.input, output: p.base.output, error: p.base.error }, null, 2), "json"),
    );
  if (!(p.type === "removed" || p.type === "unreached")) {
    const source = p.branch.source ? ` (source: ${p.branch.source})` : "";
    out.push(
      `Branch${source}:`,
      fence(JSON.stringify({ input: p.branch.input, output: p.branch.output, error: p.branch.error }, null, 2), "json"),
    );
  }
  return out.join("\n\n");
}

/** The Markdown export, sections in the report's own order (Finding … Next actions). The analyst's sections are Markdown already and go in as written. */
export function reportToMarkdown(report: ReportDocument): string {
  const { snapshot: s, sections } = report;
  const out: string[] = [];
  out.push(`# ${report.title.replaceAll(/\r?\n/g, " ")}`);
  out.push(
    [
      `- Session: ${s.session.label} (${s.session.agentName}, ${s.session.adapter})`,
      `- Replay: ${s.replay.id} — ${s.replay.status}, comparability ${s.replay.comparability ?? "unknown"}`,
      `- Created: ${report.createdAt}${report.createdBy ? ` by ${report.createdBy}` : ""}`,
    ].join("\n"),
  );
  for (const { key, label } of MARKDOWN_SECTIONS) {
    out.push(`## ${label}`, sections[key].trim() || "_Not filled in._");
  }

  out.push("## Policy");
  const version = s.policy.version
    ? `${s.policy.version.policyName} v${s.policy.version.version}`
    : "ad-hoc policy (not saved as a version)";
  out.push(`- Policy: ${version}\n- Hash: \`${s.policy.hash}\``);
  out.push(fence(JSON.stringify(s.policy.document, null, 2), "json"));

  out.push("## Evidence");
  out.push(
    `- Evidence strength: **${s.evidence.strength}**\n- Comparability: **${s.replay.comparability ?? "unknown"}**`,
  );
  const sources = Object.entries(s.evidence.stepsBySource);
  if (sources.length > 0)
    out.push(
      [
        `| ${STEPS_BY_SOURCE_WORDS} | steps |`,
        "| --- | --- |",
        ...sources.map(([k, v]) => `| ${cell(k)} | ${v} |`),
      ].join("\n"),
    );
  out.push(
    s.comparison.firstDivergence
      ? `First divergence at pair ${s.comparison.firstDivergence.pairIndex}: ${s.comparison.firstDivergence.summary}`
      : "No divergence: every step of the branch equals the base run.",
  );
  const m = s.comparison.metrics;
  const rows: [string, { base: number; branch: number; delta: number }][] = [
    ["steps", m.steps],
    ["tool calls", m.toolCalls],
    ["errors", m.errors],
    ["input tokens", m.inputTokens],
    ["output tokens", m.outputTokens],
    ["cost (USD)", m.costUsd],
    ["latency (ms)", m.latencyMs],
  ];
  out.push(
    [
      "| metric | base | branch | delta |",
      "| --- | --- | --- | --- |",
      ...rows.map(([k, d]) => `| ${k} | ${d.base} | ${d.branch} | ${signed(d.delta)} |`),
      // In the comparison page's words, lower case like the rows above.
      ...reportFigures(m).map(
        ([words, value]) => `| ${words.charAt(0).toLowerCase()}${words.slice(1)} | | | ${value} |`,
      ),
    ].join("\n"),
  );
  if (s.comparison.finalOutputDiff) {
    const diff = s.comparison.finalOutputDiff
      .map((p) => (p.type === "added" ? `{+${p.value}+}` : p.type === "removed" ? `[-${p.value}-]` : p.value))
      .join("");
    out.push("### Final output (base → branch)", fence(diff, "diff"));
  }
  if (s.comparison.pairs.length > 0) {
    out.push("### Pinned steps");
    for (const p of s.comparison.pairs) out.push(pairMarkdown(p));
  }
  out.push("### Fixtures");
  out.push(
    s.fixtures.length === 0
      ? "No analyst fixtures."
      : [
          "| step | tool | author | note | at |",
          "| --- | --- | --- | --- | --- |",
          ...s.fixtures.map(
            (f) =>
              `| ${f.stepIdx ?? ""} | ${cell(f.toolName)} | ${cell(f.author)} | ${cell(f.note)} | ${f.createdAt} |`,
          ),
        ].join("\n"),
  );
  out.push("### Live calls");
  out.push(
    s.evidence.liveCalls.length === 0
      ? "No live calls."
      : [
          "| step | kind | name | approval |",
          "| --- | --- | --- | --- |",
          ...s.evidence.liveCalls.map(
            (c) =>
              `| ${c.step} | ${c.kind} | ${cell(c.name)} | ${c.approval ? cell(`${c.approval.decision} by ${c.approval.by}${c.approval.note ? ` — ${c.approval.note}` : ""}`) : "none"} |`,
          ),
        ].join("\n"),
  );

  if (report.addedEvidence.length > 0) {
    out.push("### Investigations and coverage");
    for (const item of report.addedEvidence) out.push(evidenceMarkdown(item));
  }

  out.push("## Validity");
  out.push(`**${sections.validity}** — ${VALIDITY_DESCRIPTIONS[sections.validity]}`);
  if (sections.validityNote.trim()) out.push(sections.validityNote.trim());
  out.push(`Suggested from the replay: ${s.suggestedValidity.label} (${s.suggestedValidity.reasons.join(" ")})`);
  if (s.staleRecordings?.used.length)
    out.push(
      [
        "Stale recordings used by the branch:",
        ...s.staleRecordings.used.map(
          (u) =>
            `- step ${u.seq}: ${u.tool} (base step ${u.baseSeq}) differs today at ${u.paths.join(", ") || "its answer"}`,
        ),
      ].join("\n"),
    );

  out.push("## Next actions", sections.nextActions.trim() || "_Not filled in._");
  return `${out.join("\n\n")}\n`;
}

/** One added item: what it found, its policy hash and who added it. */
function evidenceMarkdown(item: ReportEvidenceItem): string {
  const s = item.snapshot;
  const out = [`#### ${evidenceTitle(s)}`];
  out.push(
    [
      `- Added by ${item.addedBy ?? "unknown"} at ${item.addedAt}`,
      `- Session: ${s.session.label}`,
      s.policy ? `- Policy hash: \`${s.policy.hash}\`` : "- Policy: none (the stale check calls the tools themselves)",
    ].join("\n"),
  );
  switch (s.kind) {
    case "blame":
      out.push(
        [
          "| model live from | passed | fix? |",
          "| --- | --- | --- |",
          ...s.probes.map(
            (p) =>
              `| model step ${p.modelStep} (base step ${p.baseSeq}) | ${p.passes} of ${p.trials} | ${p.fixes ? "fixes" : "fails"} |`,
          ),
        ].join("\n"),
      );
      if (s.branchReplayId) out.push(`Branch forked at the deciding step: replay ${s.branchReplayId}`);
      break;
    case "minimize":
      out.push(
        s.minimal
          ? ["Minimal edits:", ...s.minimal.map((e) => `- ${editWords(e)}`)].join("\n")
          : "The edits together did not fix the run.",
      );
      if (s.savedReplayId) out.push(`Saved replay: ${s.savedReplayId}`);
      break;
    case "stale":
      out.push(
        [
          "| step | tool | today | differs at |",
          "| --- | --- | --- | --- |",
          ...s.records.map((r) => `| ${r.seq} | ${cell(r.tool)} | ${r.state} | ${cell(r.paths.join(", "))} |`),
        ].join("\n"),
      );
      break;
    case "coverage":
      out.push(
        [
          "| tool | calls | recorded | missed | unused recordings |",
          "| --- | --- | --- | --- | --- |",
          ...s.tools.map(
            (t) =>
              `| ${cell(t.tool)} | ${t.calls} | ${t.bySource.recorded ?? 0} | ${t.misses.reduce((n, m) => n + m.count, 0)} | ${t.unused} |`,
          ),
        ].join("\n"),
      );
      break;
  }
  return out.join("\n\n");
}
