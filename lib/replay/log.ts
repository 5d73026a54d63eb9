import { z } from "zod";
import { EventError, Message, Usage } from "./events";

/**
 * A branch's own log: append-only, event-sourced. Fixtures an
 * analyst gave, live and simulated results obtained, approvals. A resumed
 * branch re-runs with the log as its first source, so a live call is never
 * made twice. Entries are keyed by branch step index, tool and cache key: a
 * deterministic re-run reaches the same call at the same step.
 */

const Provenance = {
  id: z.string().min(1),
  /** ISO time; null when the caller did not supply a clock. */
  at: z.string().nullable(),
};

export const FixtureEntry = z.object({
  type: z.literal("fixture"),
  ...Provenance,
  step: z.number().int().nonnegative(),
  tool: z.string().min(1),
  cacheKey: z.string().nullable(),
  output: z.unknown().optional(),
  /** A fixture may be an error the tool returns instead of a result. */
  error: EventError.nullable().optional(),
  author: z.string().min(1),
  note: z.string(),
});
export type FixtureEntry = z.infer<typeof FixtureEntry>;

const ToolResultFields = {
  ...Provenance,
  step: z.number().int().nonnegative(),
  tool: z.string().min(1),
  callId: z.string(),
  cacheKey: z.string().nullable(),
  args: z.unknown(),
  output: z.unknown().nullable(),
  error: EventError.nullable(),
  durationMs: z.number().nonnegative().nullable(),
};

export const LiveToolResultEntry = z.object({ type: z.literal("live_tool_result"), ...ToolResultFields });
export type LiveToolResultEntry = z.infer<typeof LiveToolResultEntry>;

export const SimulatedToolResultEntry = z.object({
  type: z.literal("simulated_tool_result"),
  ...ToolResultFields,
  model: z.string(),
});
export type SimulatedToolResultEntry = z.infer<typeof SimulatedToolResultEntry>;

export const LiveModelOutputEntry = z.object({
  type: z.literal("live_model_output"),
  ...Provenance,
  step: z.number().int().nonnegative(),
  modelStep: z.number().int().nonnegative(),
  model: z.string(),
  output: Message,
  usage: Usage.nullable(),
  durationMs: z.number().nonnegative().nullable(),
});
export type LiveModelOutputEntry = z.infer<typeof LiveModelOutputEntry>;

export const ProbeOutputsEntry = z.object({
  type: z.literal("probe_outputs"),
  ...Provenance,
  modelStep: z.number().int().nonnegative(),
  model: z.string(),
  outputs: z.array(Message),
  usage: Usage.nullable(),
});
export type ProbeOutputsEntry = z.infer<typeof ProbeOutputsEntry>;

export const ApprovalEntry = z.object({
  type: z.literal("approval"),
  ...Provenance,
  step: z.number().int().nonnegative(),
  tool: z.string().min(1),
  cacheKey: z.string().nullable(),
  decision: z.enum(["approved", "denied"]),
  by: z.string().min(1),
  note: z.string().optional(),
});
export type ApprovalEntry = z.infer<typeof ApprovalEntry>;

export const BranchLogEntry = z.discriminatedUnion("type", [
  FixtureEntry,
  LiveToolResultEntry,
  SimulatedToolResultEntry,
  LiveModelOutputEntry,
  ProbeOutputsEntry,
  ApprovalEntry,
]);
export type BranchLogEntry = z.infer<typeof BranchLogEntry>;

export const BranchLog = z.array(BranchLogEntry);
export type BranchLog = z.infer<typeof BranchLog>;

interface CallRef {
  step: number;
  tool: string;
  cacheKey: string | null;
}

const sameCall = (entry: CallRef, call: CallRef) =>
  entry.step === call.step && entry.tool === call.tool && entry.cacheKey === call.cacheKey;

/** Read access to a branch log, plus the entries this run appends. */
export class LogIndex {
  private readonly entries: BranchLogEntry[];
  readonly appended: BranchLogEntry[] = [];

  constructor(entries: readonly BranchLogEntry[]) {
    this.entries = [...entries];
  }

  append(entry: BranchLogEntry): void {
    this.entries.push(entry);
    this.appended.push(entry);
  }

  /**
   * The analyst fixture for a call: matched by cache key first (preferring
   * one given at this very step), then by step for the same tool (calls
   * without a cache key can only be matched by step).
   */
  fixtureFor(call: CallRef): FixtureEntry | undefined {
    const fixtures = this.entries.filter((e): e is FixtureEntry => e.type === "fixture" && e.tool === call.tool);
    if (call.cacheKey !== null) {
      const byKey = fixtures.filter((f) => f.cacheKey === call.cacheKey);
      const here = byKey.find((f) => f.step === call.step);
      if (here ?? byKey[0]) return here ?? byKey[0];
    }
    return fixtures.find((f) => f.step === call.step && (f.cacheKey === null || f.cacheKey === call.cacheKey));
  }

  liveToolResult(call: CallRef): LiveToolResultEntry | undefined {
    return this.entries.find((e): e is LiveToolResultEntry => e.type === "live_tool_result" && sameCall(e, call));
  }

  simulatedToolResult(call: CallRef): SimulatedToolResultEntry | undefined {
    return this.entries.find(
      (e): e is SimulatedToolResultEntry => e.type === "simulated_tool_result" && sameCall(e, call),
    );
  }

  approval(call: CallRef): ApprovalEntry | undefined {
    // The latest decision wins: an analyst may deny, then approve.
    let found: ApprovalEntry | undefined;
    for (const e of this.entries) if (e.type === "approval" && sameCall(e, call)) found = e;
    return found;
  }

  liveModelOutput(modelStep: number): LiveModelOutputEntry | undefined {
    return this.entries.find(
      (e): e is LiveModelOutputEntry => e.type === "live_model_output" && e.modelStep === modelStep,
    );
  }

  probeOutputs(modelStep: number): ProbeOutputsEntry | undefined {
    return this.entries.find((e): e is ProbeOutputsEntry => e.type === "probe_outputs" && e.modelStep === modelStep);
  }

  get size(): number {
    return this.entries.length;
  }
}
