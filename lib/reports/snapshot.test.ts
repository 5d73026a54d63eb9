import { describe, expect, it } from "vitest";
import { policyHash } from "@/lib/replay";
import { buildReportSnapshot, readSnapshot, unknownPins } from "./snapshot";
import { demoSource, FIXTURE_POLICY, refundFixture } from "./testing";

const NOW = new Date("2026-02-01T12:00:00Z");
const EDIT = [{ seq: 6, op: "replace_tool_result" as const, value: "refund failed: card expired" }];

describe("buildReportSnapshot", () => {
  it("holds the policy document and hash, evidence, metrics, the first divergence and the final output diff", async () => {
    const source = await demoSource({ edits: EDIT });
    const s = buildReportSnapshot(source, [], NOW);
    expect(s.version).toBe(1);
    expect(s.takenAt).toBe(NOW.toISOString());
    expect(s.policy.document).toEqual(source.replay.policySnapshot);
    expect(s.policy.hash).toBe(policyHash(source.replay.policySnapshot as never));
    expect(s.evidence.strength).toBe("recorded");
    expect(s.evidence.stepsBySource).toEqual({ recorded: 6, edit: 1 });
    expect(s.replay.comparability).toBe("aligned");
    expect(s.comparison.firstDivergence?.id).toBe("p6-6");
    expect(s.comparison.counts).toEqual({ equal: 7, changed: 2, inserted: 0, removed: 0, unreached: 0 });
    expect(s.comparison.metrics.first_divergence_step).toBe(6);
    expect(s.comparison.finalOutputDiff).not.toBeNull();
    expect(s.session).toEqual({
      id: "session_1",
      label: "Refund for order 4821",
      agentName: "harbor-pine-support",
      adapter: "generic",
    });
    // Only the first divergence is kept of the pairs when nothing is pinned.
    expect(s.comparison.pairs.map((p) => p.id)).toEqual(["p6-6"]);
    expect(s.suggestedValidity.label).toBe("confirmed_by_replay");
  });

  it("keeps pinned pairs in comparison order and drops unknown pins", async () => {
    const source = await demoSource({ edits: EDIT });
    const s = buildReportSnapshot(source, ["p8-8", "p1-1", "nope"], NOW);
    expect(s.pinnedPairs).toEqual(["p1-1", "p8-8"]);
    expect(s.comparison.pairs.map((p) => p.id)).toEqual(["p1-1", "p6-6", "p8-8"]);
    expect(unknownPins(source.comparison, ["p8-8", "nope"])).toEqual(["nope"]);
  });

  it("records fixtures with author and note", async () => {
    const source = await demoSource({ policy: FIXTURE_POLICY, log: [refundFixture("refund pending")] });
    const s = buildReportSnapshot(source, [], NOW);
    expect(s.fixtures).toEqual([
      expect.objectContaining({
        id: "fx_1",
        toolName: "refund_payment",
        stepIdx: 6,
        author: "dana",
        note: "refund service returned a timeout in prod",
      }),
    ]);
    expect(s.evidence.fixturesUsed).toHaveLength(1);
    expect(s.evidence.strength).toBe("controlled");
    expect(s.suggestedValidity.label).toBe("sensitive_to_fixture");
  });

  it("is detached from its source: changing the source afterwards changes nothing", async () => {
    const source = await demoSource({ edits: EDIT });
    const s = buildReportSnapshot(source, ["p1-1"], NOW);
    const before = JSON.stringify(s);
    source.comparison.metrics.steps.base = 999;
    source.evidence.fixturesUsed.push({ step: 1, tool: "x", fixtureId: "f", author: "a", note: "n", at: null });
    (source.comparison.pairs[1] as { base: { output: unknown } }).base.output = "tampered";
    expect(JSON.stringify(s)).toBe(before);
  });

  it("is plain JSON that reads back", async () => {
    const s = buildReportSnapshot(await demoSource(), [], NOW);
    expect(readSnapshot(JSON.parse(JSON.stringify(s)))).toEqual(s);
    expect(readSnapshot({ version: 2 })).toBeNull();
    expect(readSnapshot(null)).toBeNull();
  });
});
