import { describe, expect, it } from "vitest";
import { cell, exportFileName, fence, reportToJson, reportToMarkdown, type ReportDocument } from "./export";
import { ReportSections } from "./sections";
import { buildReportSnapshot } from "./snapshot";
import { demoSource, FIXTURE_POLICY, refundFixture } from "./testing";

async function demoReport(): Promise<ReportDocument> {
  const source = await demoSource({ policy: FIXTURE_POLICY, log: [refundFixture("refund pending")] });
  const snapshot = buildReportSnapshot(source, ["p1-1"], new Date("2026-02-01T12:00:00Z"));
  return {
    id: "rep_1",
    title: "Refund | pending after timeout",
    createdAt: "2026-02-01T12:00:00.000Z",
    createdBy: "dana",
    status: "published",
    publishedAt: "2026-02-01T12:05:00.000Z",
    updatedAt: "2026-02-01T12:05:00.000Z",
    sections: ReportSections.parse({
      finding: "The agent **confirms** a refund that is only pending.",
      scope: "Order 4821",
      validity: "sensitive_to_fixture",
      nextActions: "- check refund status before replying",
    }),
    snapshot,
    addedEvidence: [],
  };
}

describe("reportToMarkdown", () => {
  it("has every report section in order, with the policy document and hash", async () => {
    const report = await demoReport();
    const md = reportToMarkdown(report);
    const headings = [...md.matchAll(/^## (.+)$/gm)].map((m) => m[1]);
    expect(headings).toEqual([
      "Finding",
      "Scope",
      "Observed baseline",
      "Hypothesis",
      "Policy",
      "Evidence",
      "Validity",
      "Next actions",
    ]);
    expect(md).toContain("# Refund | pending after timeout");
    expect(md).toContain(report.snapshot.policy.hash);
    expect(md).toContain('"refund_payment": {');
    expect(md).toContain("The agent **confirms** a refund that is only pending.");
    expect(md).toContain("_Not filled in._");
    expect(md).toContain("Evidence strength: **controlled**");
    expect(md).toContain("| 6 | refund_payment | dana | refund service returned a timeout in prod |");
    expect(md).toContain("**sensitive_to_fixture**");
    expect(md).toContain("#### equal: tool_call lookup_order (base #1 ↔ branch #1)");
    expect(md).toContain("#### changed: tool_call refund_payment (base #6 ↔ branch #6)");
    expect(md).toContain("First divergence at pair 6: tool_call refund_payment: result changed");
  });

  it("fences code so that backticks inside cannot close it, and escapes table cells", () => {
    expect(fence("a ``` b", "json")).toBe("````json\na ``` b\n````");
    expect(cell("a|b\nc")).toBe("a\\|b c");
  });

  it("names the comparison's figures in the comparison page's words", async () => {
    const md = reportToMarkdown(await demoReport());
    expect(md).toContain(
      [
        "| tool calls added, removed or swapped | | | 0 |",
        "| steps answered by a fixture | | | 1 |",
        "| tool arguments changed | | | no |",
      ].join("\n"),
    );
    expect(md).not.toContain("tool sequence distance");
  });

  it("says its counts of steps by source cover the model and tool steps", async () => {
    const md = reportToMarkdown(await demoReport());
    expect(md).toMatch(/\n\| Model and tool steps by source \| steps \|\n\| --- \| --- \|\n\| recorded \| \d+ \|/);
  });
});

describe("reportToJson", () => {
  it("includes the full policy document and hash, the sections and the evidence", async () => {
    const report = await demoReport();
    const parsed = JSON.parse(reportToJson(report)) as {
      format: string;
      report: Record<string, unknown> & { policy: { document: unknown; hash: string } };
    };
    expect(parsed.format).toBe("branchpoint.report/v1");
    expect(parsed.report.policy.document).toEqual(FIXTURE_POLICY);
    expect(parsed.report.policy.hash).toMatch(/^[0-9a-f]{64}$/);
    expect(parsed.report.sections).toEqual(report.sections);
    expect(parsed.report.fixtures).toEqual(report.snapshot.fixtures);
  });
});

it("exportFileName is a safe slug", () => {
  expect(exportFileName({ id: "r1", title: "Refund | pending / timeout!" }, "md")).toBe("refund-pending-timeout-r1.md");
  expect(exportFileName({ id: "r1", title: "???" }, "json")).toBe("report-r1.json");
});
