/** Test helper (not used by the app): a report source made by the real engine from the demo refund session. */
import { readFileSync } from "node:fs";
import path from "node:path";
import { importDocument } from "@/lib/ingest";
import {
  compareRuns,
  replay,
  RECOMMENDED_RCA_POLICY,
  type BranchLogEntry,
  type Edit,
  type Policy,
  type SessionEvent,
} from "@/lib/replay";
import type { ReportSource } from "./snapshot";

export function demoRefundSession(): SessionEvent[] {
  const file = path.join(import.meta.dirname, "../../prisma/seed/native/refund-agent.json");
  const result = importDocument(readFileSync(file, "utf8"), { filename: "refund-agent.json" });
  if (!result.ok || !result.sessions[0]) throw new Error("the demo refund session did not import");
  return result.sessions[0].events;
}

/** A policy where refund_payment needs an analyst fixture (it pauses without one). */
export const FIXTURE_POLICY: Policy = {
  ...RECOMMENDED_RCA_POLICY,
  tools: { ...RECOMMENDED_RCA_POLICY.tools, overrides: { refund_payment: { type: "fixture", on_miss: "pause" } } },
};

export async function demoSource(
  opts: { edits?: Edit[]; policy?: Policy; log?: BranchLogEntry[] } = {},
): Promise<ReportSource> {
  const base = demoRefundSession();
  const policy = opts.policy ?? RECOMMENDED_RCA_POLICY;
  const result = await replay({ base, policy, edits: opts.edits ?? [], log: opts.log ?? [] });
  const fixtures = (opts.log ?? []).flatMap((e) =>
    e.type === "fixture"
      ? [
          {
            id: e.id,
            toolName: e.tool,
            callId: null,
            stepIdx: e.step,
            output: e.output ?? null,
            error: e.error ?? null,
            author: e.author,
            note: e.note,
            createdAt: e.at ?? "2026-01-01T00:00:00.000Z",
          },
        ]
      : [],
  );
  return {
    replay: {
      id: "replay_1",
      status: result.status,
      comparability: result.comparability,
      policyHash: result.evidence.policyHash,
      policySnapshot: policy,
      edits: opts.edits ?? [],
      createdAt: new Date("2026-01-01T00:00:00Z"),
      finishedAt: new Date("2026-01-01T00:00:01Z"),
      sessionId: "session_1",
      policyVersion: null,
    },
    session: {
      id: "session_1",
      title: "Refund for order 4821",
      externalId: null,
      agentName: "harbor-pine-support",
      adapter: "generic",
    },
    evidence: result.evidence,
    fixtures,
    approvals: [],
    comparison: compareRuns(base, result.steps),
  };
}

export function refundFixture(output: unknown): BranchLogEntry {
  return {
    type: "fixture",
    id: "fx_1",
    at: "2026-01-01T00:00:00.500Z",
    step: 6,
    tool: "refund_payment",
    cacheKey: null,
    output,
    author: "dana",
    note: "refund service returned a timeout in prod",
  };
}
